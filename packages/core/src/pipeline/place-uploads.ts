/**
 * The files of a write. Before it: each upload of the new state is moved from its temporary key to its final name
 * (random, with the extension of its judged type) and the field gets its description. After the commit: the files the
 * write let go of (the item deleted, a file replaced) are removed. A write that fails removes what was placed for it:
 * no file outlives a refused or failed write, and no row points to a missing file.
 */
import { randomBytes } from 'node:crypto';
import type { FileStorage } from '../files/file-storage.js';
import { toExtension } from '../files/sniff-file.js';
import { isStoredFile, type StoredFile, UploadedFile } from '../files/uploaded-file.js';
import type { Entity, ResourceMetadata, StateLogger } from '../metadata/types.js';

const fileFieldsOf = (resource: ResourceMetadata) =>
  resource.fields.filter((field) => field.kind === 'scalar' && field.type === 'file');

/** Moves the uploads of `data` into place and puts their descriptions in their fields; the names placed. */
export async function placeUploads(storage: FileStorage, resource: ResourceMetadata, data: Entity): Promise<string[]> {
  const placed: string[] = [];
  try {
    for (const field of fileFieldsOf(resource)) {
      const upload = data[field.name];
      if (!(upload instanceof UploadedFile)) continue;
      const name = `${randomBytes(16).toString('hex')}.${toExtension(upload.mimeType)}`;
      await storage.move(upload.temporaryKey, name);
      placed.push(name);
      const stored: StoredFile = {
        name,
        size: upload.size,
        mimeType: upload.mimeType,
        originalName: upload.clientName,
      };
      data[field.name] = stored;
    }
  } catch (error) {
    await removeFiles(storage, placed);
    throw error;
  }
  return placed;
}

/**
 * The names of the stored files `before` held that `after` does not (all of them when the item is deleted, `after`
 * null). A field `after` leaves out says nothing: its file is kept.
 */
export function listReleasedFiles(resource: ResourceMetadata, before: Entity | null, after: Entity | null): string[] {
  if (!before) return [];
  return fileFieldsOf(resource).flatMap((field) => {
    const old = before[field.name];
    if (!isStoredFile(old) || (after !== null && !Object.hasOwn(after, field.name))) return [];
    const kept = after?.[field.name];
    return isStoredFile(kept) && kept.name === old.name ? [] : [old.name];
  });
}

/** Removes files; a failure is logged when a logger is given (the write stands), else thrown. */
export async function removeFiles(storage: FileStorage, names: readonly string[], logger?: StateLogger): Promise<void> {
  for (const name of names) {
    try {
      await storage.remove(name);
    } catch (error) {
      if (!logger) throw error;
      logger.error({ err: error, file: name }, 'A file the write let go of could not be removed.');
    }
  }
}
