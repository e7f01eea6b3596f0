/**
 * Custom operations over HTTP, on SQLite and PostgreSQL: their own URI templates, input and output shapes, statuses,
 * access rules, validation groups, providers and processors, running through the same stages as the built-in ones.
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import {
  ApiProperty,
  ApiResource,
  ApiShape,
  Assert,
  defineResource,
  defineShape,
  type Entity,
  Length,
  NotBlank,
  type StateProcessor,
  type StateProvider,
  type InferShape,
  type OperationDeclaration,
  Range,
  UserPassword,
  validationError,
} from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { SECRET } from '../security/fixtures.js';

const PasswordChange = defineShape({
  name: 'PasswordChange',
  fields: {
    currentPassword: { type: 'string', constraints: [UserPassword()] },
    newPassword: { type: 'string', constraints: [NotBlank(), Length({ min: 8, groups: ['strict'] })] },
  },
});

const User = defineResource({
  name: 'User',
  fields: {
    email: { type: 'string' },
    plainPassword: { type: 'password', column: 'password' },
    roles: { type: 'string[]', default: ['ROLE_USER'], writable: false },
  },
  operations: [
    'post',
    { kind: 'get', security: 'object == user' },
    {
      kind: 'post',
      name: 'changePassword',
      uriTemplate: '/users/{id}/password',
      security: 'object == user',
      securityMessage: 'Only you can change your password.',
      input: PasswordChange,
      validationGroups: ['Default', 'strict'],
      output: false,
      processor: {
        async process(data, context, next) {
          const { hashPassword } = await import('@resource-api/core');
          await next({
            ...context.previous!,
            plainPassword: await hashPassword((data as unknown as InferShape<typeof PasswordChange>).newPassword),
          });
        },
      },
    },
  ],
});

const Stats = defineShape({
  name: 'WriterStats',
  fields: { bookCount: { type: 'integer' }, latestTitle: { type: 'string', nullable: true } },
});

/** Reads the writer with the provider under it (404 when missing), then counts with the database. */
const statsProvider: StateProvider = {
  async provide(context, next) {
    const writer = await next();
    if (!writer) return null;
    const rows = await context.db('novel').where('writer_id', context.id!).orderBy('id', 'desc').select('title');
    return { bookCount: rows.length, latestTitle: rows[0]?.title ?? null };
  },
};

const Writer = defineResource({
  name: 'Writer',
  fields: { name: { type: 'string' }, novels: { toMany: 'Novel', mappedBy: 'writer' } },
  operations: [
    'get',
    'post',
    'getCollection',
    { kind: 'get', name: 'stats', uriTemplate: '/writers/{id}/stats', output: Stats, provider: statsProvider },
    {
      kind: 'get',
      name: 'bySlug',
      uriTemplate: '/writers/by_name/{slug}',
      provider: {
        async provide(context) {
          const row = await context.db('writer').where('name', context.uriVariables.slug).first('id', 'name');
          return row ? { id: Number(row.id), name: row.name } : null;
        },
      },
    },
  ],
});

const publish: StateProcessor = {
  async process(data, _context, next) {
    if (data.published === true)
      throw validationError([{ propertyPath: 'published', message: 'This novel is already published.' }]);
    return next({ ...data, published: true });
  },
};

