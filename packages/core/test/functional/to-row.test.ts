/**
 * `context.toRow`, on SQLite, PostgreSQL and MariaDB: a row a hook writes by hand with `context.db`, built from a
 * resource's values, reads back through the API as the framework's own writes do (a `Date` in a datetime column, which
 * MariaDB's DATETIME refuses as an ISO string; booleans; JSON; a column named apart from its field), and a name that is
 * not a stored field, or a resource that does not exist, is refused before anything is written.
 */
import { describe, expect, inject, it } from 'vitest';
import Fastify from 'fastify';
import { defineResource, resourceApi, type Entity, type ProcessContext } from '@resource-api/core';
import { createTestSchemaName, dropTestSchema, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const Log = defineResource({
  name: 'Log',
  fields: {
    action: { type: 'string' },
    at: { type: 'datetime' },
    done: { type: 'boolean' },
    details: { type: 'json', nullable: true },
    who: { type: 'string', nullable: true, column: 'who_iri' },
  },
  operations: ['getCollection'],
});

const AT = new Date('2026-11-28T07:50:00.123Z');

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('context.toRow on $name', (database) => {
  async function appWith(values: (item: Entity) => Record<string, unknown>, resource = 'Log') {
    const errors: string[] = [];
    // The error's own message, which the framework logs with its 500.
    const stream = { write: (line: string) => void errors.push(String(JSON.parse(line).err?.message)) };
    const Note = defineResource({
      name: 'Note',
      fields: { text: { type: 'string' } },
      operations: ['post'],
      hooks: {
        // Inside the write's transaction: a throw refuses the write and nothing is written.
        beforeWrite: async (item: Entity, context: ProcessContext) => {
          await context.execute(context.db('log').insert(context.toRow(resource, values(item))));
        },
      },
    });
    const app = Fastify({ logger: { level: 'error', stream } });
    const schema = createTestSchemaName(database);
    await app.register(resourceApi, { resources: [Log, Note], database: database.url, databaseSchema: schema });
    if (schema) app.addHook('preClose', async () => void (await dropTestSchema(app.resourceApi.database.knex, schema)));
    await app.ready();
    return { app, errors };
  }

  it('writes a row that reads back through the API as written: date-time, boolean, JSON, a renamed column', async () => {
    const { app } = await appWith((item) => ({
      action: `create ${String(item.text)}`,
      at: AT,
      done: true,
      details: { tags: ['a', 'b'], n: 1.5 },
      who: '/api/users/7',
    }));
    try {
      expect((await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'hello' } })).status).toBe(201);
      const logs = await call(app, { method: 'GET', url: '/api/logs' });
      expect(logs.body['hydra:member']).toEqual([
        expect.objectContaining({
          action: 'create hello',
          at: '2026-11-28T07:50:00.123+00:00',
          done: true,
          details: { tags: ['a', 'b'], n: 1.5 },
          who: '/api/users/7',
        }),
      ]);
    } finally {
      await app.close();
    }
  });

  it.each([
    [
      'a name that is no field',
      { action: 'x', at: AT, done: false, nope: 1 },
      'Log',
      'toRow: "nope" is not a stored field of Log.',
    ],
    ['an unknown resource', { action: 'x' }, 'Nothing', 'toRow: no resource is named "Nothing".'],
  ])('refuses %s: the write fails (500) and nothing is written', async (_label, values, resource, message) => {
    const { app, errors } = await appWith(() => values, resource);
    try {
      expect((await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'hello' } })).status).toBe(500);
      expect(errors.join('\n')).toContain(message);
      expect(Number((await app.resourceApi.database.knex('note').count({ n: '*' }))[0]!.n)).toBe(0);
      expect(Number((await app.resourceApi.database.knex('log').count({ n: '*' }))[0]!.n)).toBe(0);
    } finally {
      await app.close();
    }
  });
});
