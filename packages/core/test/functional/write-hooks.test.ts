/**
 * Write hooks and composed processors, on SQLite and PostgreSQL: the order they run in, one transaction for
 * everything before the commit (a throw anywhere leaves nothing written), afterCommit failures that change nothing,
 * `next` called twice or not at all, and the context they all see.
 */
import { describe, expect, inject, it } from 'vitest';
import Fastify from 'fastify';
import {
  ApiError,
  defineResource,
  resourceApi,
  type Entity,
  type ProcessContext,
  type ResourceInput,
  type StateProcessor,
  type WriteHooks,
} from '@resource-api/core';
import { buildTestApp, testDatabases, createTestSchemaName, dropTestSchema } from '@resource-api/core/testing';
import { call } from '../helpers.js';
import { SECRET } from '../security/fixtures.js';

/** The audit table the hooks write to, through the context's database (the transaction, in a write). */
const Entry = defineResource({
  name: 'Entry',
  fields: { action: { type: 'string' }, item: { type: 'string', nullable: true } },
  operations: ['getCollection'],
});

const audit = (action: string) => async (item: Entity, context: ProcessContext) => {
  // execute: inside the transaction it runs there; after the commit, with the built-in writes' shared commits.
  await context.execute(context.db('entry').insert({ action, item: item.id === undefined ? null : String(item.id) }));
};

