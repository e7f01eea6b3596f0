/**
 * Custom operations, shapes and computed fields over GraphQL, on SQLite and PostgreSQL: custom reads are queries
 * `<resource><Name>`, other custom operations mutations `<name><Resource>`, output shapes object types; access rules,
 * validation and missing items come from the pipeline REST runs; processors see the HTTP request of the GraphQL call.
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import {
  buildMetadata,
  defineResource,
  defineShape,
  type Entity,
  hashPassword,
  Length,
  NotBlank,
  printGraphQLSchema,
  type ProcessContext,
  Range,
  type ResourceDeclaration,
  type StateProcessor,
  type StateProvider,
  UserPassword,
  validationError,
} from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { SECRET } from '../security/fixtures.js';

const PasswordChange = defineShape({
  name: 'PasswordChange',
  fields: {
    currentPassword: { type: 'string', constraints: [UserPassword()] },
    newPassword: { type: 'string', constraints: [NotBlank(), Length({ min: 8 })] },
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
      output: false,
      processor: {
        async process(data, context, next) {
          await next({
            ...context.previous!,
            plainPassword: await hashPassword((data as unknown as { newPassword: string }).newPassword),
          });
        },
      },
    },
  ],
});

const WriterStats = defineShape({
  name: 'WriterStats',
  fields: { novelCount: { type: 'integer' }, latestTitle: { type: 'string', nullable: true } },
});

const Writer = defineResource({
  name: 'Writer',
  fields: { name: { type: 'string' }, novels: { toMany: 'Novel', mappedBy: 'writer' } },
  operations: [
    'get',
    'post',
    'getCollection',
    {
      kind: 'get',
      name: 'stats',
      uriTemplate: '/writers/{id}/stats',
      output: WriterStats,
      provider: {
        async provide(context, next) {
          if (!(await next())) return null;
          const rows = await context.db('novel').where('writer_id', context.id!).orderBy('id', 'desc').select('title');
          return { novelCount: rows.length, latestTitle: rows[0]?.title ?? null };
        },
      },
    },
    // A collection under an item, paged by page numbers: the other writers.
    {
      kind: 'getCollection',
      name: 'peers',
      uriTemplate: '/writers/{id}/peers',
      paginationType: 'page',
      paginationItemsPerPage: 2,
      provider: {
        async provide(context) {
          const rows = await context.db('writer').whereNot('id', context.id!).orderBy('id').select('id', 'name');
          return { items: rows.map((row) => ({ id: Number(row.id), name: row.name })), totalItems: rows.length };
        },
      },
    },
    {
      kind: 'get',
      name: 'byName',
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

/** What the publish processor saw of the request, per call. */
const seen: { header: unknown; user: unknown; requestId: string; ip: string; path: string }[] = [];

const publish: StateProcessor = {
  async process(data, context: ProcessContext, next) {
    seen.push({
      header: context.request.headers['x-test'],
      user: context.caller.user?.email,
      requestId: context.request.id,
      ip: context.request.ip,
      path: context.request.path,
    });
    if (context.previous?.published === true)
      throw validationError([{ propertyPath: 'published', message: 'This novel is already published.' }]);
    return next({ ...data, published: true });
  },
};

// Novel's operations read and write its groups: the shapes' fields are in them.
const Review = defineShape({
  name: 'Review',
  fields: { stars: { type: 'integer', groups: ['novel:write'], constraints: [Range({ min: 1, max: 5 })] } },
});
const ReviewResult = defineShape({
  name: 'ReviewResult',
  fields: { stars: { type: 'integer', groups: ['novel:read'] }, verdict: { type: 'string', groups: ['novel:read'] } },
});

let computedCalls = 0;

