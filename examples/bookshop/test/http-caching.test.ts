/**
 * The contract's "HTTP caching": public reads of Author, Book, Category, Brand and MediaObject (items and collections,
 * without credentials) say `public, s-maxage=3600, max-age=0` and list the IRIs they show in `Cache-Tags` (embedded
 * items included); authenticated callers and protected operations get `private, no-store`; every response varies on
 * Accept and Authorization. With `HTTP_CACHE=memory` a public read is served from the in-process cache, and a write
 * purges what showed its item before it is answered.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN, bearer, call, create, databases, MERGE_PATCH, useBookshop } from './support.js';

const PUBLIC = 'public, s-maxage=3600, max-age=0';
const tagsOf = (header: unknown) =>
  new Set(
    String(header)
      .split(',')
      .map((tag) => tag.trim()),
  );

describe.each(databases)('HTTP caching on $name', (database) => {
  const bookshop = useBookshop(database);

  it('marks public reads shareable with their tags, and the rest private', async () => {
    const { app, adminToken } = bookshop();
    await create(app, 'authors', { name: 'Ursula K. Le Guin' }, adminToken);
    await create(app, 'books', { title: 'A Wizard of Earthsea', author: '/api/authors/1' }, adminToken);
    await create(app, 'categories', { name: 'Fantasy' }, adminToken);
    await create(app, 'brands', { name: 'Ace' }, adminToken);
    for (const url of [
      '/api/authors',
      '/api/authors/1',
      '/api/books',
      '/api/books/1',
      '/api/categories',
      '/api/categories/1',
      '/api/brands',
      '/api/brands/1',
      '/api/media_objects',
    ]) {
      const response = await call(app, { method: 'GET', url });
      expect(response.status, url).toBe(200);
      expect(response.headers['cache-control'], url).toBe(PUBLIC);
      expect(String(response.headers.vary), url).toMatch(/Accept.*Authorization/);
      expect(response.headers['cache-tags'], url).toBeDefined();
    }
    // The collection and every item it shows, embedded ones included.
    const books = await call(app, { method: 'GET', url: '/api/books' });
    const tags = tagsOf(books.headers['cache-tags']);
    expect(tags).toContain('/api/books');
    expect(tags).toContain('/api/books/1');
    const book = await call(app, { method: 'GET', url: '/api/books/1' });
    expect(tagsOf(book.headers['cache-tags'])).toContain('/api/books/1');

    // Authenticated callers, and protected operations, are private.
    const mine = await call(app, { method: 'GET', url: '/api/books/1', headers: bearer(adminToken) });
    expect(mine.status).toBe(200);
    expect(mine.headers['cache-control']).toBe('private, no-store');
    expect(mine.headers['cache-tags']).toBeUndefined();
    const users = await call(app, { method: 'GET', url: '/api/users' });
    expect(users.status).toBe(401);
    expect(users.headers['cache-control']).toBe('private, no-store');
    expect(String(users.headers.vary)).toMatch(/Accept.*Authorization/);
    const written = await call(app, {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { ...bearer(adminToken), ...MERGE_PATCH },
      payload: '{"title":"The Farthest Shore"}',
    });
    expect(written.status).toBe(200);
    expect(written.headers['cache-control']).toBe('private, no-store');

    // Every response varies on Accept and Authorization: the login's, GraphQL's (POST and GET), an error's.
    const login = await call(app, { method: 'POST', url: '/api/auth', payload: ADMIN });
    expect(login.status).toBe(200);
    const query = '{ book(id: "/api/books/1") { title } }';
    const graphqlPost = await call(app, { method: 'POST', url: '/graphql', payload: { query } });
    const graphqlGet = await call(app, { method: 'GET', url: `/graphql?query=${encodeURIComponent(query)}` });
    expect(graphqlGet.body).toEqual({ data: { book: { title: 'The Farthest Shore' } } });
    const missing = await call(app, { method: 'GET', url: '/api/books/999' });
    expect(missing.status).toBe(404);
    for (const [name, response] of Object.entries({ login, graphqlPost, graphqlGet, missing })) {
      expect(String(response.headers.vary), name).toMatch(/Accept.*Authorization/);
      expect(String(response.headers['cache-control']), name).toMatch(/no-store/);
    }
  });
});

describe.each(databases)('the in-process HTTP cache of the bookshop (HTTP_CACHE=memory) on $name', (database) => {
  const bookshop = useBookshop(database, { httpCache: 'memory' });

  it('serves a public read again from the cache, and never after a write that changed it', async () => {
    const { app, adminToken } = bookshop();
    await create(app, 'authors', { name: 'Ursula K. Le Guin' }, adminToken);
    await create(app, 'books', { title: 'A Wizard of Earthsea', author: '/api/authors/1' }, adminToken);
    const first = await call(app, { method: 'GET', url: '/api/books' });
    expect(first.headers['x-cache']).toBe('MISS');
    const again = await call(app, { method: 'GET', url: '/api/books' });
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.body).toEqual(first.body);

    // The book renamed: the page that shows it is purged before the write is answered.
    const renamed = await call(app, {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { ...bearer(adminToken), ...MERGE_PATCH },
      payload: '{"title":"The Farthest Shore"}',
    });
    expect(renamed.status).toBe(200);
    const after = await call(app, { method: 'GET', url: '/api/books' });
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.body['hydra:member'][0].title).toBe('The Farthest Shore');

    // A new book purges the collection.
    await create(app, 'books', { title: 'Tehanu', author: '/api/authors/1' }, adminToken);
    const grown = await call(app, { method: 'GET', url: '/api/books' });
    expect(grown.body['hydra:totalItems']).toBe(2);

    // A page filtered through a relation changes with a write of the related item it does not show: purged too.
    const url = '/api/books?author.name=ursula';
    expect((await call(app, { method: 'GET', url })).body['hydra:totalItems']).toBe(2);
    expect((await call(app, { method: 'GET', url })).headers['x-cache']).toBe('HIT');
    const renamed2 = await call(app, {
      method: 'PATCH',
      url: '/api/authors/1',
      headers: { ...bearer(adminToken), ...MERGE_PATCH },
      payload: '{"name":"U. K. Le Guin"}',
    });
    expect(renamed2.status).toBe(200);
    const filtered = await call(app, { method: 'GET', url });
    expect(filtered.headers['x-cache']).toBe('MISS');
    expect(filtered.body['hydra:totalItems']).toBe(0);

    // Credentials bypass the cache.
    const mine = await call(app, { method: 'GET', url: '/api/books', headers: bearer(adminToken) });
    expect(mine.headers['x-cache']).toBeUndefined();
  });
});