function pad(hooks: WriteHooks, extra: { processor?: StateProcessor; operationHooks?: WriteHooks } = {}) {
  return defineResource({
    name: 'Pad',
    fields: { text: { type: 'string' } },
    hooks,
    ...(extra.processor ? { processor: extra.processor } : {}),
    operations: [
      'get',
      'getCollection',
      { kind: 'post', ...(extra.operationHooks ? { hooks: extra.operationHooks } : {}) },
      'patch',
      'delete',
    ],
  });
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('write hooks on $name', (database) => {
  /** An app whose log lines (warn and above) are kept: hooks log through the request's logger. */
  async function appWith(...resources: ResourceInput[]) {
    const logged: { level: string; message: string }[] = [];
    const stream = {
      write: (line: string) =>
        void logged.push(
          ...[JSON.parse(line)].map((entry) => ({
            level: entry.level >= 50 ? 'error' : 'warn',
            message: String(entry.msg),
          })),
        ),
    };
    const app = Fastify({ logger: { level: 'warn', stream } });
    const schema = createTestSchemaName(database);
    await app.register(resourceApi, {
      resources: [Entry, ...resources],
      database: database.url,
      databaseSchema: schema,
    });
    if (schema) app.addHook('preClose', async () => void (await dropTestSchema(app.resourceApi.database.knex, schema)));
    await app.ready();
    return { app, logged };
  }
  const entries = async (app: Awaited<ReturnType<typeof appWith>>['app']) =>
    (await app.resourceApi.database.knex('entry').orderBy('id').select('action', 'item')).map(
      (row) => `${row.action}:${row.item}`,
    );
  const pads = async (app: Awaited<ReturnType<typeof appWith>>['app']) =>
    (await app.resourceApi.database.knex('pad').select('text')).map((row) => row.text);

  it('runs the resource hooks, then the operation hooks, around the processors, and afterCommit last', async () => {
    const order: string[] = [];
    const mark = (name: string) => (item: Entity, context: ProcessContext) => {
      order.push(`${name}:${context.transaction ? 'in' : 'out'}:${item.id ?? '-'}`);
    };
    const processor: StateProcessor = {
      async process(_data, _context, next) {
        order.push('processor:before');
        const stored = await next();
        order.push(`processor:after:${(stored as Entity | undefined)?.id}`);
        return stored;
      },
    };
    const { app } = await appWith(
      pad(
        {
          beforeWrite: mark('resource.before'),
          afterWrite: [mark('resource.after'), mark('resource.after2')],
          afterCommit: mark('resource.commit'),
        },
        {
          processor,
          operationHooks: {
            beforeWrite: mark('operation.before'),
            afterWrite: mark('operation.after'),
            afterCommit: mark('operation.commit'),
          },
        },
      ),
    );
    const created = await call(app, { method: 'POST', url: '/api/pads', payload: { text: 'one' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(order).toEqual([
      'resource.before:in:-',
      'operation.before:in:-',
      'processor:before',
      `processor:after:${id}`,
      `resource.after:in:${id}`,
      `resource.after2:in:${id}`,
      `operation.after:in:${id}`,
      `resource.commit:out:${id}`,
      `operation.commit:out:${id}`,
    ]);
    // An operation without hooks of its own runs the resource's.
    order.length = 0;
    await call(app, { method: 'DELETE', url: `/api/pads/${id}` });
    expect(order).toEqual([
      `resource.before:in:${id}`,
      'processor:before',
      'processor:after:undefined',
      `resource.after:in:${id}`,
      `resource.after2:in:${id}`,
      `resource.commit:out:${id}`,
    ]);
    await app.close();
  });

  it('leaves no row and no audit entry when afterWrite throws, and answers a plain error with a 500 that tells nothing', async () => {
    const { app, logged } = await appWith(
      pad({
        afterWrite: [
          audit('create'),
          async () => {
            throw new Error('secret detail of the failure');
          },
        ],
      }),
    );
    const response = await call(app, { method: 'POST', url: '/api/pads', payload: { text: 'lost' } });
    expect(response.status).toBe(500);
    expect(response.text).not.toContain('secret detail');
    expect(await pads(app)).toEqual([]);
    expect(await entries(app)).toEqual([]);
    // The details go to the log, at error level, never to the client.
    expect(logged.some((line) => line.level === 'error')).toBe(true);
    await app.close();
  });

  it('answers an ApiError thrown by beforeWrite with its catalog answer, and writes nothing', async () => {
    const { app } = await appWith(
      pad({
        beforeWrite: async (item) => {
          if (item.text === 'no') throw new ApiError('CONFLICT', 'Not this text.');
        },
        afterWrite: audit('create'),
      }),
    );
    const refused = await call(app, { method: 'POST', url: '/api/pads', payload: { text: 'no' } });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe('Not this text.');
    expect(await pads(app)).toEqual([]);
    expect(await entries(app)).toEqual([]);
    expect((await call(app, { method: 'POST', url: '/api/pads', payload: { text: 'yes' } })).status).toBe(201);
    expect(await entries(app)).toEqual([expect.stringMatching(/^create:\d+$/)]);
    await app.close();
  });

  it('keeps the write and its response when afterCommit throws, and logs the failure', async () => {
    const { app, logged } = await appWith(
      pad({
        afterCommit: [
          async () => {
            throw new Error('mailer down');
          },
          audit('committed'),
        ],
      }),
    );
    const created = await call(app, { method: 'POST', url: '/api/pads', payload: { text: 'kept' } });
    expect(created.status).toBe(201);
    expect(created.body.text).toBe('kept');
    expect(await pads(app)).toEqual(['kept']);
    // The next hook still runs, outside the transaction: the write is committed.
    expect(await entries(app)).toEqual([`committed:${created.body.id}`]);
    expect(logged).toEqual([
      expect.objectContaining({ level: 'error', message: expect.stringContaining('afterCommit') }),
    ]);
    await app.close();
  });

  it('refuses a processor that calls next twice: a 500, and the first write is rolled back', async () => {
    const { app } = await appWith(
      pad(
        { afterWrite: audit('create') },
        {
          processor: {
            async process(_data, _context, next) {
              await next();
              return next();
            },
          },
        },
      ),
    );
    const response = await call(app, { method: 'POST', url: '/api/pads', payload: { text: 'twice' } });
    expect(response.status).toBe(500);
    expect(await pads(app)).toEqual([]);
    expect(await entries(app)).toEqual([]);
    await app.close();
  });

  it('renders what a processor returns without calling next, and writes nothing itself', async () => {
    const { app } = await appWith(
      pad(
        {},
        {
          processor: {
            async process(data) {
              return { ...data, id: 42, text: `${String(data.text)} (not stored)` };
            },
          },
        },
      ),
    );
    const response = await call(app, { method: 'POST', url: '/api/pads', payload: { text: 'draft' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ '@id': '/api/pads/42', text: 'draft (not stored)' });
    expect(await pads(app)).toEqual([]);
    await app.close();
  });

  it('gives processors and hooks the caller, the request, the previous item and the transaction', async () => {
    const seen: Record<string, unknown>[] = [];
    const Member = defineResource({
      name: 'Member',
      fields: {
        email: { type: 'string' },
        plainPassword: { type: 'password', column: 'password' },
        roles: { type: 'string[]', default: ['ROLE_USER'] },
      },
      operations: ['post'],
    });
    const Memo = defineResource({
      name: 'Memo',
      fields: { text: { type: 'string' } },
      processor: {
        async process(_data, context, next) {
          seen.push({
            user: context.caller.user?.email ?? null,
            roles: context.caller.roles,
            header: context.request.headers['x-test'],
            method: context.request.method,
            path: context.request.path,
            ip: context.request.ip,
            requestId: context.request.id,
            previous: context.previous?.text ?? null,
            transaction: context.transaction !== undefined && context.db === context.transaction,
            kind: context.operation.kind,
          });
          return next();
        },
      },
    });
    const app = await buildTestApp({
      database,
      resources: [Member, Memo],
      security: { jwt: { secret: SECRET }, users: { resource: 'Member', identifier: 'email' } },
    });
    await call(app, {
      method: 'POST',
      url: '/api/members',
      payload: { email: 'ann@example.com', plainPassword: 'password-123' },
    });
    const token = (
      await call(app, {
        method: 'POST',
        url: '/api/auth',
        payload: { email: 'ann@example.com', password: 'password-123' },
      })
    ).body.token;
    const created = await call(app, {
      method: 'POST',
      url: '/api/memos',
      payload: { text: 'a' },
      headers: { 'x-test': 'yes', authorization: `Bearer ${token}` },
    });
    await call(app, {
      method: 'PATCH',
      url: `/api/memos/${created.body.id}`,
      payload: JSON.stringify({ text: 'b' }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(seen).toEqual([
      {
        user: 'ann@example.com',
        roles: ['ROLE_USER'],
        header: 'yes',
        method: 'POST',
        path: '/api/memos',
        ip: '127.0.0.1',
        requestId: expect.any(String),
        previous: null,
        transaction: true,
        kind: 'post',
      },
      {
        user: null,
        roles: [],
        header: undefined,
        method: 'PATCH',
        path: `/api/memos/${created.body.id}`,
        ip: '127.0.0.1',
        requestId: expect.any(String),
        previous: 'a',
        transaction: true,
        kind: 'patch',
      },
    ]);
    expect((seen[0]!.requestId as string).length).toBeGreaterThan(0);
    await app.close();
  });

  it('keeps a table for a resource with both its own provider and processor when it names one, and reaches it with next', async () => {
    const Note = defineResource({
      name: 'Note',
      table: 'note',
      fields: { text: { type: 'string' } },
      provider: { provide: async (_context, next) => next() },
      processor: { process: async (data, _context, next) => next({ ...data, text: String(data.text).toUpperCase() }) },
    });
    const { app } = await appWith(Note);
    const created = await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'kept' } });
    expect(created.status).toBe(201);
    expect((await call(app, { method: 'GET', url: `/api/notes/${created.body.id}` })).body.text).toBe('KEPT');
    expect((await app.resourceApi.database.knex('note').select('text'))[0].text).toBe('KEPT');
    await app.close();
  });

  it('keeps concurrent writes with hooks apart: each failing one rolls back alone, the others commit with their entries', async () => {
    const { app } = await appWith(
      pad({
        afterWrite: [
          audit('create'),
          async (item) => {
            if (String(item.text).endsWith('!')) throw new ApiError('CONFLICT', 'No shouting.');
          },
        ],
      }),
    );
    const texts = Array.from({ length: 24 }, (_, index) => (index % 3 === 0 ? `loud ${index}!` : `quiet ${index}`));
    // Sent at once: on SQLite they wait for the one connection and share commits (group-transactions.ts).
    const responses = await Promise.all(
      texts.map((text) => call(app, { method: 'POST', url: '/api/pads', payload: { text } })),
    );
    expect(responses.map((response) => response.status)).toEqual(texts.map((text) => (text.endsWith('!') ? 409 : 201)));
    const stored = responses.filter((response) => response.status === 201).map((response) => response.body);
    expect((await pads(app)).sort()).toEqual(texts.filter((text) => !text.endsWith('!')).sort());
    expect((await entries(app)).sort()).toEqual(stored.map((pad) => `create:${pad.id}`).sort());
    // Each answer is its own item, as stored.
    for (const pad of stored)
      expect((await call(app, { method: 'GET', url: `/api/pads/${pad.id}` })).body.text).toBe(pad.text);
    await app.close();
  });

  it('runs no hook and opens no transaction of its own for a refused write', async () => {
    const calls: string[] = [];
    const { app } = await appWith(
      defineResource({
        name: 'Pad',
        fields: { text: { type: 'string', constraints: [] } },
        hooks: {
          beforeWrite: () => void calls.push('before'),
          afterWrite: () => void calls.push('after'),
          afterCommit: () => void calls.push('commit'),
        },
      }),
    );
    expect((await call(app, { method: 'POST', url: '/api/pads', payload: { text: 3 } })).status).toBe(400);
    expect(
      (
        await call(app, {
          method: 'PATCH',
          url: '/api/pads/9',
          payload: '{}',
          headers: { 'content-type': 'application/merge-patch+json' },
        })
      ).status,
    ).toBe(404);
    expect(calls).toEqual([]);
    await app.close();
  });
});
