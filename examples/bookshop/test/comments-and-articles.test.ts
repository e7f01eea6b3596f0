/** Comments and articles end to end: required owners, a read-only creation date, an optional text. */
import { describe, expect, it } from 'vitest';
import { call, create, databases, DATETIME, useBookshop } from './support.js';

const NOT_NULL = 'ad32d13f-c3d4-423b-909a-857b961eb720';

describe.each(databases)('comments and articles on $name', (database) => {
  const bookshop = useBookshop(database);

  async function twoUsers() {
    const { app } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });
    await create(app, 'users', { email: 'grace@example.com', plainPassword: 'correct horse battery' });
    return app;
  }

  it('creates a comment dated now, ignoring a creation date sent by the client', async () => {
    const app = await twoUsers();
    const before = Date.now();
    const response = await call(app, {
      method: 'POST',
      url: '/api/comments',
      payload: { content: 'A fine book.', user: '/api/users/1', createdAt: '2001-01-01T00:00:00+00:00' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/comments/1');
    expect(response.body).toEqual({
      '@context': '/api/contexts/Comment',
      '@id': '/api/comments/1',
      '@type': 'Comment',
      id: 1,
      content: 'A fine book.',
      user: '/api/users/1',
      createdAt: expect.any(String),
    });
    expect(response.body.createdAt).toMatch(DATETIME);
    expect(Date.parse(response.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect((await call(app, { method: 'GET', url: '/api/comments/1' })).body).toEqual(response.body);
  });

  it('refuses a comment without a user with a NotNull violation on user', async () => {
    const app = await twoUsers();
    const response = await call(app, { method: 'POST', url: '/api/comments', payload: { content: 'Who wrote this?' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      '@context': '/api/contexts/ConstraintViolationList',
      '@type': 'ConstraintViolationList',
      'hydra:title': 'An error occurred',
      'hydra:description': 'user: This value should not be null.',
      violations: [{ propertyPath: 'user', message: 'This value should not be null.', code: NOT_NULL }],
    });
  });

  it('keeps the creation date of a comment through PUT and PATCH', async () => {
    const app = await twoUsers();
    const created = await create(app, 'comments', { content: 'A fine book.', user: '/api/users/1' });

    const put = await call(app, { method: 'PUT', url: '/api/comments/1', payload: { content: 'A fine book, really.', user: '/api/users/2', createdAt: '2001-01-01T00:00:00+00:00' } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...created, content: 'A fine book, really.', user: '/api/users/2' });

    const patch = await call(app, {
      method: 'PATCH',
      url: '/api/comments/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ content: 'Changed my mind.', createdAt: '2001-01-01T00:00:00+00:00' }),
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toEqual({ ...created, content: 'Changed my mind.', user: '/api/users/2' });
  });

  it('creates an article with and without a body, leaving a missing body out of the response', async () => {
    const app = await twoUsers();
    const withBody = await call(app, { method: 'POST', url: '/api/articles', payload: { title: 'On engines', body: 'The Analytical Engine weaves algebraic patterns.', owner: '/api/users/1' } });
    expect(withBody.status).toBe(201);
    expect(withBody.headers.location).toBe('/api/articles/1');
    expect(withBody.body).toEqual({
      '@context': '/api/contexts/Article',
      '@id': '/api/articles/1',
      '@type': 'Article',
      id: 1,
      title: 'On engines',
      body: 'The Analytical Engine weaves algebraic patterns.',
      owner: '/api/users/1',
    });

    const withoutBody = await call(app, { method: 'POST', url: '/api/articles', payload: { title: 'Nanoseconds', owner: '/api/users/2' } });
    expect(withoutBody.status).toBe(201);
    expect(withoutBody.body).toEqual({
      '@context': '/api/contexts/Article',
      '@id': '/api/articles/2',
      '@type': 'Article',
      id: 2,
      title: 'Nanoseconds',
      owner: '/api/users/2',
    });
  });

  it('refuses an article without an owner with a NotNull violation on owner', async () => {
    const app = await twoUsers();
    for (const payload of [{ title: 'Orphan' }, { title: 'Orphan', owner: null }]) {
      const response = await call(app, { method: 'POST', url: '/api/articles', payload });
      expect(response.status).toBe(400);
      expect(response.body.violations).toEqual([{ propertyPath: 'owner', message: 'This value should not be null.', code: NOT_NULL }]);
    }
  });

  it('empties the body of an article with a PUT that leaves it out, and sets it again with PATCH', async () => {
    const app = await twoUsers();
    await create(app, 'articles', { title: 'On engines', body: 'First draft.', owner: '/api/users/1' });

    const put = await call(app, { method: 'PUT', url: '/api/articles/1', payload: { title: 'On engines (revised)', owner: '/api/users/1' } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ '@context': '/api/contexts/Article', '@id': '/api/articles/1', '@type': 'Article', id: 1, title: 'On engines (revised)', owner: '/api/users/1' });

    const patch = await call(app, {
      method: 'PATCH',
      url: '/api/articles/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ body: 'Second draft.' }),
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toEqual({ ...put.body, body: 'Second draft.' });

    const cleared = await call(app, {
      method: 'PATCH',
      url: '/api/articles/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ body: null }),
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual(put.body);
  });

  it('deletes a comment with 204 and then answers 404 for it', async () => {
    const app = await twoUsers();
    await create(app, 'comments', { content: 'A fine book.', user: '/api/users/1' });
    expect((await call(app, { method: 'DELETE', url: '/api/comments/1' })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/comments/1' })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: '/api/users/1' })).body.comments).toEqual([]);
  });
});
