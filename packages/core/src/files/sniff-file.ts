/**
 * What a file is, judged from its first bytes (never from the client's claim or name), and an image's dimensions
 * read from its header without decoding a pixel: an image declaring a billion pixels is refused by its header, before
 * anything could decode it. A small table of signatures: the image types the constraints name, and common types that
 * must never pass for an image (archives, executables, documents). A PNG is recognised only with a well-formed IHDR
 * chunk after its signature, so a script behind a PNG signature is not a PNG.
 */
import { isUtf8 } from 'node:buffer';
import type { ImageDimensions } from './uploaded-file.js';

/** How many of the first bytes are kept to judge a file (JPEG dimensions come after its metadata segments). */
export const SNIFFED_BYTES = 64 * 1024;

/** What the first bytes say. */
export interface SniffedFile {
  readonly mimeType: string;
  readonly dimensions: ImageDimensions | null;
}

const startsWith = (bytes: Buffer, signature: readonly number[], offset = 0): boolean =>
  bytes.length >= offset + signature.length && signature.every((byte, index) => bytes[offset + index] === byte);
const ascii = (bytes: Buffer, start: number, end: number): string => bytes.toString('latin1', start, end);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A PNG: the signature, then an IHDR chunk of 13 bytes whose width and height are not zero. */
function readPng(bytes: Buffer): SniffedFile | null {
  if (!startsWith(bytes, PNG) || bytes.length < 24) return null;
  if (bytes.readUInt32BE(8) !== 13 || ascii(bytes, 12, 16) !== 'IHDR') return null;
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  return width > 0 && height > 0 ? { mimeType: 'image/png', dimensions: { width, height } } : null;
}

/** A JPEG: SOI, then segments up to a start-of-frame marker, which holds the dimensions. */
function readJpeg(bytes: Buffer): SniffedFile | null {
  if (!startsWith(bytes, [0xff, 0xd8, 0xff])) return null;
  let offset = 2;
  while (offset + 9 <= bytes.length) {
    if (bytes[offset] !== 0xff) return { mimeType: 'image/jpeg', dimensions: null };
    const marker = bytes[offset + 1]!;
    if (marker === 0xff) {
      offset++; // fill byte
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      const height = bytes.readUInt16BE(offset + 5);
      const width = bytes.readUInt16BE(offset + 7);
      return { mimeType: 'image/jpeg', dimensions: width > 0 && height > 0 ? { width, height } : null };
    }
    offset += 2 + bytes.readUInt16BE(offset + 2);
  }
  return { mimeType: 'image/jpeg', dimensions: null };
}

/** A WebP: a RIFF container of type WEBP, its first chunk VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function readWebp(bytes: Buffer): SniffedFile | null {
  if (bytes.length < 30 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 12) !== 'WEBP') return null;
  const chunk = ascii(bytes, 12, 16);
  let dimensions: ImageDimensions | null = null;
  if (chunk === 'VP8 ' && startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) {
    dimensions = { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  } else if (chunk === 'VP8L' && bytes[20] === 0x2f) {
    const bits = bytes.readUInt32LE(21);
    dimensions = { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  } else if (chunk === 'VP8X') {
    dimensions = { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  } else return null;
  return { mimeType: 'image/webp', dimensions };
}

function readGif(bytes: Buffer): SniffedFile | null {
  if (bytes.length < 10 || !['GIF87a', 'GIF89a'].includes(ascii(bytes, 0, 6))) return null;
  return { mimeType: 'image/gif', dimensions: { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) } };
}

/** Types recognised by their signature alone; none of them is an image. */
const SIGNATURES: readonly { readonly mimeType: string; readonly signature: readonly number[] }[] = [
  { mimeType: 'application/pdf', signature: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { mimeType: 'application/zip', signature: [0x50, 0x4b, 0x03, 0x04] },
  { mimeType: 'application/gzip', signature: [0x1f, 0x8b] },
  { mimeType: 'application/x-executable', signature: [0x7f, 0x45, 0x4c, 0x46] },
  { mimeType: 'application/x-dosexec', signature: [0x4d, 0x5a] },
];

/** What the first bytes of a file are (`text/plain` for UTF-8 text without NUL, else `application/octet-stream`). */
export function sniffFile(head: Buffer): SniffedFile {
  const image = readPng(head) ?? readJpeg(head) ?? readWebp(head) ?? readGif(head);
  if (image) return image;
  const known = SIGNATURES.find(({ signature }) => startsWith(head, signature));
  if (known) return { mimeType: known.mimeType, dimensions: null };
  // The head may end inside a multi-byte character: judge the text without its last three bytes.
  const text = head.length > SNIFFED_BYTES - 4 ? head.subarray(0, head.length - 3) : head;
  if (head.length > 0 && !text.includes(0) && isUtf8(text)) return { mimeType: 'text/plain', dimensions: null };
  return { mimeType: 'application/octet-stream', dimensions: null };
}

/** The extension a stored file gets for its media type, and back: the served `Content-Type` comes from it. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};

export function toExtension(mimeType: string): string {
  return EXTENSIONS[mimeType] ?? 'bin';
}

export function toMimeType(extension: string): string {
  return Object.entries(EXTENSIONS).find(([, ext]) => ext === extension)?.[0] ?? 'application/octet-stream';
}
