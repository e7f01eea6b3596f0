/**
 * Timestamps (`timestamp: 'create' | 'update'`) and blame relations (`blame: 'create' | 'update'`) over HTTP and
 * GraphQL, on SQLite and PostgreSQL: set by the built-in processor on create, on PUT, PATCH, custom operations that
 * write through `next` and items created through a relation; read-only to clients (their values are ignored); a
 * refused write stamps nothing.
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { defineResource, type ResourceDeclaration, NotBlank, type StateProcessor } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { securityOptions, User } from '../security/fixtures.js';

const rename: StateProcessor = {
  process: (data, _context, next) => next({ ...data, title: `${String(data.title)}!` }),
};

const Entry = defineResource({
  name: 'Entry',
  fields: {
    title: { type: 'string', constraints: [NotBlank()] },
    createdAt: { type: 'datetime', timestamp: 'create' },
    updatedAt: { type: 'datetime', timestamp: 'update' },
    createdBy: { toOne: 'User', blame: 'create', nullable: true, onDelete: 'set null' },
    updatedBy: { toOne: 'User', blame: 'update', nullable: true, onDelete: 'set null' },
    parent: { toOne: 'Entry', nullable: true, cascadePersist: true },
  },
  operations: [
    'getCollection',
    'get',
    'post',
    'put',
    'patch',
    { kind: 'post', name: 'shout', uriTemplate: '/entries/{id}/shout', input: false, processor: rename },
  ],
});

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?\+00:00$/;
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
const json = { 'content-type': 'application/ld+json' };
const mergePatch = { 'content-type': 'application/merge-patch+json' };

async function loginAs(app: FastifyInstance, email: string): Promise<{ iri: string; headers: Record<string, string> }> {
  const user = await call(app, {
    method: 'POST',
    url: '/api/users',
    payload: { email, plainPassword: 'password-123' },
  });
  expect(user.status, user.text).toBe(201);
  const login = await call(app, { method: 'POST', url: '/api/auth', payload: { email, password: 'password-123' } });
  expect(login.status, login.text).toBe(200);
  return { iri: user.body['@id'], headers: { authorization: `Bearer ${login.body.token}` } };
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'timestamps and blame on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Entry], security: securityOptions() });

    it('stamps a new item once: both timestamps the time of the write, blame null when anonymous, client values ignored', async () => {
      const before = Date.now();
      const created = await call(app(), {
        method: 'POST',
        url: '/api/entries',
        headers: json,
        payload: {
          title: 'First',
          createdAt: '2000-01-01T00:00:00+00:00',
          updatedAt: '2000-01-01T00:00:00+00:00',
          createdBy: '/api/users/1',
        },
      });
      expect(created.status, created.text).toBe(201);
      const after = Date.now();
      const { createdAt, updatedAt } = created.body;
      expect(createdAt).toMatch(DATE_TIME);
      expect(updatedAt).toBe(createdAt);
      expect(Date.parse(createdAt)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(createdAt)).toBeLessThanOrEqual(after);
      // A null relation is left out of the body, as API Platform skips null values.
      expect(created.body.title).toBe('First');
      expect(created.body).not.toHaveProperty('createdBy');
      expect(created.body).not.toHaveProperty('updatedBy');
      // Stored as answered.
      const read = await call(app(), { method: 'GET', url: '/api/entries/1' });
      expect(read.body).toMatchObject({ createdAt, updatedAt });
      const row = await app().resourceApi.database.knex('entry').first();
      expect(row).toMatchObject({ created_by_id: null, updated_by_id: null });
    });

    it('stamps updatedAt and updatedBy on PATCH, PUT and a custom operation, and keeps createdAt and createdBy', async () => {
      const ann = await loginAs(app(), 'ann@example.com');
      const bob = await loginAs(app(), 'bob@example.com');
      const created = await call(app(), {
        method: 'POST',
        url: '/api/entries',
        headers: { ...json, ...ann.headers },
        payload: { title: 'Draft' },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ createdBy: ann.iri, updatedBy: ann.iri });
      const { createdAt } = created.body;
      const url = created.body['@id'];

      await pause();
      const patched = await call(app(), {
        method: 'PATCH',
        url,
        headers: { ...mergePatch, ...bob.headers },
        payload: { title: 'Edited', createdAt: '2000-01-01T00:00:00+00:00', createdBy: bob.iri, updatedBy: ann.iri },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({ title: 'Edited', createdAt, createdBy: ann.iri, updatedBy: bob.iri });
      expect(Date.parse(patched.body.updatedAt)).toBeGreaterThan(Date.parse(createdAt));

      await pause();
      const put = await call(app(), {
        method: 'PUT',
        url,
        headers: { ...json, ...ann.headers },
        payload: { title: 'Replaced', updatedAt: '2000-01-01T00:00:00+00:00' },
      });
      expect(put.status, put.text).toBe(200);
      expect(put.body).toMatchObject({ title: 'Replaced', createdAt, createdBy: ann.iri, updatedBy: ann.iri });
      expect(Date.parse(put.body.updatedAt)).toBeGreaterThan(Date.parse(patched.body.updatedAt));

      await pause();
      const shout = await call(app(), { method: 'POST', url: `${url}/shout`, headers: bob.headers });
      expect(shout.status, shout.text).toBe(200);
      expect(shout.body).toMatchObject({ title: 'Replaced!', createdAt, createdBy: ann.iri, updatedBy: bob.iri });
      expect(Date.parse(shout.body.updatedAt)).toBeGreaterThan(Date.parse(put.body.updatedAt));
      const read = await call(app(), { method: 'GET', url });
      expect(read.body).toMatchObject({ createdAt, updatedAt: shout.body.updatedAt, updatedBy: bob.iri });

      // Anonymous: the update's blame is null again, the creation's stays.
      await pause();
      const anonymous = await call(app(), { method: 'PATCH', url, headers: mergePatch, payload: { title: 'Anon' } });
      expect(anonymous.status, anonymous.text).toBe(200);
      expect(anonymous.body).toMatchObject({ createdAt, createdBy: ann.iri });
      expect(anonymous.body).not.toHaveProperty('updatedBy');
    });

    it('stamps an item created through a relation with the same instant and caller', async () => {
      const ann = await loginAs(app(), 'ann@example.com');
      const created = await call(app(), {
        method: 'POST',
        url: '/api/entries',
        headers: { ...json, ...ann.headers },
        payload: { title: 'Child', parent: { title: 'Parent' } },
      });
      expect(created.status, created.text).toBe(201);
      const parent = await call(app(), { method: 'GET', url: created.body.parent });
      expect(parent.body).toMatchObject({
        title: 'Parent',
        createdAt: created.body.createdAt,
        updatedAt: created.body.createdAt,
        createdBy: ann.iri,
        updatedBy: ann.iri,
      });
    });

    it('changes nothing when the write is refused', async () => {
      const created = await call(app(), {
        method: 'POST',
        url: '/api/entries',
        headers: json,
        payload: { title: 'Kept' },
      });
      await pause();
      const refused = await call(app(), {
        method: 'PATCH',
        url: '/api/entries/1',
        headers: mergePatch,
        payload: { title: '' },
      });
      expect(refused.status, refused.text).toBe(400);
      const read = await call(app(), { method: 'GET', url: '/api/entries/1' });
      expect(read.body).toMatchObject({ title: 'Kept', updatedAt: created.body.updatedAt });
      expect(
        (await call(app(), { method: 'POST', url: '/api/entries', headers: json, payload: { title: '' } })).status,
      ).toBe(400);
      expect((await call(app(), { method: 'GET', url: '/api/entries' })).body['hydra:totalItems']).toBe(1);
    });

    it('stamps GraphQL mutations, whose inputs have no stamped field', async () => {
      const ann = await loginAs(app(), 'ann@example.com');
      const gql = (query: string) =>
        call(app(), { method: 'POST', url: '/graphql', headers: ann.headers, payload: { query } });
      const created = await gql(
        'mutation { createEntry(input: { title: "G" }) { entry { id createdAt updatedAt createdBy { id } } } }',
      );
      expect(created.body.errors, created.text).toBeUndefined();
      const entry = created.body.data.createEntry.entry;
      expect(entry.createdAt).toMatch(DATE_TIME);
      expect(entry.updatedAt).toBe(entry.createdAt);
      expect(entry.createdBy.id).toBe(ann.iri);
      await pause();
      const updated = await gql(
        `mutation { updateEntry(input: { id: "${entry.id}", title: "H" }) { entry { createdAt updatedAt updatedBy { id } } } }`,
      );
      expect(updated.body.errors, updated.text).toBeUndefined();
      const after = updated.body.data.updateEntry.entry;
      expect(after.createdAt).toBe(entry.createdAt);
      expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(entry.updatedAt));
      expect(after.updatedBy.id).toBe(ann.iri);
      const refused = await gql(
        `mutation { updateEntry(input: { id: "${entry.id}", createdAt: "2000-01-01T00:00:00Z" }) { entry { id } } }`,
      );
      expect(refused.body.errors?.[0]?.message).toMatch(/createdAt/);
      const read = await call(app(), { method: 'GET', url: entry.id });
      expect(read.body.createdAt).toBe(entry.createdAt);
    });

    it('documents the stamped fields as read-only, and leaves them out of the write schemas', async () => {
      const { schemas } = (await call(app(), { method: 'GET', url: '/api/docs.jsonopenapi' })).body.components;
      for (const name of ['createdAt', 'updatedAt', 'createdBy', 'updatedBy'])
        expect(schemas['Entry.jsonld'].properties[name], name).toMatchObject({ readOnly: true });
      for (const schema of ['Entry.create', 'Entry.replace', 'Entry.update']) {
        expect(Object.keys(schemas[schema].properties), schema).toEqual(['title', 'parent']);
      }
    });
  },
);

/** The user resource with timestamps: `provisionUser` writes its rows without the processor, and stamps them too. */
const StampedUser = defineResource({
  ...(User as ResourceDeclaration),
  fields: {
    ...(User as ResourceDeclaration).fields,
    createdAt: { type: 'datetime', timestamp: 'create' },
    updatedAt: { type: 'datetime', timestamp: 'update' },
  },
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'timestamps of a provisioned user on $name',
  (database) => {
    const app = useApp(database, { resources: [StampedUser], security: securityOptions() });

    it('stamps the account provisionUser creates, and moves updatedAt when it updates it', async () => {
      const admin = { identifier: 'admin@example.com', password: 'password-123', roles: ['ROLE_ADMIN'] };
      expect(await app().resourceApi.provisionUser(admin)).toEqual({ id: 1, outcome: 'created' });
      const created = await app().resourceApi.database.knex('user').first();
      expect(created.created_at).not.toBeNull();
      expect(created.updated_at).toEqual(created.created_at);
      await pause();
      const updated = await app().resourceApi.provisionUser({ ...admin, password: 'another-password' });
      expect(updated).toEqual({ id: 1, outcome: 'updated' });
      const row = await app().resourceApi.database.knex('user').first();
      expect(row.created_at).toEqual(created.created_at);
      expect(new Date(row.updated_at).getTime()).toBeGreaterThan(new Date(created.updated_at).getTime());
    });
  },
);
