/**
 * The two states of a file field's value: an `UploadedFile` (received, written to a temporary object of the storage,
 * not yet the item's) between the body parser and the write stage, and a `StoredFile` (moved into place, its
 * description kept in the field's column) once written.
 */

/** The width and height an image's header declares, read without decoding it. */
export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
}

/** A file of a multipart body, streamed to a temporary object of the storage. */
export class UploadedFile {
  constructor(
    /** The temporary object's key in the storage (never served). */
    readonly temporaryKey: string,
    /** Its size in bytes. */
    readonly size: number,
    /** The media type judged from its first bytes (`application/octet-stream` when none is recognised). */
    readonly mimeType: string,
    /** An image's declared dimensions, or null (not an image, or a header that could not be read). */
    readonly dimensions: ImageDimensions | null,
    /** The file name the client gave, without any directory part (only ever shown, never used as a path). */
    readonly clientName: string,
    /** The media type the client claimed (not trusted: `mimeType` is what the constraints judge). */
    readonly clientMimeType: string,
  ) {}
}

/** A stored file, as its field holds it (a JSON column): where it is and what it is. */
export interface StoredFile {
  /** Its name in the storage, served at `<files path>/<name>` (the `contentUrl`). */
  readonly name: string;
  readonly size: number;
  readonly mimeType: string;
  /** The file name the client gave. */
  readonly originalName: string;
}

/** Whether a field value is a stored file's description. */
export function isStoredFile(value: unknown): value is StoredFile {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as StoredFile).name === 'string' &&
    typeof (value as StoredFile).size === 'number'
  );
}
