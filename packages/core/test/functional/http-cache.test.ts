/**
 * HTTP caching, over HTTP on SQLite and PostgreSQL: the cache headers of public, authenticated and protected reads,
 * the cache tags, the in-process cache (hits without a query, purged by every write), and a run of concurrent writes
 * and reads in which no read that started after a write's answer may show an older body.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, type StateProcessor } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

const Secret = defineResource({
  name: 'Secret',
  fields: { text: { type: 'string' } },
  // A rule every caller meets: still a rule, so its responses are never shared unless declared.
  security: 'true',
});

const Notice = defineResource({
  name: 'Notice',
  fields: { text: { type: 'string' } },
  security: 'true',
  cacheHeaders: { public: true, maxAge: 60, vary: ['Accept-Language'] },
  operations: ['get', 'getCollection', 'post', { kind: 'patch', cacheHeaders: false }],
});

const Draft = defineResource({
  name: 'Draft',
  fields: { text: { type: 'string' } },
  cacheHeaders: false,
});

// A volume embeds its shelf; deleting a shelf deletes its volumes (the database's cascade), or unlinks its labels.
const Shelf = defineResource({ name: 'Shelf', fields: { name: { type: 'string' } } });
const Volume = defineResource({
  name: 'Volume',
  fields: {
    title: { type: 'string' },
    shelf: { toOne: 'Shelf', onDelete: 'cascade', readableLink: true },
  },
});
const Label = defineResource({
  name: 'Label',
  fields: { text: { type: 'string' }, shelf: { toOne: 'Shelf', nullable: true, onDelete: 'set null' } },
});

// Its deleted items are listed, under the `list` rule, with ?deleted=true.
const Memo = defineResource({
  name: 'Memo',
  fields: { text: { type: 'string' } },
  softDelete: { list: "is_granted('PUBLIC_ACCESS')" },
});

// A custom operation whose processor writes the item: its commit purges like any write.
const publish: StateProcessor = {
  process: (article, _context, next) => next({ ...article, published: true }),
};
const Article = defineResource({
  name: 'Article',
  fields: { title: { type: 'string' }, published: { type: 'boolean', default: false, writable: false } },
  operations: [
    'getCollection',
    'get',
    'post',
    { kind: 'post', name: 'publish', uriTemplate: '/articles/{id}/publish', input: false, processor: publish },
  ],
});

const PUBLIC = 'public, s-maxage=3600, max-age=0';
const NO_STORE = 'private, no-store';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('HTTP caching on $name', (database) => {
  const app = useApp(database, {
    resources: [Author, Book, Secret, Notice, Draft, Shelf, Volume, Label, Memo, Article],
    httpCache: { defaults: { sharedMaxAge: 3600, maxAge: 0 }, store: 'memory', maxTagBytes: 128 },
  });
  const post = (url: string, payload: object) => call(app(), { method: 'POST', url, payload });
  const get = (url: string, headers: Record<string, string> = {}) => call(app(), { method: 'GET', url, headers });
  const countQueries = async (run: () => Promise<unknown>): Promise<number> => {
    const queries: string[] = [];
    const knex = app().resourceApi.database.knex;
    const listener = (query: { sql: string }) => queries.push(query.sql);
    knex.on('query', listener);
    await run();
    knex.off('query', listener);
    return queries.length;
  };

  it('gives a public read the default cache headers and the IRIs it shows as cache tags', async () => {
    await post('/api/authors', { name: 'Frank Herbert' });
    await post('/api/books', { title: 'Dune', author: '/api/authors/1' });
    const item = await get('/api/authors/1');
    expect(item.headers['cache-control']).toBe(PUBLIC);
    expect(item.headers.vary).toBe('Accept, Authorization');
    // The author, and the books collection: a new book of this author changes its `books`.
    expect(item.headers['cache-tags']).toBe('/api/authors/1, /api/books');
    const collection = await get('/api/books');
    expect(collection.headers['cache-control']).toBe(PUBLIC);
    expect(collection.headers['cache-tags']).toBe('/api/books, /api/books/1');
  });

  it('answers a caller with credentials, a protected operation, a write and an error with private, no-store and no tags', async () => {
    await post('/api/authors', { name: 'Frank Herbert' });
    const created = await post('/api/secrets', { text: 'hush' });
    for (const response of [
      await get('/api/authors/1', { authorization: 'Bearer whoever' }),
      await get('/api/secrets/1'),
      await get('/api/secrets'),
      created,
      await get('/api/authors/404'),
      await get('/api/drafts'),
    ]) {
      expect(response.headers['cache-control']).toBe(NO_STORE);
      expect(response.headers.vary).toMatch(/^Accept, Authorization/);
      expect(response.headers['cache-tags']).toBeUndefined();
      expect(response.headers['x-cache']).toBeUndefined();
    }
  });

  it('shares what a protected operation declares public, and its declared Vary', async () => {
    await post('/api/notices', { text: 'Closed on Sunday' });
    const read = await get('/api/notices/1', { authorization: 'Bearer whoever' });
    expect(read.headers['cache-control']).toBe('public, s-maxage=3600, max-age=60');
    expect(read.headers.vary).toBe('Accept, Authorization, Accept-Language');
    expect(read.headers['cache-tags']).toBe('/api/notices/1');
    const patched = await call(app(), {
      method: 'PATCH',
      url: '/api/notices/1',
      payload: { text: 'Open' },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    expect(patched.headers['cache-control']).toBe(NO_STORE);
  });

  it('falls back to the collection tag when the item tags would pass maxTagBytes', async () => {
    await post('/api/authors', { name: 'Frank Herbert' });
    for (let i = 1; i <= 10; i++) await post('/api/books', { title: `Book ${i}`, author: '/api/authors/1' });
    const page = await get('/api/books');
    expect(page.body['hydra:member']).toHaveLength(10);
    expect(page.headers['cache-tags']).toBe('/api/books');
  });

  it('serves a second public read from the in-process cache without a query, and a 304 for its ETag', async () => {
    await post('/api/authors', { name: 'Frank Herbert' });
    const first = await get('/api/authors/1');
    expect(first.headers['x-cache']).toBe('MISS');
    let second: Awaited<ReturnType<typeof get>> | undefined;
    expect(await countQueries(async () => (second = await get('/api/authors/1')))).toBe(0);
    expect(second!.headers['x-cache']).toBe('HIT');
    expect(second!.headers.age).toBe('0');
    expect(second!.body).toEqual(first.body);
    expect(second!.headers.etag).toBe(first.headers.etag);
    expect(second!.headers.link).toBe(first.headers.link);
    expect(second!.headers['cache-tags']).toBe(first.headers['cache-tags']);
    const notModified = await get('/api/authors/1', { 'if-none-match': first.headers.etag as string });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['cache-control']).toBe(PUBLIC);
    // Another format is another response; a caller with credentials is never served from the cache.
    expect((await get('/api/authors/1', { accept: 'application/json' })).headers['x-cache']).toBe('MISS');
    expect((await get('/api/authors/1', { authorization: 'Bearer x' })).headers['x-cache']).toBeUndefined();
  });

  it('purges the item and the collections that show it when a write commits', async () => {
    await post('/api/authors', { name: 'Frank Herbert' });
    await get('/api/authors/1');
    await get('/api/books');
    await get('/api/authors');
    await post('/api/books', { title: 'Dune', author: '/api/authors/1' });
    const books = await get('/api/books');
    expect(books.headers['x-cache']).toBe('MISS');
    expect(books.body['hydra:member']).toHaveLength(1);
    // The author's `books` changed: its response listed the books collection tag.
    const author = await get('/api/authors/1');
    expect(author.headers['x-cache']).toBe('MISS');
    expect(author.body.books).toEqual(['/api/books/1']);
    await call(app(), {
      method: 'PATCH',
      url: '/api/authors/1',
      payload: { name: 'F. Herbert' },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect((await get('/api/authors/1')).body.name).toBe('F. Herbert');
    expect((await get('/api/authors')).body['hydra:member'][0].name).toBe('F. Herbert');
    await call(app(), { method: 'DELETE', url: '/api/books/1' });
    expect((await get('/api/books')).body['hydra:member']).toHaveLength(0);
    expect((await get('/api/authors/1')).body.books).toEqual([]);
  });

  it('purges what a GraphQL mutation wrote', async () => {
    await post('/api/authors', { name: 'Frank Herbert' });
    expect((await get('/api/authors/1')).headers['x-cache']).toBe('MISS');
    const mutation = await call(app(), {
      method: 'POST',
      url: '/graphql',
      payload: {
        query: 'mutation { updateAuthor(input: { id: "/api/authors/1", name: "F. H." }) { author { name } } }',
      },
    });
    expect(mutation.body.errors).toBeUndefined();
    const read = await get('/api/authors/1');
    expect(read.headers['x-cache']).toBe('MISS');
    expect(read.body.name).toBe('F. H.');
  });

  it('tags embedded items, and purges what showed them when they change', async () => {
    await post('/api/shelves', { name: 'Fiction' });
    await post('/api/volumes', { title: 'Dune', shelf: '/api/shelves/1' });
    const volume = await get('/api/volumes/1');
    expect(volume.body.shelf).toMatchObject({ '@id': '/api/shelves/1', name: 'Fiction' });
    expect(volume.headers['cache-tags']).toBe('/api/volumes/1, /api/shelves/1');
    expect((await get('/api/volumes')).headers['cache-tags']).toBe('/api/volumes, /api/volumes/1, /api/shelves/1');
    await call(app(), {
      method: 'PATCH',
      url: '/api/shelves/1',
      payload: { name: 'Science fiction' },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect((await get('/api/volumes/1')).body.shelf.name).toBe('Science fiction');
    expect((await get('/api/volumes')).body['hydra:member'][0].shelf.name).toBe('Science fiction');
  });

  it('purges the items a delete takes or changes through the database’s cascades', async () => {
    await post('/api/shelves', { name: 'Fiction' });
    await post('/api/volumes', { title: 'Dune', shelf: '/api/shelves/1' });
    await post('/api/labels', { text: 'SF', shelf: '/api/shelves/1' });
    expect((await get('/api/volumes/1')).status).toBe(200);
    expect((await get('/api/labels/1')).body.shelf).toBe('/api/shelves/1');
    expect((await get('/api/labels/1')).headers['x-cache']).toBe('HIT');
    expect((await call(app(), { method: 'DELETE', url: '/api/shelves/1' })).status).toBe(204);
    expect((await get('/api/volumes/1')).status).toBe(404);
    const label = await get('/api/labels/1');
    expect(label.headers['x-cache']).toBe('MISS');
    expect(label.body.shelf).toBeUndefined();
  });

  it('never shares a listing of deleted items, and purges a soft-deleted item', async () => {
    await post('/api/memos', { text: 'Call back' });
    expect((await get('/api/memos/1')).headers['cache-control']).toBe(PUBLIC);
    expect((await get('/api/memos')).body['hydra:member']).toHaveLength(1);
    expect((await call(app(), { method: 'DELETE', url: '/api/memos/1' })).status).toBe(204);
    expect((await get('/api/memos/1')).status).toBe(404);
    expect((await get('/api/memos')).body['hydra:member']).toHaveLength(0);
    const deleted = await get('/api/memos?deleted=true');
    expect(deleted.body['hydra:member']).toHaveLength(1);
    expect(deleted.headers['cache-control']).toBe(NO_STORE);
    expect(deleted.headers['cache-tags']).toBeUndefined();
  });

  it('purges what a custom operation wrote', async () => {
    await post('/api/articles', { title: 'Hello' });
    for (const url of ['/api/articles/1', '/api/articles']) {
      expect((await get(url)).headers['x-cache']).toBe('MISS');
      expect((await get(url)).headers['x-cache']).toBe('HIT');
    }
    expect((await post('/api/articles/1/publish', {})).status).toBe(200);
    const item = await get('/api/articles/1');
    expect(item.headers['x-cache']).toBe('MISS');
    expect(item.body.published).toBe(true);
    const list = await get('/api/articles');
    expect(list.headers['x-cache']).toBe('MISS');
    expect(list.body['hydra:member'][0].published).toBe(true);
  });

  it('never answers a read that started after a write was answered with an older body', async () => {
    await post('/api/authors', { name: 'v0' });
    const writes = 30;
    let acknowledged = 0;
    let writing = true;
    const stale: string[] = [];
    const reader = async (): Promise<number> => {
      let reads = 0;
      // Stops at the first stale read (and after a bound), so that a failure is reported, not a run out of memory.
      while (writing && stale.length === 0 && reads < 5_000) {
        const floor = acknowledged;
        const url = reads % 2 === 0 ? '/api/authors/1' : '/api/authors';
        const response = await get(url);
        const name: string =
          url === '/api/authors' ? response.body['hydra:member'][0].name : (response.body.name as string);
        const version = Number(name.slice(1));
        if (version < floor) stale.push(`${url} showed v${version} after v${floor} was answered`);
        reads++;
        // A hit answers without I/O: without a turn of the event loop, the readers would starve the writer.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return reads;
    };
    const readers = [reader(), reader(), reader()];
    for (let version = 1; version <= writes; version++) {
      const response = await call(app(), {
        method: 'PATCH',
        url: '/api/authors/1',
        payload: { name: `v${version}` },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(response.status).toBe(200);
      acknowledged = version;
    }
    writing = false;
    const reads = await Promise.all(readers);
    expect(stale).toEqual([]);
    expect(reads.reduce((a, b) => a + b, 0)).toBeGreaterThan(writes);
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'HTTP cache headers without a store on $name',
  (database) => {
    const app = useApp(database, { resources: [Author, Book], httpCache: { tagHeader: 'xkey' } });

    it('lists the tags in xkey, space-separated, makes public reads revalidate, and keeps nothing', async () => {
      await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'Frank Herbert' } });
      const first = await call(app(), { method: 'GET', url: '/api/authors/1' });
      expect(first.headers['cache-control']).toBe('public');
      expect(first.headers.xkey).toBe('/api/authors/1 /api/books');
      expect(first.headers['cache-tags']).toBeUndefined();
      expect(first.headers['x-cache']).toBeUndefined();
      expect((await call(app(), { method: 'GET', url: '/api/authors/1' })).headers['x-cache']).toBeUndefined();
    });
  },
);

describe('the httpCache option', () => {
  it('refuses a wrong option with a clear message at start', async () => {
    const { buildTestApp, testDatabases: databases } = await import('@resource-api/core/testing');
    const [sqlite] = databases(undefined);
    await expect(
      buildTestApp({ resources: [Author, Book], database: sqlite!, httpCache: { store: 'redis' as never } }),
    ).rejects.toThrow('"httpCache.store" must be "memory" (the in-process cache), not "redis".');
    await expect(
      buildTestApp({ resources: [Author, Book], database: sqlite!, httpCache: { maxTagByte: 1 } as never }),
    ).rejects.toThrow('"httpCache" has an unknown option "maxTagByte". Did you mean "maxTagBytes"?');
    const refused = async (httpCache: object, message: string) =>
      expect(buildTestApp({ resources: [Author, Book], database: sqlite!, httpCache })).rejects.toThrow(message);
    await refused({ purgers: [{}] }, '"httpCache.purgers" must be a list of purgers, each with a purge(tags) method');
    await refused({ redis: 'localhost:6379' }, '"httpCache.redis" must be a redis:// (or rediss://) URL');
    await refused(
      { redis: 'redis://127.0.0.1:6379', fanOut: false },
      '"httpCache.redis" carries the purges between instances, which "httpCache.fanOut: false" turns off',
    );
    await refused({ channel: 'x'.repeat(64) }, '"httpCache.channel" must be a channel name of 1 to 63 bytes.');
    await refused({ purgeTimeout: 0 }, '"httpCache.purgeTimeout" must be a whole number of milliseconds.');
    await refused({ repurgeDelay: -1 }, '"httpCache.repurgeDelay" must be a whole number of milliseconds.');
  });
});

describe('the in-process cache and the headers of the request it answers', () => {
  it("keeps the headers the request's own onRequest hooks set (request id, rate limit) over those it stored", async () => {
    const { default: Fastify } = await import('fastify');
    const { resourceApi } = await import('@resource-api/core');
    const app = Fastify();
    let count = 0;
    // As the production plugin's request id echo and rate limit do, before the API's hooks.
    app.addHook('onRequest', (_request, reply, done) => {
      count++;
      reply.header('x-request-id', `request-${count}`).header('x-ratelimit-remaining', String(100 - count));
      done();
    });
    await app.register(resourceApi, {
      resources: [Author, Book],
      database: 'sqlite::memory:',
      httpCache: { defaults: { sharedMaxAge: 3600, maxAge: 0 }, store: 'memory', answerHits: 'afterHooks' },
    });
    try {
      await app.inject({ method: 'POST', url: '/api/authors', payload: { name: 'Frank Herbert' } });
      const first = await app.inject('/api/authors/1');
      expect(first.headers['x-cache']).toBe('MISS');
      expect(first.headers['x-request-id']).toBe('request-2');
      const second = await app.inject('/api/authors/1');
      expect(second.headers['x-cache']).toBe('HIT');
      expect(second.headers['x-request-id']).toBe('request-3');
      expect(second.headers['x-ratelimit-remaining']).toBe('97');
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(second.body).toBe(first.body);
      const notModified = await app.inject({
        url: '/api/authors/1',
        headers: { 'if-none-match': first.headers.etag as string },
      });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.headers['x-request-id']).toBe('request-4');
    } finally {
      await app.close();
    }
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'the in-process cache behind the production plugin on $name',
  (database) => {
    const app = useApp(database, {
      resources: [Author, Book],
      httpCache: { defaults: { sharedMaxAge: 3600, maxAge: 0 }, store: 'memory', answerHits: 'afterHooks' },
      production: { rateLimit: { max: 4, timeWindow: '1 minute' } },
    });

    it('answers a hit only once the rate limit counted it, with its own counts and request id', async () => {
      // Written to the database directly: a POST would count against the limit too.
      await app().resourceApi.database.knex('author').insert({ name: 'Frank Herbert' });
      const responses = [];
      for (let i = 0; i < 5; i++) responses.push(await app().inject('/api/authors/1'));
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 429]);
      expect(responses.map((r) => r.headers['x-cache'])).toEqual(['MISS', 'HIT', 'HIT', 'HIT', undefined]);
      expect(responses.slice(0, 4).map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['3', '2', '1', '0']);
      const ids = new Set(responses.map((r) => r.headers['x-request-id']));
      expect(ids.size).toBe(5);
      // The security headers of the production plugin are on the hits too (each request's own).
      expect(responses[1]?.headers['x-content-type-options']).toBe('nosniff');
      expect(responses[1]?.body).toBe(responses[0]?.body);
      expect(responses[4]?.headers['retry-after']).toBeDefined();
    });
  },
);

// A read that waits at its provider until the test lets it go, while a write commits.
let gate: Promise<void> | null = null;
const Slow = defineResource({
  name: 'Slow',
  fields: { text: { type: 'string' } },
  cacheHeaders: { public: true, sharedMaxAge: 3600 },
  provider: {
    async provide(context, next) {
      const read = await next(context);
      if (gate && context.operation.method === 'GET') await gate;
      return read;
    },
  },
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'a shared cache and the reads a purge overlapped, on $name',
  (database) => {
    const purged: string[][] = [];
    const app = useApp(database, {
      resources: [Slow],
      httpCache: { purgers: [{ name: 'test', purge: async (tags) => void purged.push([...tags]) }] },
    });

    it('sends a read during which a write was purged as private, no-store; the others as declared', async () => {
      const created = await app().inject({ method: 'POST', url: '/api/slows', payload: { text: 'v0' } });
      expect(created.statusCode).toBe(201);
      const quiet = await app().inject('/api/slows/1');
      expect(quiet.headers['cache-control']).toBe('public, s-maxage=3600');

      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      try {
        const overlapped = app().inject('/api/slows/1');
        // The read has its row (v0) and waits; the write commits and purges meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 50));
        const written = await app().inject({
          method: 'PATCH',
          url: '/api/slows/1',
          headers: { 'content-type': 'application/merge-patch+json' },
          payload: { text: 'v1' },
        });
        expect(written.statusCode).toBe(200);
        expect(purged.some((tags) => tags.includes('/api/slows/1'))).toBe(true);
        release();
        const response = await overlapped;
        expect(response.json().text).toBe('v0');
        expect(response.headers['cache-control']).toBe('private, no-store');
      } finally {
        gate = null;
        release();
      }
      const after = await app().inject('/api/slows/1');
      expect(after.json().text).toBe('v1');
      expect(after.headers['cache-control']).toBe('public, s-maxage=3600');
    });
  },
);
