/**
 * Uploads, on SQLite and PostgreSQL: a `file` field written with `multipart/form-data`, streamed to the storage,
 * judged by its bytes (File, Image), served at its `contentUrl`; and hostile bodies (a script behind a PNG signature,
 * an image declaring huge dimensions, a `../` file name, 1,000 parts, a body cut off mid-part, one over the limit) that
 * are refused and leave neither a file nor a row behind.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import {
  ApiError,
  createLocalStorage,
  defineResource,
  File,
  Image,
  isStoredFile,
  NotNull,
  type Entity,
} from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';
import { jpeg, type Part, png, toMultipart, webp } from './multipart-body.js';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
const fileOf = (item: Entity) => (isStoredFile(item.file) ? item.file : null);

const MediaObject = defineResource({
  name: 'MediaObject',
  fields: {
    file: { type: 'file', constraints: [NotNull(), File({ maxSize: '2M', mimeTypes: IMAGE_TYPES })] },
    contentUrl: { type: 'string', computed: (item) => `/media/${fileOf(item)?.name}` },
    contentSize: { type: 'integer', computed: (item) => fileOf(item)?.size },
    encodingFormat: { type: 'string', computed: (item) => fileOf(item)?.mimeType },
  },
  operations: ['get', 'getCollection', 'post', 'delete'],
});

/** Images refused by the dimensions their header declares; a hook that fails after the row is written. */
const Photo = defineResource({
  name: 'Photo',
  fields: {
    file: { type: 'file', constraints: [NotNull(), Image({ maxWidth: 4096, maxHeight: 4096 })] },
    caption: { type: 'string', default: '' },
  },
  hooks: {
    afterWrite: (item) => {
      if (item.caption === 'fail') throw new ApiError('CONFLICT', 'The hook refused the photo.');
    },
  },
  operations: ['get', 'getCollection', 'post'],
});

/** A resource whose file is optional. */
const Album = defineResource({
  name: 'Album',
  fields: { cover: { type: 'file', nullable: true }, title: { type: 'string' } },
  operations: ['get', 'post', 'patch'],
});