const Novel = defineResource({
  name: 'Novel',
  fields: {
    title: { type: 'string', constraints: [NotBlank()], groups: ['novel:read', 'novel:write'] },
    summary: { type: 'text', nullable: true, groups: ['novel:write', 'novel:detail'] },
    published: { type: 'boolean', default: false, writable: false, groups: ['novel:read'] },
    writer: { toOne: 'Writer', inversedBy: 'novels', nullable: true, groups: ['novel:read', 'novel:write'] },
    // Computed: a plain function and an asynchronous one (awaited once per item).
    shout: { type: 'string', groups: ['novel:read'], computed: (novel: Entity) => String(novel.title).toUpperCase() },
    titleLength: {
      type: 'integer',
      groups: ['novel:read'],
      computed: async (novel: Entity) => {
        computedCalls++;
        await new Promise((resolve) => setTimeout(resolve, 1));
        return String(novel.title).length;
      },
    },
  },
  normalizationGroups: ['novel:read'],
  denormalizationGroups: ['novel:write'],
  operations: [
    'getCollection',
    'get',
    'post',
    'patch',
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
          const page = (await next()) as { items: Entity[] };
          const items = page.items.filter((item) => item.published === true);
          return { items, totalItems: items.length };
        },
      },
    },
    { kind: 'post', name: 'publish', uriTemplate: '/novels/{id}/publish', input: false, processor: publish },
    {
      kind: 'post',
      name: 'retitle',
      uriTemplate: '/novels/{id}/retitle',
      status: 202,
      securityPostDenormalize: "object.title != 'Forbidden' or previous_object.title == 'Forbidden'",
      securityPostDenormalizeMessage: 'That title is not allowed.',
    },
    {
      kind: 'post',
      name: 'review',
      uriTemplate: '/novels/{id}/review',
      input: Review,
      output: ReviewResult,
      processor: {
        async process(data, context) {
          const { stars } = data as unknown as { stars: number };
          return { stars, verdict: `${String(context.previous!.title)}: ${stars >= 4 ? 'good' : 'meh'}` };
        },
      },
    },
    { kind: 'delete', name: 'remove', uriTemplate: '/novels/{id}/remove' },
  ],
});

const resources = [User, Writer, Novel];
const security = { jwt: { secret: SECRET }, users: { resource: 'User', identifier: 'email' } } as const;

async function gql(
  app: FastifyInstance,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return call(app, { method: 'POST', url: '/graphql', payload: { query, variables }, headers });
}

