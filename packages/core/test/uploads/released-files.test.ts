/**
 * Which stored files a write lets go of, on SQLite and PostgreSQL: a hard DELETE removes the item's files, but a soft
 * delete keeps them (the row stays, and a restore brings the item back with its file), and so does any write that
 * does not say the row no longer holds them (a custom operation whose processor returns nothing, or an output shape).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createLocalStorage, defineResource, defineShape, type Entity, isStoredFile } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';
import { png, toMultipart } from './multipart-body.js';

const fileOf = (item: Entity) => (isStoredFile(item.file) ? item.file : null);

const Size = defineShape({ name: 'Size', fields: { bytes: { type: 'integer' } } });

/** Soft-deleted, restorable; two custom operations that write nothing of their own. */
const Avatar = defineResource({
  name: 'Avatar',
  softDelete: { restore: "is_granted('PUBLIC_ACCESS')" },
  fields: {
    file: { type: 'file' },
    contentUrl: { type: 'string', computed: (item) => `/media/${fileOf(item)?.name}` },
  },
  operations: [
    'get',
    'post',
    'delete',
    // A notification: its processor does its own work and returns nothing (no body, 204).
    {
      kind: 'post',
      name: 'ping',
      uriTemplate: '/avatars/{id}/ping',
      input: false,
      output: false,
      processor: { process: async () => undefined },
    },
    // Answers with a shape of its own, computed from the item read.
    {
      kind: 'post',
      name: 'size',
      uriTemplate: '/avatars/{id}/size',
      input: false,
      output: Size,
      processor: { process: async (_data, context) => ({ bytes: fileOf(context.previous!)?.size ?? 0 }) },
    },
  ],
});

/** Deletes rows: its files go with them. */
const Sticker = defineResource({
  name: 'Sticker',
  fields: { file: { type: 'file' } },
  operations: ['get', 'post', 'delete'],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'files a write lets go of, on $name',
  (database) => {
    let app: FastifyInstance;
    let directory: string;
    beforeEach(async () => {
      directory = await mkdtemp(join(tmpdir(), 'released-files-'));
      app = await buildTestApp({
        database,
        resources: [Avatar, Sticker],
        uploads: { storage: createLocalStorage({ directory }) },
      });
    });
    afterEach(async () => {
      await app.close();
      await rm(directory, { recursive: true, force: true });
    });

    const stored = async () => (await readdir(directory).catch(() => [])).sort();
    async function upload(url: string): Promise<{ id: number; name: string; contentUrl?: string }> {
      const { payload, headers } = toMultipart([{ name: 'file', filename: 'a.png', content: png(8, 8, 300) }]);
      const response = await call(app, { method: 'POST', url, payload, headers });
      expect(response.status, response.text).toBe(201);
      const [name] = await stored();
      return { id: response.body.id, name: name!, contentUrl: response.body.contentUrl };
    }

    it('keeps the file of a soft-deleted item, and serves it again once the item is restored', async () => {
      const avatar = await upload('/api/avatars');
      expect((await call(app, { method: 'DELETE', url: `/api/avatars/${avatar.id}` })).status).toBe(204);
      expect(await stored()).toEqual([avatar.name]);
      const restored = await call(app, { method: 'PATCH', url: `/api/avatars/${avatar.id}/restore` });
      expect(restored.status, restored.text).toBe(200);
      expect(restored.body.contentUrl).toBe(`/media/${avatar.name}`);
      const served = await app.inject({ method: 'GET', url: restored.body.contentUrl });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.length).toBe(300);
    });

    it('keeps the file when a custom operation’s processor returns nothing, or answers with a shape', async () => {
      const avatar = await upload('/api/avatars');
      const pinged = await call(app, { method: 'POST', url: `/api/avatars/${avatar.id}/ping` });
      expect(pinged.status, pinged.text).toBe(204);
      expect(await stored()).toEqual([avatar.name]);
      const size = await call(app, { method: 'POST', url: `/api/avatars/${avatar.id}/size` });
      expect(size.status, size.text).toBe(200);
      expect(size.body.bytes).toBe(300);
      expect(await stored()).toEqual([avatar.name]);
      expect((await app.inject({ method: 'GET', url: `/media/${avatar.name}` })).statusCode).toBe(200);
    });

    it('removes the file of a deleted row', async () => {
      const sticker = await upload('/api/stickers');
      expect((await call(app, { method: 'DELETE', url: `/api/stickers/${sticker.id}` })).status).toBe(204);
      expect(await stored()).toEqual([]);
    });
  },
);
