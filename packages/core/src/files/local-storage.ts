/** The default storage: a folder on the local disk (`var/uploads` unless told), created on first write. */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStorage } from './file-storage.js';

/** The keys the framework makes; anything else (a `/`, `..`) never reaches the file system. */
const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function pathOf(directory: string, key: string): string {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`Invalid storage key "${key}".`);
  return join(directory, key);
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * A storage in a folder of the local disk.
 *
 * @example
 * await app.register(resourceApi, { resources, uploads: { storage: createLocalStorage({ directory: 'var/media' }) } });
 */
export function createLocalStorage(options: { readonly directory: string }): FileStorage {
  const { directory } = options;
  let created: Promise<unknown> | undefined;
  return {
    async write(key: string, content: Readable): Promise<void> {
      const path = pathOf(directory, key);
      await (created ??= mkdir(directory, { recursive: true }));
      try {
        await pipeline(content, createWriteStream(path, { flags: 'wx' }));
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
    },
    async move(from: string, to: string): Promise<void> {
      await rename(pathOf(directory, from), pathOf(directory, to));
    },
    async read(key: string) {
      if (!SAFE_KEY.test(key) || key.includes('..')) return null;
      const path = pathOf(directory, key);
      try {
        const { size, isFile } = await stat(path).then((s) => ({ size: s.size, isFile: s.isFile() }));
        return isFile ? { content: createReadStream(path), size } : null;
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async remove(key: string): Promise<void> {
      await rm(pathOf(directory, key), { force: true });
    },
  };
}
