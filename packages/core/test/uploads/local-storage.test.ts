/** The default storage: streamed writes that leave nothing behind when the stream fails, and keys that are names only. */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalStorage } from '@resource-api/core';

describe('createLocalStorage', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'storage-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('writes, moves, reads and removes objects', async () => {
    const storage = createLocalStorage({ directory: join(directory, 'media') });
    await storage.write('upload-1', Readable.from([Buffer.from('hello '), Buffer.from('world')]));
    await storage.move('upload-1', 'abc.txt');
    const found = await storage.read('abc.txt');
    expect(found?.size).toBe(11);
    expect(await storage.read('upload-1')).toBeNull();
    await storage.remove('abc.txt');
    await storage.remove('abc.txt');
    expect(await readdir(join(directory, 'media'))).toEqual([]);
  });

  it('leaves nothing when the stream fails half way', async () => {
    const storage = createLocalStorage({ directory });
    async function* cutOff() {
      yield Buffer.alloc(10_000, 1);
      throw new Error('Unexpected end of form');
    }
    await expect(storage.write('upload-2', Readable.from(cutOff()))).rejects.toThrow('Unexpected end of form');
    expect(await readdir(directory)).toEqual([]);
  });

  it('refuses keys that are paths', async () => {
    const storage = createLocalStorage({ directory });
    await expect(storage.write('../escape', Readable.from([Buffer.from('x')]))).rejects.toThrow('Invalid storage key');
    await expect(storage.remove('a/b')).rejects.toThrow('Invalid storage key');
    expect(await storage.read('../package.json')).toBeNull();
  });
});
