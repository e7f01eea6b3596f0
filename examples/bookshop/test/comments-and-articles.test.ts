/**
 * Comments and articles end to end: owners that are the caller, a read-only creation date, an optional text.
 * Users 2 (ada) and 3 (grace) register and log in; user 1 is the admin the bookshop starts with.
 */
import { describe, expect, it } from 'vitest';
import { bearer, call, create, databases, DATETIME, MERGE_PATCH, registerAndLogin, useBookshop } from './support.js';

const NOT_NULL = 'ad32d13f-c3d4-423b-909a-857b961eb720';

describe.each(databases)('comments and articles on $name', (database) => {
  const bookshop = useBookshop(database);

  async function twoUsers() {
    const { app } = bookshop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const grace = await registerAndLogin(app, 'grace@example.com');
    expect([ada.iri, grace.iri]).toEqual(['/api/users/2', '/api/users/3']);
    return { app, ada, grace };
  }

  it('creates a comment dated now, ignoring a creation date sent by the client', async () => {
    const { app, ada } = await twoUsers();
    const before = Date.now();
    const response = await call(app, {
      method: 'POST',
      url: '/api/comments',
      headers: ada.auth,
      payload: { content: 'A fine book.', user: ada.iri, createdAt: '2001-01-01T00:00:00+00:00' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/comments/1');
    expect(response.body).toEqual({
      '@context': '/api/contexts/Comment',
      '@id': '/api/comments/1',
      '@type': 'Comment',
      id: 1,
      content: 'A fine book.',
      user: '/api/users/2',
      createdAt: expect.any(String),
    });
    expect(response.body.createdAt).toMatch(DATETIME);
    expect(Date.parse(response.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect((await call(app, { method: 'GET', url: '/api/comments/1' })).body).toEqual(response.body);
  });

  it('gives a comment sent without a user its author as user, and refuses an anonymous one', async () => {
    const { app, grace } = await twoUsers();
    const response = await call(app, {
      method: 'POST',
      url: '/api/comments',
      headers: grace.auth,
      payload: { content: 'Who wrote this?' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ '@id': '/api/comments/1', content: 'Who wrote this?', user: '/api/users/3' });

    const anonymous = await call(app, {
      method: 'POST',
      url: '/api/comments',
      payload: { content: 'Who wrote this?', user: grace.iri },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.detail).toBe('Full authentication is required to access this resource.');
    expect((await call(app, { method: 'GET', url: '/api/comments' })).body['hydra:totalItems']).toBe(1);
  });

  it('keeps the creation date and the user of a comment through PUT and PATCH', async () => {
    const { app, ada, grace } = await twoUsers();
    const created = await create(app, 'comments', { content: 'A fine book.' }, ada.token);
    expect(created.user).toBe(ada.iri);

    // The user is always the author: a client value is ignored on update too.
    const put = await call(app, {
      method: 'PUT',
      url: '/api/comments/1',
      headers: ada.auth,
      payload: { content: 'A fine book, really.', user: grace.iri, createdAt: '2001-01-01T00:00:00+00:00' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...created, content: 'A fine book, really.' });

    const patch = await call(app, {
      method: 'PATCH',
      url: '/api/comments/1',
      headers: { ...ada.auth, ...MERGE_PATCH },
      payload: JSON.stringify({ content: 'Changed my mind.', user: grace.iri, createdAt: '2001-01-01T00:00:00+00:00' }),
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toEqual({ ...created, content: 'Changed my mind.' });
    expect((await call(app, { method: 'GET', url: '/api/comments/1' })).body).toEqual(patch.body);
  });

  it('creates an article with and without a body, leaving a missing body out of the response', async () => {
    const { app, ada, grace } = await twoUsers();
    const withBody = await call(app, {
      method: 'POST',
      url: '/api/articles',
      headers: ada.auth,
      payload: { title: 'On engines', body: 'The Analytical Engine weaves algebraic patterns.', owner: ada.iri },
    });
    expect(withBody.status).toBe(201);
    expect(withBody.headers.location).toBe('/api/articles/1');
    expect(withBody.body).toEqual({
      '@context': '/api/contexts/Article',
      '@id': '/api/articles/1',
      '@type': 'Article',
      id: 1,
      title: 'On engines',
      body: 'The Analytical Engine weaves algebraic patterns.',
      owner: '/api/users/2',
      published: false,
      createdAt: expect.stringMatching(DATETIME),
      updatedAt: expect.stringMatching(DATETIME),
    });

    const withoutBody = await call(app, {
      method: 'POST',
      url: '/api/articles',
      headers: grace.auth,
      payload: { title: 'Nanoseconds', owner: grace.iri },
    });
    expect(withoutBody.status).toBe(201);
    expect(withoutBody.body).toEqual({
      '@context': '/api/contexts/Article',
      '@id': '/api/articles/2',
      '@type': 'Article',
      id: 2,
      title: 'Nanoseconds',
      owner: '/api/users/3',
      published: false,
      createdAt: expect.stringMatching(DATETIME),
      updatedAt: expect.stringMatching(DATETIME),
    });
  });

  it('gives an article sent without an owner its author as owner, refuses a null owner and an anonymous article', async () => {
    const { app, grace } = await twoUsers();
    const response = await call(app, {
      method: 'POST',
      url: '/api/articles',
      headers: grace.auth,
      payload: { title: 'Orphan' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Article',
      '@id': '/api/articles/1',
      '@type': 'Article',
      id: 1,
      title: 'Orphan',
      owner: '/api/users/3',
      published: false,
      createdAt: expect.stringMatching(DATETIME),
      updatedAt: expect.stringMatching(DATETIME),
    });

    // A relation set to null where it is required is a NotNull violation.
    const nullOwner = await call(app, {
      method: 'POST',
      url: '/api/articles',
      headers: grace.auth,
      payload: { title: 'Orphan', owner: null },
    });
    expect(nullOwner.status).toBe(400);
    expect(nullOwner.body.violations).toEqual([
      { propertyPath: 'owner', message: 'This value should not be null.', code: NOT_NULL },
    ]);

    const anonymous = await call(app, { method: 'POST', url: '/api/articles', payload: { title: 'Orphan' } });
    expect(anonymous.status).toBe(401);
    expect((await call(app, { method: 'GET', url: '/api/articles' })).body['hydra:totalItems']).toBe(1);
  });

  it('empties the body of an article with a PUT that leaves it out, and sets it again with PATCH', async () => {
    const { app, ada } = await twoUsers();
    await create(app, 'articles', { title: 'On engines', body: 'First draft.', owner: ada.iri }, ada.token);

    const put = await call(app, {
      method: 'PUT',
      url: '/api/articles/1',
      headers: ada.auth,
      payload: { title: 'On engines (revised)', owner: ada.iri },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      '@context': '/api/contexts/Article',
      '@id': '/api/articles/1',
      '@type': 'Article',
      id: 1,
      title: 'On engines (revised)',
      owner: '/api/users/2',
      published: false,
      createdAt: expect.stringMatching(DATETIME),
      updatedAt: expect.stringMatching(DATETIME),
    });

    const patch = await call(app, {
      method: 'PATCH',
      url: '/api/articles/1',
      headers: { ...ada.auth, ...MERGE_PATCH },
      payload: JSON.stringify({ body: 'Second draft.' }),
    });
    expect(patch.status).toBe(200);
    // Every successful write moves updatedAt (article-timestamps.test.ts checks by how much).
    expect(patch.body).toEqual({ ...put.body, body: 'Second draft.', updatedAt: expect.stringMatching(DATETIME) });

    const cleared = await call(app, {
      method: 'PATCH',
      url: '/api/articles/1',
      headers: { ...ada.auth, ...MERGE_PATCH },
      payload: JSON.stringify({ body: null }),
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ ...put.body, updatedAt: expect.stringMatching(DATETIME) });
  });

  it('deletes a comment with 204 and then answers 404 for it', async () => {
    const { app, ada } = await twoUsers();
    await create(app, 'comments', { content: 'A fine book.' }, ada.token);
    expect((await call(app, { method: 'DELETE', url: '/api/comments/1', headers: ada.auth })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/comments/1' })).status).toBe(404);
    expect((await call(app, { method: 'DELETE', url: '/api/comments/1', headers: ada.auth })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: '/api/users/2', headers: bearer(ada.token) })).body.comments).toEqual(
      [],
    );
  });
});