const Note = defineResource({ name: 'Note', fields: { text: { type: 'string' } }, operations: ['post', 'get'] });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('uploads on $name', (database) => {
  let app: FastifyInstance;
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'uploads-'));
    app = await buildTestApp({
      database,
      resources: [MediaObject, Photo, Note, Album],
      uploads: { storage: createLocalStorage({ directory }), bodyLimit: 4 * 1024 * 1024, maxParts: 20 },
    });
  });
  afterEach(async () => {
    await app.close();
    await rm(directory, { recursive: true, force: true });
  });

  const stored = async () => (await readdir(directory).catch(() => [])).sort();
  const upload = (parts: readonly Part[], url = '/api/media_objects') => {
    const { payload, headers } = toMultipart(parts);
    return call(app, { method: 'POST', url, payload, headers });
  };
  const count = async (url = '/api/media_objects') =>
    (await call(app, { method: 'GET', url })).body['hydra:totalItems'] as number;

  it('stores a PNG and serves it at its contentUrl with its type, ETag and nosniff', async () => {
    const bytes = png(64, 32, 1234);
    const response = await upload([{ name: 'file', filename: 'cat.png', type: 'image/png', content: bytes }]);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      '@context': '/api/contexts/MediaObject',
      '@id': '/api/media_objects/1',
      '@type': 'MediaObject',
      id: 1,
      contentUrl: expect.stringMatching(/^\/media\/[0-9a-f]{32}\.png$/),
      contentSize: 1234,
      encodingFormat: 'image/png',
    });
    expect(await stored()).toEqual([response.body.contentUrl.slice('/media/'.length)]);

    const served = await app.inject({ method: 'GET', url: response.body.contentUrl });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(bytes)).toBe(true);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-disposition']).toBeUndefined();
    const etag = served.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await app.inject({
      method: 'GET',
      url: response.body.contentUrl,
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
  });

  it('judges JPEG and WebP by their bytes, whatever the client claims', async () => {
    const first = await upload([{ name: 'file', filename: 'a.bin', type: 'text/plain', content: jpeg(10, 10) }]);
    expect(first.status).toBe(201);
    expect(first.body.encodingFormat).toBe('image/jpeg');
    const second = await upload([{ name: 'file', filename: 'b', type: 'application/x-php', content: webp(5, 5) }]);
    expect(second.body.encodingFormat).toBe('image/webp');
    expect(second.body.contentUrl).toMatch(/\.webp$/);
  });

  it('refuses text sent as image/png with Symfony’s mime type message, leaving no file and no row', async () => {
    const response = await upload([{ name: 'file', filename: 'x.png', type: 'image/png', content: 'hello\n' }]);
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'file',
        message:
          'The mime type of the file is invalid ("text/plain"). Allowed mime types are "image/png", "image/jpeg", "image/webp".',
        code: '744f00bc-4389-4c74-92de-9a43cde55534',
      },
    ]);
    expect(await stored()).toEqual([]);
    expect(await count()).toBe(0);
  });

  it('refuses a script behind a PNG signature', async () => {
    const script = Buffer.concat([png(1, 1).subarray(0, 8), Buffer.from('<?php system($_GET["c"]); ?>')]);
    const response = await upload([{ name: 'file', filename: 'shell.php.png', type: 'image/png', content: script }]);
    expect(response.status).toBe(400);
    expect(response.body.violations[0].message).toBe(
      'The mime type of the file is invalid ("application/octet-stream"). Allowed mime types are "image/png", "image/jpeg", "image/webp".',
    );
    expect(await stored()).toEqual([]);
  });

  it('refuses a file over maxSize with Symfony’s size message', async () => {
    const response = await upload([{ name: 'file', filename: 'big.png', content: png(10, 10, 2_500_000) }]);
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'file',
        message: 'The file is too large (2.5 MB). Allowed maximum size is 2 MB.',
        code: 'df8637af-d466-48c6-a59d-e7126250a654',
      },
    ]);
    expect(await stored()).toEqual([]);
  });

  it('asks for the file when no file part is sent, and refuses a JSON value for it', async () => {
    const none = await upload([{ name: 'other', content: 'x' }]);
    expect(none.status).toBe(400);
    expect(none.body.violations).toEqual([
      { propertyPath: 'file', message: 'This value should not be null.', code: 'ad32d13f-c3d4-423b-909a-857b961eb720' },
    ]);
    const json = await call(app, { method: 'POST', url: '/api/media_objects', payload: { file: 'x.png' } });
    expect(json.status).toBe(400);
    expect(json.body.violations.map((v: { message: string }) => v.message)).toContain(
      'This value should be of type file.',
    );
    expect(await count()).toBe(0);
  });

  it('refuses an image whose header declares huge dimensions, before decoding anything', async () => {
    const bomb = png(100_000, 100_000, 200);
    const response = await upload([{ name: 'file', filename: 'bomb.png', content: bomb }], '/api/photos');
    expect(response.status).toBe(400);
    expect(response.body.violations[0].message).toBe(
      'The image width is too big (100000px). Allowed maximum width is 4096px.',
    );
    expect(await stored()).toEqual([]);
    expect(await count('/api/photos')).toBe(0);
  });

  it('keeps a file name with ../ as a name only, storing under a name of its own', async () => {
    const response = await upload([{ name: 'file', filename: '../../../etc/passwd.png', content: png(2, 2) }]);
    expect(response.status).toBe(201);
    expect(await stored()).toEqual([expect.stringMatching(/^[0-9a-f]{32}\.png$/)]);
    expect(await readdir(join(directory, '..'))).not.toContain('passwd.png');
  });

  it('answers 413 to 1,000 parts and leaves nothing behind', async () => {
    const parts: Part[] = Array.from({ length: 1000 }, (_, index) =>
      index % 2 === 0
        ? { name: `f${index}`, filename: `${index}.png`, content: png(1, 1) }
        : { name: `t${index}`, content: 'x' },
    );
    const response = await upload(parts);
    expect(response.status).toBe(413);
    expect(response.body['hydra:description']).toBe('The multipart body has more than 20 parts.');
    expect(await stored()).toEqual([]);
    expect(await count()).toBe(0);
  });

  it('answers 400 to a body cut off mid-part and leaves no partial file', async () => {
    const { payload, headers } = toMultipart([{ name: 'file', filename: 'a.png', content: png(10, 10, 50_000) }]);
    const response = await call(app, {
      method: 'POST',
      url: '/api/media_objects',
      payload: payload.subarray(0, 30_000),
      headers,
    });
    expect(response.status).toBe(400);
    expect(response.body['hydra:description']).toMatch(/^The multipart body could not be read/);
    expect(await stored()).toEqual([]);
    expect(await count()).toBe(0);
  });

  it('answers 413 to a body over the limit, declared or streamed without a length, leaving nothing behind', async () => {
    const { payload, headers } = toMultipart([{ name: 'file', filename: 'huge.png', content: png(10, 10, 5_000_000) }]);
    const declared = await call(app, { method: 'POST', url: '/api/media_objects', payload, headers });
    expect(declared.status).toBe(413);
    // Two files, each under the limit, over it together: counted while streaming (no Content-Length to trust).
    const two = toMultipart([
      { name: 'file', filename: 'a.png', content: png(10, 10, 2_500_000) },
      { name: 'other', filename: 'b.png', content: png(10, 10, 2_500_000) },
    ]);
    const streamed = await call(app, {
      method: 'POST',
      url: '/api/media_objects',
      payload: Readable.from([two.payload.subarray(0, 1_000_000), two.payload.subarray(1_000_000)]),
      headers: { ...two.headers, 'transfer-encoding': 'chunked' },
    });
    expect(streamed.status).toBe(413);
    expect(streamed.body['hydra:description']).toBe('The request body is larger than 4194304 bytes.');
    expect(await stored()).toEqual([]);
    expect(await count()).toBe(0);
  });

  it('removes the file when the write fails after the row was written (the transaction rolls back)', async () => {
    const response = await upload(
      [
        { name: 'file', filename: 'a.png', content: png(10, 10) },
        { name: 'caption', content: 'fail' },
      ],
      '/api/photos',
    );
    expect(response.status).toBe(409);
    expect(await stored()).toEqual([]);
    expect(await count('/api/photos')).toBe(0);
  });

  it('deletes the file once the item is deleted, and its URL answers 404', async () => {
    const created = await upload([{ name: 'file', filename: 'a.png', content: png(3, 3) }]);
    expect(await stored()).toHaveLength(1);
    expect((await call(app, { method: 'DELETE', url: created.body['@id'] })).status).toBe(204);
    expect(await stored()).toEqual([]);
    const served = await call(app, { method: 'GET', url: created.body.contentUrl });
    expect(served.status).toBe(404);
    expect(served.body['hydra:description']).toMatch(/^No file /);
  });

  it('serves no name it did not make: no path, no temporary upload', async () => {
    for (const url of ['/media/..%2F..%2Fpackage.json', '/media/upload-123', '/media/a/b']) {
      expect((await call(app, { method: 'GET', url })).status).toBe(404);
    }
  });

  it('answers 415 to a multipart body on an operation without a file field', async () => {
    const response = await upload([{ name: 'text', content: 'x' }], '/api/notes');
    expect(response.status).toBe(415);
  });

  it('documents the multipart body in OpenAPI, the file as a binary string', async () => {
    const openapi = (await call(app, { method: 'GET', url: '/api/docs.json' })).body;
    const content = openapi.paths['/media_objects'].post.requestBody.content;
    expect(Object.keys(content)).toEqual(['multipart/form-data', 'application/ld+json', 'application/json']);
    const schema = openapi.components.schemas[content['multipart/form-data'].schema.$ref.split('/').pop()];
    expect(schema.properties.file).toEqual({ type: 'string', format: 'binary' });
    expect(schema.required).toEqual(['file']);
  });

  it('answers a multipart GraphQL request with a 415 that says why, and leaves files out of mutation inputs', async () => {
    const { payload, headers } = toMultipart([
      { name: 'operations', content: '{"query":"mutation { createMediaObject(input: {}) { clientMutationId } }"}' },
      { name: 'map', content: '{"0":["variables.file"]}' },
      { name: '0', filename: 'a.png', content: png(2, 2) },
    ]);
    const response = await call(app, { method: 'POST', url: '/graphql', payload, headers });
    expect(response.status).toBe(415);
    expect(JSON.stringify(response.body)).toContain('The GraphQL endpoint takes no uploads (multipart/form-data)');
    expect(await stored()).toEqual([]);
    const introspection = await call(app, {
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ __type(name: "createPhotoInput") { inputFields { name } } }' },
    });
    expect(introspection.body.data.__type).toBeNull();
    // A required file cannot come through GraphQL: no create mutation; a nullable one is left out of the input.
    const update = await call(app, {
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ __type(name: "updateAlbumInput") { inputFields { name } } }' },
    });
    expect(update.body.data.__type.inputFields.map((field: { name: string }) => field.name)).toEqual([
      'id',
      'title',
      'clientMutationId',
    ]);
  });

  it('serves the files in one of the API scopes: the production plugin’s security headers reach them', async () => {
    const secured = await buildTestApp({
      database,
      resources: [MediaObject],
      production: {},
      uploads: { storage: createLocalStorage({ directory }) },
    });
    try {
      const { payload, headers } = toMultipart([{ name: 'file', filename: 'a.png', content: png(2, 2) }]);
      const created = await call(secured, { method: 'POST', url: '/api/media_objects', payload, headers });
      const served = await secured.inject({ method: 'GET', url: created.body.contentUrl });
      expect(served.statusCode).toBe(200);
      expect(served.headers['x-frame-options']).toBe('DENY');
      expect(served.headers['x-request-id']).toBeDefined();
    } finally {
      await secured.close();
    }
  });
});
