/**
 * Where uploaded files go: a small contract, so that a bucket (S3, GCS) is a few lines (docs/uploads.md). The
 * framework writes each upload under a temporary key, moves it to its final name once the item is about to be
 * written, and removes it when the request fails or the item is deleted. Keys are names the framework makes (letters,
 * digits, `-`, `.`): never a client's file name.
 */
import type { Readable } from 'node:stream';

/** A stored object, to serve. */
export interface StoredObject {
  /** Its bytes, as a stream. */
  readonly content: Readable;
  /** Its size in bytes. */
  readonly size: number;
}

/** Where the uploads of file fields go (the `uploads.storage` option): write, move, read and remove objects by key. */
export interface FileStorage {
  /**
   * Writes `content` to `key`, streaming (never holding the whole file in memory). When `content` fails (a cut-off
   * request, a size limit), rejects with its error and leaves nothing under `key`.
   */
  write(key: string, content: Readable): Promise<void>;
  /** Gives the object under `from` the key `to` (a rename on disk; a copy and a delete in a bucket). */
  move(from: string, to: string): Promise<void>;
  /** The object under `key`, or null when there is none. */
  read(key: string): Promise<StoredObject | null>;
  /** Removes the object under `key`; nothing happens when there is none. */
  remove(key: string): Promise<void>;
}