describe('the GraphQL schema of custom operations, shapes and computed fields', () => {
  const sdl = printGraphQLSchema(buildMetadata({ resources }));

  it('has a query per custom read, named after the resource then the operation, taking the template variables', () => {
    expect(sdl).toMatch(/writerStats\(\s+"""The IRI of the Writer\."""\s+id: ID!\s+\): WriterStats/);
    expect(sdl).toMatch(/writerByName\(\s+"""[^"]+"""\s+slug: String!\s+\): Writer\n/);
    expect(sdl).toMatch(/novelDetail\(\s+"""The IRI of the Novel\."""\s+id: ID!\s+\): Novel\n/);
    expect(sdl).toContain(
      'novelPublished(first: Int, last: Int, before: String, after: String): NovelCursorConnection',
    );
    expect(sdl).toMatch(
      /writerPeers\(\s+"""The IRI of the Writer\."""\s+id: ID!\s+page: Int\s+itemsPerPage: Int\s+\): WriterPageConnection/,
    );
  });

  it('has a mutation per other custom operation, named after the operation then the resource, with its input and payload types', () => {
    expect(sdl).toContain('publishNovel(input: publishNovelInput!): publishNovelPayload');
    expect(sdl).toContain('changePasswordUser(input: changePasswordUserInput!): changePasswordUserPayload');
    expect(sdl).toContain('removeNovel(input: removeNovelInput!): removeNovelPayload');
    const block = (name: string) =>
      new RegExp(`(?:type|input) ${name} \\{([^}]*)\\}`)
        .exec(sdl)?.[1]
        ?.replace(/\s*"""[^"]*"""/g, '')
        .trim()
        .split(/\s+/)
        .join(' ');
    // No body: the id and clientMutationId only.
    expect(block('publishNovelInput')).toBe('id: ID! clientMutationId: String');
    expect(block('publishNovelPayload')).toBe('novel: Novel clientMutationId: String');
    // The resource's writable fields in its write groups, as updateNovel takes them.
    expect(block('retitleNovelInput')).toBe(
      'id: ID! title: String summary: String writer: String clientMutationId: String',
    );
    // An input shape's fields; an output shape's type under its own name.
    expect(block('changePasswordUserInput')).toBe(
      'id: ID! currentPassword: String newPassword: String clientMutationId: String',
    );
    expect(block('changePasswordUserPayload')).toBe('user: User clientMutationId: String');
    expect(block('reviewNovelInput')).toBe('id: ID! stars: Int clientMutationId: String');
    expect(block('reviewNovelPayload')).toBe('reviewResult: ReviewResult clientMutationId: String');
    expect(block('ReviewResult')).toBe('stars: Int verdict: String');
    expect(block('WriterStats')).toBe('novelCount: Int latestTitle: String');
  });

  it('has computed fields in the resource type and in no input type', () => {
    expect(sdl).toMatch(/type Novel implements Node \{[^}]*shout: String[^}]*titleLength: Int[^}]*\}/);
    for (const input of sdl.match(/input \w+ \{[^}]*\}/g)!) expect(input).not.toMatch(/shout|titleLength/);
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'custom operations over GraphQL on $name',
  (database) => {
    const app = useApp(database, { resources, security });

    async function token(email: string): Promise<string> {
      const registered = await call(app(), {
        method: 'POST',
        url: '/api/users',
        payload: { email, plainPassword: 'password-123' },
      });
      expect(registered.status, registered.text).toBe(201);
      const response = await call(app(), {
        method: 'POST',
        url: '/api/auth',
        payload: { email, password: 'password-123' },
      });
      expect(response.status, response.text).toBe(200);
      return response.body.token;
    }
    const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
    async function novel(input: Record<string, unknown> = { title: 'Dune' }): Promise<string> {
      const created = await gql(
        app(),
        'mutation ($input: createNovelInput!) { createNovel(input: $input) { novel { id } } }',
        { input },
      );
      expect(created.body.errors, JSON.stringify(created.body.errors)).toBeUndefined();
      return created.body.data.createNovel.novel.id;
    }

    it('runs a custom mutation through its processor and answers the resource in its payload, as REST does', async () => {
      const id = await novel();
      const published = await gql(
        app(),
        'mutation { publishNovel(input: { id: "' +
          id +
          '", clientMutationId: "m1" }) { novel { id title published } clientMutationId } }',
      );
      expect(published.body).toEqual({
        data: { publishNovel: { novel: { id, title: 'Dune', published: true }, clientMutationId: 'm1' } },
      });
      expect((await call(app(), { method: 'GET', url: id })).body.published).toBe(true);
    });

    it('answers a violation of a custom mutation with status 400 and its violations, and a missing item with 404', async () => {
      const id = await novel();
      await gql(app(), `mutation { publishNovel(input: { id: "${id}" }) { novel { id } } }`);
      const again = await gql(app(), `mutation { publishNovel(input: { id: "${id}" }) { novel { id } } }`);
      expect(again.body.data).toEqual({ publishNovel: null });
      expect(again.body.errors[0].extensions).toMatchObject({
        status: 400,
        violations: [
          expect.objectContaining({ propertyPath: 'published', message: 'This novel is already published.' }),
        ],
      });
      const missing = await gql(app(), 'mutation { publishNovel(input: { id: "/api/novels/999" }) { novel { id } } }');
      expect(missing.body.errors[0].extensions.status).toBe(404);
      const notAnIri = await gql(app(), 'mutation { publishNovel(input: { id: "/api/writers/1" }) { novel { id } } }');
      expect(notAnIri.body.errors[0]).toMatchObject({
        message: 'Item "/api/writers/1" not found.',
        extensions: { status: 404 },
      });
    });

    it('checks an input shape: 401 for an anonymous caller, 403 with the message for another user, 400 with violations, 404 for a missing user', async () => {
      const ann = await token('ann@example.com');
      const bob = await token('bob@example.com');
      const query =
        'mutation ($input: changePasswordUserInput!) { changePasswordUser(input: $input) { user { id } clientMutationId } }';
      const input = {
        id: '/api/users/1',
        currentPassword: 'password-123',
        newPassword: 'long-enough',
        clientMutationId: 'c',
      };
      expect((await gql(app(), query, { input })).body.errors[0].extensions.status).toBe(401);
      const other = await gql(app(), query, { input }, bearer(bob));
      expect(other.body.errors[0]).toMatchObject({
        message: 'Only you can change your password.',
        extensions: { status: 403 },
      });
      expect(
        (await gql(app(), query, { input: { ...input, id: '/api/users/999' } }, bearer(ann))).body.errors[0].extensions
          .status,
      ).toBe(404);
      const wrong = await gql(
        app(),
        query,
        { input: { ...input, currentPassword: 'not-it', newPassword: 'short' } },
        bearer(ann),
      );
      expect(wrong.body.errors[0].extensions.status).toBe(400);
      expect(wrong.body.errors[0].extensions.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual([
        'currentPassword',
        'newPassword',
      ]);
      // No output: the payload's resource is null.
      const changed = await gql(app(), query, { input }, bearer(ann));
      expect(changed.body).toEqual({ data: { changePasswordUser: { user: null, clientMutationId: 'c' } } });
      expect(
        (
          await call(app(), {
            method: 'POST',
            url: '/api/auth',
            payload: { email: 'ann@example.com', password: 'long-enough' },
          })
        ).status,
      ).toBe(200);
    });

    it('applies the resource fields of a custom mutation as a PATCH and refuses what its post-denormalize rule denies', async () => {
      const id = await novel({ title: 'Dune', summary: 'Spice.' });
      const query =
        'mutation ($input: retitleNovelInput!) { retitleNovel(input: $input) { novel { title published } } }';
      expect((await gql(app(), query, { input: { id, title: 'Dune (new)' } })).body).toEqual({
        data: { retitleNovel: { novel: { title: 'Dune (new)', published: false } } },
      });
      expect((await call(app(), { method: 'GET', url: `${id}/detail` })).body).toMatchObject({
        title: 'Dune (new)',
        summary: 'Spice.',
      });
      const blank = await gql(app(), query, { input: { id, title: '' } });
      expect(blank.body.errors[0].extensions).toMatchObject({
        status: 400,
        violations: [expect.objectContaining({ propertyPath: 'title' })],
      });
      expect((await gql(app(), query, { input: { id, title: 'Forbidden' } })).body.errors[0].extensions.status).toBe(
        401,
      );
      const denied = await gql(
        app(),
        query,
        { input: { id, title: 'Forbidden' } },
        bearer(await token('cy@example.com')),
      );
      expect(denied.body.errors[0]).toMatchObject({
        message: 'That title is not allowed.',
        extensions: { status: 403 },
      });
      // A computed field is no input field: GraphQL refuses it before any resolver runs.
      const computed = await gql(app(), 'mutation { retitleNovel(input: { id: "x", shout: "A" }) { novel { id } } }');
      expect(computed.body.errors[0].message).toContain('Field "shout" is not defined by type "retitleNovelInput".');
    });

    it('answers an output shape under the shape name, from an input shape, and deletes through a custom delete', async () => {
      const id = await novel();
      const reviewed = await gql(
        app(),
        `mutation { reviewNovel(input: { id: "${id}", stars: 5 }) { reviewResult { stars verdict } clientMutationId } }`,
      );
      expect(reviewed.body).toEqual({
        data: { reviewNovel: { reviewResult: { stars: 5, verdict: 'Dune: good' }, clientMutationId: null } },
      });
      const outOfRange = await gql(
        app(),
        `mutation { reviewNovel(input: { id: "${id}", stars: 9 }) { reviewResult { stars } } }`,
      );
      expect(outOfRange.body.errors[0].extensions).toMatchObject({
        status: 400,
        violations: [expect.objectContaining({ propertyPath: 'stars' })],
      });
      const removed = await gql(app(), `mutation { removeNovel(input: { id: "${id}" }) { novel { id } } }`);
      expect(removed.body).toEqual({ data: { removeNovel: { novel: null } } });
      expect((await call(app(), { method: 'GET', url: id })).status).toBe(404);
    });

    it('reads through custom queries: an output shape, another template variable, other read groups, and a collection through a provider', async () => {
      const writer = (await call(app(), { method: 'POST', url: '/api/writers', payload: { name: 'frank' } })).body[
        '@id'
      ];
      const dune = await novel({ title: 'Dune', summary: 'Spice.', writer });
      await novel({ title: 'Dune Messiah', writer });
      const stats = await gql(app(), `{ writerStats(id: "${writer}") { novelCount latestTitle } }`);
      expect(stats.body).toEqual({ data: { writerStats: { novelCount: 2, latestTitle: 'Dune Messiah' } } });
      // A missing item is null, as the item query answers.
      expect((await gql(app(), '{ writerStats(id: "/api/writers/999") { novelCount } }')).body).toEqual({
        data: { writerStats: null },
      });
      expect((await gql(app(), '{ writerByName(slug: "frank") { id name } }')).body).toEqual({
        data: { writerByName: { id: writer, name: 'frank' } },
      });
      expect((await gql(app(), '{ writerByName(slug: "nobody") { id } }')).body).toEqual({
        data: { writerByName: null },
      });
      // The item query reads the item GET's groups; the custom one its own.
      expect((await gql(app(), `{ novel(id: "${dune}") { summary } }`)).body.data.novel.summary).toBeNull();
      expect(
        (await gql(app(), `{ novelDetail(id: "${dune}") { title summary writer { name } } }`)).body.data.novelDetail,
      ).toEqual({ title: 'Dune', summary: 'Spice.', writer: { name: 'frank' } });
      await gql(app(), `mutation { publishNovel(input: { id: "${dune}" }) { novel { id } } }`);
      const published = await gql(app(), '{ novelPublished { totalCount edges { node { title writer { name } } } } }');
      expect(published.body).toEqual({
        data: { novelPublished: { totalCount: 1, edges: [{ node: { title: 'Dune', writer: { name: 'frank' } } }] } },
      });
      // A collection under an item: the id reaches the provider.
      await call(app(), { method: 'POST', url: '/api/writers', payload: { name: 'ursula' } });
      const peers = await gql(
        app(),
        `{ writerPeers(id: "${writer}") { collection { name } paginationInfo { totalCount } } }`,
      );
      expect(peers.body).toEqual({
        data: { writerPeers: { collection: [{ name: 'ursula' }], paginationInfo: { totalCount: 1 } } },
      });
    });

    it('resolves computed fields with the item, awaiting a promise once per item, in items, pages and payloads', async () => {
      const id = await novel({ title: 'Dune' });
      await novel({ title: 'Emma' });
      computedCalls = 0;
      expect((await gql(app(), `{ novel(id: "${id}") { shout titleLength again: titleLength } }`)).body).toEqual({
        data: { novel: { shout: 'DUNE', titleLength: 4, again: 4 } },
      });
      expect(computedCalls).toBe(1);
      const page = await gql(app(), '{ novels { edges { node { title shout titleLength } } } }');
      expect(page.body.data.novels.edges.map((edge: { node: unknown }) => edge.node)).toEqual([
        { title: 'Dune', shout: 'DUNE', titleLength: 4 },
        { title: 'Emma', shout: 'EMMA', titleLength: 4 },
      ]);
      const retitled = await gql(
        app(),
        `mutation { retitleNovel(input: { id: "${id}", title: "Children of Dune" }) { novel { shout titleLength } } }`,
      );
      expect(retitled.body.data.retitleNovel.novel).toEqual({ shout: 'CHILDREN OF DUNE', titleLength: 16 });
    });

    it("hands the GraphQL call's HTTP request to processors: headers, caller, request id and address", async () => {
      const ann = await token('ann@example.com');
      const id = await novel();
      seen.length = 0;
      const published = await gql(
        app(),
        `mutation { publishNovel(input: { id: "${id}" }) { novel { published } } }`,
        {},
        { ...bearer(ann), 'x-test': 'over graphql' },
      );
      expect(published.body.errors, JSON.stringify(published.body.errors)).toBeUndefined();
      expect(seen).toEqual([
        {
          header: 'over graphql',
          user: 'ann@example.com',
          requestId: expect.any(String),
          ip: '127.0.0.1',
          path: '/api/novels/{id}/publish',
        },
      ]);
      expect(seen[0]!.requestId).not.toBe('');
    });

    it('stops start-up when two custom operations, or a custom operation and a built-in field, take one GraphQL name', async () => {
      const start = (...declarations: ResourceDeclaration[]) => buildTestApp({ database, resources: declarations });
      const provider: StateProvider = { provide: async () => null };
      // Author + bookStats and AuthorBook + stats are both "authorBookStats".
      const author = defineResource({
        name: 'Author',
        fields: { name: { type: 'string' } },
        operations: ['get', { kind: 'get', name: 'bookStats', uriTemplate: '/authors/{id}/book_stats' }],
      });
      const authorBook = defineResource({
        name: 'AuthorBook',
        fields: { name: { type: 'string' } },
        operations: ['get', { kind: 'get', name: 'stats', uriTemplate: '/author_books/{id}/stats' }],
      });
      await expect(start(author, authorBook)).rejects.toThrow(
        'Resource "AuthorBook", operation "stats": its GraphQL query "authorBookStats" is already the GraphQL query of resource "Author", operation "bookStats"; give the operation another name.',
      );
      // A custom "create" on a resource that has the built-in POST: createArticle twice.
      const article = defineResource({
        name: 'Article',
        fields: { title: { type: 'string' } },
        operations: ['get', 'post', { kind: 'post', name: 'create', uriTemplate: '/articles/{id}/create' }],
      });
      await expect(start(article)).rejects.toThrow(
        'Resource "Article", operation "create": its GraphQL mutation "createArticle" is already the create mutation of resource "Article"; give the operation another name.',
      );
      // A custom read named like another resource's item query.
      const shelf = defineResource({
        name: 'Shelf',
        fields: { name: { type: 'string' } },
        operations: ['get', { kind: 'get', name: 'item', uriTemplate: '/shelves/{id}/item' }],
      });
      const shelfItem = defineResource({
        name: 'ShelfItem',
        fields: { name: { type: 'string' } },
        operations: ['get'],
      });
      await expect(start(shelf, shelfItem)).rejects.toThrow(
        'Resource "Shelf", operation "item": its GraphQL query "shelfItem" is already the item query of resource "ShelfItem"',
      );
      // An output shape named like a type the schema makes for a resource.
      const clash = defineShape({ name: 'ShelfCursorConnection', fields: { n: { type: 'integer' } } });
      const counted = defineResource({
        name: 'Shelf',
        fields: { name: { type: 'string' } },
        operations: [
          'getCollection',
          { kind: 'get', name: 'count', uriTemplate: '/shelves/count', output: clash, provider },
        ],
      });
      await expect(start(counted)).rejects.toThrow(
        'Shape "ShelfCursorConnection" (the output of Resource "Shelf", operation "count"): the GraphQL type "ShelfCursorConnection" is already the name of another type of the schema; rename it.',
      );
      // An output shape whose fields no read group of the operation reaches: GraphQL has no empty type.
      // (A shape whose fields name no group is sent whole: this one names another group than the operation's.)
      const empty = defineShape({ name: 'Nothing', fields: { n: { type: 'integer', groups: ['b'] } } });
      const grouped = defineResource({
        name: 'Shelf',
        fields: { name: { type: 'string', groups: ['a'] } },
        normalizationGroups: ['a'],
        operations: ['get', { kind: 'get', name: 'nothing', uriTemplate: '/shelves/{id}/nothing', output: empty }],
      });
      await expect(start(grouped)).rejects.toThrow(
        'Shape "Nothing" (the output of Resource "Shelf", operation "nothing"): none of its fields is readable in the operation\'s read groups',
      );
      // Without GraphQL, nothing to clash.
      const app = await buildTestApp({ database, resources: [article], graphql: false });
      await app.close();
    });
  },
);
