/**
 * The contract's MediaObject (section "Timestamps, soft delete, uploads"), black-box on SQLite and PostgreSQL: an image
 * uploaded with `multipart/form-data` (ROLE_USER), judged by its bytes, served at its `contentUrl`; Symfony's File
 * messages for the rest; 413 over 4 MiB; hostile bodies refused without a file or a row left behind; a book's cover.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bearer, call, create, databases, JSONLD, registerAndLogin, useBookshop } from './support.js';

const BOUNDARY = '----bookshop-boundary';

interface Part {
  readonly name: string;
  readonly filename?: string;
  readonly type?: string;
  readonly content: Buffer | string;
}

/** A multipart body, byte by byte (so a test can send what a form never would). */
function multipart(parts: readonly Part[]): { payload: Buffer; headers: Record<string, string> } {
  const chunks = parts.flatMap((part) => [
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"` +
        `${part.filename === undefined ? '' : `; filename="${part.filename}"`}\r\n` +
        `${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`,
    ),
    Buffer.from(part.content),
    Buffer.from('\r\n'),
  ]);
  return {
    payload: Buffer.concat([...chunks, Buffer.from(`--${BOUNDARY}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

/** A PNG: its signature and IHDR (width, height), padded to `size` bytes. */
function png(width: number, height: number, size = 1234): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return Buffer.concat([header, Buffer.alloc(size - 33, 7)]);
}

describe.each(databases)('bookshop media objects on $name', (database) => {
  const shop = useBookshop(database);
  const files = () => readdirSync(shop().uploads);

  async function upload(parts: readonly Part[], token?: string) {
    const { payload, headers } = multipart(parts);
    return call(shop().app, {
      method: 'POST',
      url: '/api/media_objects',
      payload,
      headers: { ...headers, ...(token ? bearer(token) : {}) },
    });
  }
  const rows = async () => (await shop().app.resourceApi.database.knex('media_object').count({ n: '*' }))[0]!.n;

  it('creates a media object from a PNG and serves its bytes at the contentUrl', async () => {
    const { token } = await registerAndLogin(shop().app, 'reader@example.com');
    const bytes = png(120, 80);
    const response = await upload([{ name: 'file', filename: 'cover.png', type: 'image/png', content: bytes }], token);
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe(JSONLD);
    expect(response.body).toEqual({
      '@context': '/api/contexts/MediaObject',
      '@id': '/api/media_objects/1',
      '@type': 'https://schema.org/MediaObject',
      id: 1,
      contentUrl: expect.stringMatching(/^\/media\/[0-9a-f]{32}\.png$/),
      contentSize: 1234,
      encodingFormat: 'image/png',
    });
    const served = await shop().app.inject({ method: 'GET', url: response.body.contentUrl });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(served.rawPayload.equals(bytes)).toBe(true);

    // GET of the item is public.
    const item = await call(shop().app, { method: 'GET', url: '/api/media_objects/1' });
    expect(item.status).toBe(200);
    expect(item.body.contentUrl).toBe(response.body.contentUrl);
  });

  it('needs ROLE_USER to upload: anonymous gets 401 and nothing is stored', async () => {
    const response = await upload([{ name: 'file', filename: 'a.png', content: png(2, 2) }]);
    expect(response.status).toBe(401);
    expect(files()).toEqual([]);
  });

  it('judges the type from the bytes: text claimed as image/png gets Symfony’s mime type message', async () => {
    const { token } = await registerAndLogin(shop().app, 'reader@example.com');
    const response = await upload(
      [{ name: 'file', filename: 'a.png', type: 'image/png', content: 'not an image\n' }],
      token,
    );
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'file',
        message:
          'The mime type of the file is invalid ("text/plain"). Allowed mime types are "image/png", "image/jpeg", "image/webp".',
        code: '744f00bc-4389-4c74-92de-9a43cde55534',
      },
    ]);
    expect(files()).toEqual([]);
    expect(Number(await rows())).toBe(0);
  });

  it('refuses a file over 2 MB and a body without a file part', async () => {
    const { token } = await registerAndLogin(shop().app, 'reader@example.com');
    const large = await upload([{ name: 'file', filename: 'big.png', content: png(10, 10, 2_500_000) }], token);
    expect(large.status).toBe(400);
    expect(large.body.violations[0]).toMatchObject({
      propertyPath: 'file',
      message: 'The file is too large (2.5 MB). Allowed maximum size is 2 MB.',
    });
    const none = await upload([{ name: 'title', content: 'no file here' }], token);
    expect(none.status).toBe(400);
    expect(none.body.violations).toEqual([
      { propertyPath: 'file', message: 'This value should not be null.', code: 'ad32d13f-c3d4-423b-909a-857b961eb720' },
    ]);
    expect(files()).toEqual([]);
    expect(Number(await rows())).toBe(0);
  });

  it('answers 413 to a multipart body over 4 MiB and leaves no file behind', async () => {
    const { token } = await registerAndLogin(shop().app, 'reader@example.com');
    const response = await upload([{ name: 'file', filename: 'huge.png', content: png(10, 10, 4_300_000) }], token);
    expect(response.status).toBe(413);
    expect(response.body['@type']).toBe('hydra:Error');
    expect(files()).toEqual([]);
    expect(Number(await rows())).toBe(0);
  });

  it('refuses hostile uploads without leaving a file or a row: a script behind a PNG signature, a cut-off body, 1,000 parts', async () => {
    const { token } = await registerAndLogin(shop().app, 'reader@example.com');
    const script = Buffer.concat([png(1, 1).subarray(0, 8), Buffer.from('#!/bin/sh\nrm -rf /\n')]);
    expect(
      (await upload([{ name: 'file', filename: 'x.png', type: 'image/png', content: script }], token)).status,
    ).toBe(400);
    const { payload, headers } = multipart([{ name: 'file', filename: 'a.png', content: png(10, 10, 100_000) }]);
    const cut = await call(shop().app, {
      method: 'POST',
      url: '/api/media_objects',
      payload: payload.subarray(0, 50_000),
      headers: { ...headers, ...bearer(token) },
    });
    expect(cut.status).toBe(400);
    const many = Array.from({ length: 1000 }, (_, index) => ({
      name: `p${index}`,
      filename: `${index}.png`,
      content: png(1, 1, 40),
    }));
    expect((await upload(many, token)).status).toBe(413);
    const escaping = await upload([{ name: 'file', filename: '../../../../tmp/evil.png', content: png(4, 4) }], token);
    expect(escaping.status).toBe(201);
    expect(files()).toEqual([escaping.body.contentUrl.slice('/media/'.length)]);
    expect(Number(await rows())).toBe(1);
  });

  it('gives a book an optional cover, the IRI of a media object', async () => {
    const { token } = await registerAndLogin(shop().app, 'reader@example.com');
    const cover = await upload([{ name: 'file', filename: 'cover.jpg', content: png(300, 400) }], token);
    const author = await create(shop().app, 'authors', { name: 'Ursula K. Le Guin' });
    const book = await create(shop().app, 'books', {
      title: 'The Dispossessed',
      author: author['@id'],
      cover: cover.body['@id'],
    });
    expect(book.cover).toBe('/api/media_objects/1');
    const without = await create(shop().app, 'books', { title: 'Earthsea', author: author['@id'] });
    expect(without.cover).toBeUndefined();
    const wrong = await call(shop().app, {
      method: 'POST',
      url: '/api/books',
      payload: { title: 'Lathe of Heaven', author: author['@id'], cover: '/api/media_objects/99' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.violations[0]).toMatchObject({ propertyPath: 'cover' });
  });
});
