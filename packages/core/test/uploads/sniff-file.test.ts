/** Judging a file by its first bytes: the image types and their declared dimensions, and what must not pass for one. */
import { describe, expect, it } from 'vitest';
import { sniffFile } from '../../src/files/sniff-file.js';
import { factorizeSizes, parseFileSize } from '../../src/files/file-size.js';
import { jpeg, png, webp } from './multipart-body.js';

describe('sniffFile', () => {
  it('reads the dimensions of PNG, JPEG and WebP headers without decoding them', () => {
    expect(sniffFile(png(640, 480))).toEqual({ mimeType: 'image/png', dimensions: { width: 640, height: 480 } });
    expect(sniffFile(jpeg(1024, 768))).toEqual({ mimeType: 'image/jpeg', dimensions: { width: 1024, height: 768 } });
    expect(sniffFile(webp(300, 200))).toEqual({ mimeType: 'image/webp', dimensions: { width: 300, height: 200 } });
  });

  it('does not take a script behind a PNG signature for a PNG', () => {
    const script = Buffer.concat([png(1, 1).subarray(0, 8), Buffer.from('<?php system($_GET["c"]); ?>')]);
    expect(sniffFile(script).mimeType).toBe('application/octet-stream');
  });

  it('tells text, archives and executables apart from images', () => {
    expect(sniffFile(Buffer.from('hello world\n')).mimeType).toBe('text/plain');
    expect(sniffFile(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2])).mimeType).toBe('application/zip');
    expect(sniffFile(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1])).mimeType).toBe('application/x-executable');
    expect(sniffFile(Buffer.from([0, 1, 2, 0xff])).mimeType).toBe('application/octet-stream');
  });
});

describe('file sizes as Symfony prints them', () => {
  it('reads maxSize with decimal and binary suffixes', () => {
    expect(parseFileSize('2M')).toEqual({ bytes: 2_000_000, binary: false });
    expect(parseFileSize('500k')).toEqual({ bytes: 500_000, binary: false });
    expect(parseFileSize('1Mi')).toEqual({ bytes: 1_048_576, binary: true });
    expect(parseFileSize('2 MB')).toBeUndefined();
  });

  it('prints the size and the limit in the unit that shows the difference', () => {
    expect(factorizeSizes(2_500_000, { bytes: 2_000_000, binary: false })).toEqual({
      size: '2.5',
      limit: '2',
      suffix: 'MB',
    });
    expect(factorizeSizes(2_000_001, { bytes: 2_000_000, binary: false })).toEqual({
      size: '2000001',
      limit: '2000000',
      suffix: 'bytes',
    });
    expect(factorizeSizes(1_600_000, { bytes: 1_048_576, binary: true })).toEqual({
      size: '1.53',
      limit: '1',
      suffix: 'MiB',
    });
  });
});