const Novel = defineResource({
  name: 'Novel',
  fields: {
    title: { type: 'string', constraints: [NotBlank()], groups: ['novel:read', 'novel:write'] },
    summary: { type: 'text', nullable: true, groups: ['novel:write', 'novel:detail'] },
    published: { type: 'boolean', default: false, writable: false, groups: ['novel:read'] },
    writer: { toOne: 'Writer', inversedBy: 'novels', nullable: true, groups: ['novel:read', 'novel:write'] },
  },
  normalizationGroups: ['novel:read'],
  denormalizationGroups: ['novel:write'],
  operations: [
    'getCollection',
    'get',
    'post',
    'patch',
    // A second item GET, with other read groups: a kind may appear more than once.
    {
      kind: 'get',
      name: 'detail',
      uriTemplate: '/novels/{id}/detail',
      normalizationGroups: ['novel:read', 'novel:detail'],
    },
    {
      kind: 'getCollection',
      name: 'published',
      uriTemplate: '/novels/published',
      provider: {
        async provide(_context, next) {
          const page = (await next()) as { items: Entity[]; totalItems: number | undefined };
          const items = page.items.filter((item) => item.published === true);
          return { items, totalItems: items.length };
        },
      },
    },
    { kind: 'post', name: 'publish', uriTemplate: '/novels/{id}/publish', input: false, processor: publish },
    // The resource's writable fields as input, applied as a PATCH, answering 202.
    {
      kind: 'post',
      name: 'retitle',
      uriTemplate: '/novels/{id}/retitle',
      status: 202,
      denormalizationGroups: ['novel:write'],
      // Judged after the body is applied: the new state is `object`, the item read `previous_object`.
      securityPostDenormalize: "object.title != 'Forbidden' or previous_object.title == 'Forbidden'",
      securityPostDenormalizeMessage: 'That title is not allowed.',
    },
    { kind: 'delete', name: 'remove', uriTemplate: '/novels/{id}/remove', status: 204 },
    // Shapes whose fields name no group: the resource's groups (novel:read, novel:write) do not filter them.
    {
      kind: 'post',
      name: 'review',
      uriTemplate: '/novels/{id}/review',
      input: defineShape({
        name: 'Review',
        fields: { stars: { type: 'integer', constraints: [Range({ min: 1, max: 5 })] } },
      }),
      output: defineShape({ name: 'ReviewResult', fields: { stars: { type: 'integer' }, title: { type: 'string' } } }),
      processor: {
        process: async (data, context) => ({ stars: (data as Entity).stars, title: context.previous!.title }),
      },
    },
  ],
});

const resources = [User, Writer, Novel];

