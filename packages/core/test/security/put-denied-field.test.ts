/**
 * A field whose own access rule denies the caller is ignored on input and keeps its value: on PATCH, and on PUT, which
 * otherwise sets every field it is not given back to its default.
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { securityOptions, User } from './fixtures.js';

const Memo = defineResource({
  name: 'Memo',
  fields: {
    title: { type: 'string' },
    // Only admins may see and write the status; everyone else's writes of it are ignored.
    status: { type: 'string', default: 'draft', security: "is_granted('ROLE_ADMIN')" },
  },
  security: "is_granted('ROLE_USER')",
  operations: ['getCollection', 'get', 'post', 'put', 'patch'],
});

async function register(app: FastifyInstance, email: string): Promise<number> {
  const response = await call(app, {
    method: 'POST',
    url: '/api/users',
    payload: { email, plainPassword: 'password-123' },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}
async function login(app: FastifyInstance, email: string): Promise<string> {
  const response = await call(app, { method: 'POST', url: '/api/auth', payload: { email, password: 'password-123' } });
  expect(response.status, response.text).toBe(200);
  return response.body.token;
}
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'PUT and a field denied to the caller on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Memo], security: securityOptions() });

    async function tokens() {
      const adminId = await register(app(), 'admin@example.com');
      await app()
        .resourceApi.database.knex('user')
        .where('id', adminId)
        .update({ roles: JSON.stringify(['ROLE_ADMIN']) });
      await register(app(), 'ann@example.com');
      return { admin: await login(app(), 'admin@example.com'), ann: await login(app(), 'ann@example.com') };
    }
    const statusOf = async () => (await app().resourceApi.database.knex('memo').where('id', 1).first()).status;

    it('keeps the value of a field the caller may not write when that caller PUTs the item', async () => {
      const { admin, ann } = await tokens();
      const created = await call(app(), {
        method: 'POST',
        url: '/api/memos',
        headers: as(admin),
        payload: { title: 'Plan', status: 'published' },
      });
      expect(created.status, created.text).toBe(201);
      expect(await statusOf()).toBe('published');

      const put = await call(app(), {
        method: 'PUT',
        url: '/api/memos/1',
        headers: as(ann),
        payload: { title: 'Plan v2' },
      });
      expect(put.status, put.text).toBe(200);
      expect(await statusOf()).toBe('published');
    });

    it('keeps it too when the caller sends it (ignored, not applied)', async () => {
      const { admin, ann } = await tokens();
      await call(app(), {
        method: 'POST',
        url: '/api/memos',
        headers: as(admin),
        payload: { title: 'Plan', status: 'published' },
      });
      const put = await call(app(), {
        method: 'PUT',
        url: '/api/memos/1',
        headers: as(ann),
        payload: { title: 'Plan v2', status: 'hacked' },
      });
      expect(put.status, put.text).toBe(200);
      expect(await statusOf()).toBe('published');
    });

    it('PATCH by the same caller keeps it (reference behaviour)', async () => {
      const { admin, ann } = await tokens();
      await call(app(), {
        method: 'POST',
        url: '/api/memos',
        headers: as(admin),
        payload: { title: 'Plan', status: 'published' },
      });
      const patch = await call(app(), {
        method: 'PATCH',
        url: '/api/memos/1',
        headers: { ...as(ann), 'content-type': 'application/merge-patch+json' },
        payload: '{"title": "Plan v2"}',
      });
      expect(patch.status, patch.text).toBe(200);
      expect(await statusOf()).toBe('published');
    });
  },
);
