/**
 * Identities unique regardless of letter case: `Alice@Example.COM` is `alice@example.com`. A Unique on a field that
 * carries `Email()` (the user resource's identifier) ignores case by default, `Unique({ ignoreCase: true })` on any
 * text field; the check and the unique index (`lower(column)`) agree, so a lost race is the same 400. A plain Unique
 * elsewhere stays case-sensitive.
 */
import { defineResource, syncSchema, Unique } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { diffDatabase } from '../../src/state/migrations/diff-schema.js';
import { call, useApp } from '../helpers.js';
import { securityOptions, User } from './fixtures.js';

const Handle = defineResource({
  name: 'Handle',
  fields: { name: { type: 'string', constraints: [Unique({ ignoreCase: true })] } },
});
const Code = defineResource({ name: 'Code', fields: { value: { type: 'string', constraints: [Unique()] } } });
const Slot = defineResource({
  name: 'Slot',
  fields: { room: { type: 'string' }, day: { type: 'integer' } },
  constraints: [Unique({ fields: ['room', 'day'], ignoreCase: true })],
});

const USED = [
  { propertyPath: 'email', message: 'This value is already used.', code: '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f' },
];

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'case-insensitive Unique on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Handle, Code, Slot], security: securityOptions() });
    const register = (email: string) =>
      call(app(), { method: 'POST', url: '/api/users', payload: { email, plainPassword: 'password-123' } });
    const count = async (table: string) =>
      Number((await app().resourceApi.database.knex(table).count({ n: '*' }).first())?.n);

    it('refuses an e-mail address that differs only in letter case, on create and on update', async () => {
      expect((await register('alice@example.com')).status).toBe(201);
      const twin = await register('Alice@Example.COM');
      expect(twin.status, twin.text).toBe(400);
      expect(twin.body.violations).toEqual(USED);
      const bob = await register('bob@example.com');
      expect(bob.status).toBe(201);
      const token = await app().resourceApi.issueToken(bob.body);
      const patch = await call(app(), {
        method: 'PATCH',
        url: bob.body['@id'],
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' },
        payload: { email: 'ALICE@example.com' },
      });
      expect(patch.status, patch.text).toBe(400);
      expect(patch.body.violations).toEqual(USED);
      // Its own address in another case is no conflict with itself.
      const self = await call(app(), {
        method: 'PATCH',
        url: bob.body['@id'],
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' },
        payload: { email: 'Bob@example.com' },
      });
      expect(self.status, self.text).toBe(200);
      expect(await count('user')).toBe(2);
    });

    it('a lost race is the same 400: the unique index is on lower(email)', async () => {
      for (let round = 0; round < 4; round++) {
        const responses = await Promise.all([
          register(`racer${round}@example.com`),
          register(`RACER${round}@Example.com`),
        ]);
        expect(responses.map((r) => r.status).sort(), responses.map((r) => r.text).join('\n')).toEqual([201, 400]);
        expect(responses.find((r) => r.status === 400)!.body.violations).toEqual(USED);
      }
      // The database itself refuses a twin written past the check.
      const knex = app().resourceApi.database.knex;
      await expect(
        knex('user').insert({ email: 'RACER0@EXAMPLE.COM', password: 'x', roles: '[]', is_company: false }),
      ).rejects.toThrow(/unique|duplicate/i);
    });

    it('schema sync finds the lower() index again on a restart: nothing to create, nothing refused', async () => {
      const { database, metadata } = app().resourceApi;
      // The index on lower(email) is read back as there (PostgreSQL lists an index on expressions too).
      expect((await diffDatabase(database, metadata)).changes).toEqual([]);
      await syncSchema(database, metadata);
      expect((await register('carol@example.com')).status).toBe(201);
      expect((await register('CAROL@example.com')).status).toBe(400);
    });

    it('ignoreCase on a field and on a resource-level Unique; a plain Unique stays case-sensitive', async () => {
      expect((await call(app(), { method: 'POST', url: '/api/handles', payload: { name: 'Neo' } })).status).toBe(201);
      const handle = await call(app(), { method: 'POST', url: '/api/handles', payload: { name: 'nEO' } });
      expect(handle.status, handle.text).toBe(400);
      expect(handle.body.violations[0]).toMatchObject({ propertyPath: 'name', message: 'This value is already used.' });
      expect((await call(app(), { method: 'POST', url: '/api/slots', payload: { room: 'Blue', day: 1 } })).status).toBe(
        201,
      );
      const slot = await call(app(), { method: 'POST', url: '/api/slots', payload: { room: 'BLUE', day: 1 } });
      expect(slot.status, slot.text).toBe(400);
      expect((await call(app(), { method: 'POST', url: '/api/slots', payload: { room: 'BLUE', day: 2 } })).status).toBe(
        201,
      );
      expect((await call(app(), { method: 'POST', url: '/api/codes', payload: { value: 'abc' } })).status).toBe(201);
      expect((await call(app(), { method: 'POST', url: '/api/codes', payload: { value: 'ABC' } })).status).toBe(201);
      expect(await count('handle')).toBe(1);
    });
  },
);