async function token(app: FastifyInstance, email: string, password = 'password-123'): Promise<string> {
  const registered = await call(app, {
    method: 'POST',
    url: '/api/users',
    payload: { email, plainPassword: password },
  });
  expect(registered.status, registered.text).toBe(201);
  const response = await call(app, { method: 'POST', url: '/api/auth', payload: { email, password } });
  expect(response.status, response.text).toBe(200);
  return response.body.token;
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('custom operations on $name', (database) => {
  const app = useApp(database, {
    resources,
    security: { jwt: { secret: SECRET }, users: { resource: 'User', identifier: 'email' } },
  });
  const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    call(app(), { method: 'POST', url, ...(payload === undefined ? {} : { payload: payload as object }), headers });

  async function novel(payload: object = { title: 'Dune' }): Promise<Entity> {
    const created = await post('/api/novels', payload);
    expect(created.status, created.text).toBe(201);
    return created.body;
  }

  it('runs a custom POST without body through its processor, which writes with next, and answers the item as GET renders it', async () => {
    const { id } = await novel();
    const published = await post(`/api/novels/${id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toEqual({
      '@context': '/api/contexts/Novel',
      '@id': `/api/novels/${id}`,
      '@type': 'Novel',
      id,
      title: 'Dune',
      published: true,
    });
    expect(published.headers.location).toBeUndefined();
    expect((await call(app(), { method: 'GET', url: `/api/novels/${id}` })).body).toEqual(published.body);
    // An empty JSON body is no body to read: the operation takes none.
    const again = await post(`/api/novels/${id}/publish`, {});
    expect(again.status).toBe(400);
    expect(again.body.violations).toEqual([
      expect.objectContaining({ propertyPath: 'published', message: 'This novel is already published.' }),
    ]);
  });

  it('answers 404 for a custom item operation on a missing item, before its processor runs', async () => {
    expect((await post('/api/novels/999/publish')).status).toBe(404);
    expect((await post('/api/novels/abc/publish')).status).toBe(404);
  });

  it('renders an output shape with its own context and type and the request path as @id, read by a provider that calls next', async () => {
    const writer = await post('/api/writers', { name: 'Frank' });
    expect((await call(app(), { method: 'GET', url: `/api/writers/${writer.body.id}/stats` })).body).toEqual({
      '@context': '/api/contexts/WriterStats',
      '@id': `/api/writers/${writer.body.id}/stats`,
      '@type': 'WriterStats',
      bookCount: 0,
    });
    await novel({ title: 'Dune', writer: writer.body['@id'] });
    await novel({ title: 'Dune Messiah', writer: writer.body['@id'] });
    const stats = await call(app(), {
      method: 'GET',
      url: `/api/writers/${writer.body.id}/stats`,
      headers: { accept: 'application/json' },
    });
    expect(stats.body).toEqual({ bookCount: 2, latestTitle: 'Dune Messiah' });
    expect((await call(app(), { method: 'GET', url: '/api/writers/999/stats' })).status).toBe(404);
  });

  it('hands a template variable other than id to the operation provider', async () => {
    await post('/api/writers', { name: 'ursula' });
    const found = await call(app(), { method: 'GET', url: '/api/writers/by_name/ursula' });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ '@id': expect.stringMatching(/^\/api\/writers\/\d+$/), name: 'ursula' });
    expect((await call(app(), { method: 'GET', url: '/api/writers/by_name/nobody' })).status).toBe(404);
  });

  it('serves a second item GET with its own read groups, and a second collection GET through a provider over the built-in one', async () => {
    const { id } = await novel({ title: 'Dune', summary: 'Spice.' });
    expect((await call(app(), { method: 'GET', url: `/api/novels/${id}` })).body.summary).toBeUndefined();
    expect((await call(app(), { method: 'GET', url: `/api/novels/${id}/detail` })).body).toMatchObject({
      title: 'Dune',
      summary: 'Spice.',
    });
    await novel({ title: 'Other' });
    await post(`/api/novels/${id}/publish`);
    const list = await call(app(), { method: 'GET', url: '/api/novels/published' });
    expect(list.status).toBe(200);
    expect(list.body['hydra:member'].map((item: Entity) => item.title)).toEqual(['Dune']);
    expect(list.body['hydra:totalItems']).toBe(1);
  });

  it('applies the resource fields of a custom operation body as a PATCH, with its declared status, and validates them', async () => {
    const { id } = await novel({ title: 'Dune', summary: 'Spice.' });
    const retitled = await post(`/api/novels/${id}/retitle`, { title: 'Dune (new)', published: true });
    expect(retitled.status).toBe(202);
    expect(retitled.body).toMatchObject({ title: 'Dune (new)', published: false });
    const refused = await post(`/api/novels/${id}/retitle`, { title: '' });
    expect(refused.status).toBe(400);
    expect(refused.body.violations[0]).toMatchObject({
      propertyPath: 'title',
      message: 'This value should not be blank.',
    });
    expect((await call(app(), { method: 'GET', url: `/api/novels/${id}/detail` })).body).toMatchObject({
      title: 'Dune (new)',
      summary: 'Spice.',
    });
    // Denied: 401 for an anonymous caller (who may log in), 403 with the message for a user.
    expect((await post(`/api/novels/${id}/retitle`, { title: 'Forbidden' })).status).toBe(401);
    const denied = await post(
      `/api/novels/${id}/retitle`,
      { title: 'Forbidden' },
      { authorization: `Bearer ${await token(app(), 'cy@example.com')}` },
    );
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe('That title is not allowed.');
    const wrongType = await call(app(), {
      method: 'POST',
      url: `/api/novels/${id}/retitle`,
      payload: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
  });

  it('reads and sends every field of shapes without groups, whatever the resource groups', async () => {
    const { id } = await novel();
    const reviewed = await post(`/api/novels/${id}/review`, { stars: 4 });
    expect(reviewed.status, reviewed.text).toBe(200);
    expect(reviewed.body).toEqual({
      '@context': '/api/contexts/ReviewResult',
      '@id': `/api/novels/${id}/review`,
      '@type': 'ReviewResult',
      stars: 4,
      title: 'Dune',
    });
    expect((await post(`/api/novels/${id}/review`, { stars: 9 })).body.violations[0]).toMatchObject({
      propertyPath: 'stars',
    });
  });

  it('deletes through a custom delete with 204', async () => {
    const { id } = await novel();
    expect((await call(app(), { method: 'DELETE', url: `/api/novels/${id}/remove` })).status).toBe(204);
    expect((await call(app(), { method: 'GET', url: `/api/novels/${id}` })).status).toBe(404);
  });

  it('checks an input shape with its constraints and groups, the rule on the item read, and answers 204 without body', async () => {
    const ann = await token(app(), 'ann@example.com');
    const bob = await token(app(), 'bob@example.com');
    const annId = (await app().resourceApi.database.knex('user').where('email', 'ann@example.com').first('id')).id;
    const url = `/api/users/${annId}/password`;
    expect((await post(url, { currentPassword: 'password-123', newPassword: 'long-enough' })).status).toBe(401);
    const other = await post(
      url,
      { currentPassword: 'password-123', newPassword: 'long-enough' },
      { authorization: `Bearer ${bob}` },
    );
    expect(other.status).toBe(403);
    expect(other.body.detail).toBe('Only you can change your password.');
    expect(
      (
        await post(
          '/api/users/999/password',
          { currentPassword: 'x', newPassword: 'y' },
          { authorization: `Bearer ${ann}` },
        )
      ).status,
    ).toBe(404);

    const wrong = await post(
      url,
      { currentPassword: 'not-it', newPassword: 'short' },
      { authorization: `Bearer ${ann}` },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.violations).toEqual([
      expect.objectContaining({
        propertyPath: 'currentPassword',
        message: "This value should be the user's current password.",
        code: '2d2a8bb4-ddc8-45e4-9b0f-8670d3a3e290',
      }),
      expect.objectContaining({
        propertyPath: 'newPassword',
        message: 'This value is too short. It should have 8 characters or more.',
      }),
    ]);
    // An empty current password is none, as with Symfony's UserPassword.
    const empty = await post(
      url,
      { currentPassword: '', newPassword: 'long-enough' },
      { authorization: `Bearer ${ann}` },
    );
    expect(empty.body.violations).toEqual([
      expect.objectContaining({
        propertyPath: 'currentPassword',
        message: "This value should be the user's current password.",
      }),
    ]);
    const typed = await post(
      url,
      { currentPassword: 1, newPassword: 'long-enough' },
      { authorization: `Bearer ${ann}` },
    );
    expect(typed.body.violations).toEqual([
      expect.objectContaining({ propertyPath: 'currentPassword', message: 'This value should be of type string.' }),
    ]);
    // Refused: the old password still logs in.
    expect((await post('/api/auth', { email: 'ann@example.com', password: 'password-123' })).status).toBe(200);

    const changed = await post(
      url,
      { currentPassword: 'password-123', newPassword: 'long-enough', extra: 'ignored' },
      { authorization: `Bearer ${ann}` },
    );
    expect(changed.status, changed.text).toBe(204);
    expect(changed.text).toBe('');
    expect((await post('/api/auth', { email: 'ann@example.com', password: 'password-123' })).status).toBe(401);
    expect((await post('/api/auth', { email: 'ann@example.com', password: 'long-enough' })).status).toBe(200);
  });

  it('answers 405 with Allow for another method on a custom path', async () => {
    const { id } = await novel();
    const response = await call(app(), { method: 'GET', url: `/api/novels/${id}/publish` });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });
});

describe('custom operations declared with decorators', () => {
  it('give the same metadata as defineResource', async () => {
    const { buildMetadata } = await import('@resource-api/core');
    @ApiShape({ name: 'Counter' })
    class Counter {
      @Assert(NotBlank())
      @ApiProperty({ type: 'integer' })
      count!: number;
    }
    const provider: StateProvider = { provide: async () => ({ count: 1 }) };
    const operations = [
      'get' as const,
      {
        kind: 'get' as const,
        name: 'count',
        uriTemplate: '/tallies/{id}/count',
        output: Counter,
        provider,
        hooks: { afterCommit: () => {} },
      },
    ];
    @ApiResource({ name: 'Tally', operations })
    class Tally {
      @ApiProperty({ type: 'string' }) label!: string;
    }
    const plain = defineResource({
      name: 'Tally',
      fields: { label: { type: 'string' } },
      operations: [
        operations[0]!,
        {
          ...(operations[1] as object as OperationDeclaration),
          output: defineShape({ name: 'Counter', fields: { count: { type: 'integer', constraints: [NotBlank()] } } }),
        },
      ],
    });
    const strip = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === 'function' ? 'function' : v)));
    const fromClass = buildMetadata({ resources: [Tally] });
    const fromObject = buildMetadata({ resources: [plain] });
    expect(strip(fromClass.resources)).toEqual(strip(fromObject.resources));
    expect(strip(fromClass.shapes)).toEqual(strip(fromObject.shapes));
    const count = fromClass.resources[0]!.operations[1]!;
    expect(count).toMatchObject({
      customName: 'count',
      name: 'api_tallies_id_count_get',
      method: 'GET',
      uriTemplate: '/api/tallies/{id}/count',
      uriVariables: ['id'],
      status: 200,
    });
    expect(count.output?.name).toBe('Counter');
    expect(count.hooks.afterCommit).toHaveLength(1);
  });
});
