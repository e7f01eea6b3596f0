/**
 * The contract's "Beyond CRUD" → "Custom operations" and "Audit trail", end to end: `POST /api/articles/{id}/publish`,
 * `GET /api/authors/{id}/stats`, `POST /api/users/{id}/password`, and the `AuditEntry` trail that every successful
 * write of a Book or an Article adds to; then the three operations in OpenAPI, the Hydra documentation and GraphQL.
 * User 1 is the admin the bookshop starts with; ada (2) and grace (3) register and log in.
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  ADMIN,
  bearer,
  call,
  create,
  databases,
  DATETIME,
  MERGE_PATCH,
  PASSWORD,
  registerAndLogin,
  useBookshop,
} from './support.js';

const PUBLISH_DENIED = 'Only the owner can publish this article.';
const ALREADY_PUBLISHED = 'This article is already published.';
const NOT_CURRENT = "This value should be the user's current password.";
const TOO_SHORT = 'This value is too short. It should have 8 characters or more.';
const NEW_PASSWORD = 'a brand new secret';
/** Symfony's codes: UserPassword, Length (too short), NotBlank; a violation raised by app code without one: Callback's. */
const CODES = {
  userPassword: '2d2a8bb4-ddc8-45e4-9b0f-8670d3a3e290',
  tooShort: '9ff3fdc4-b214-49db-8718-39c315e33d45',
  notBlank: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3',
  custom: 'c2d1a3b0-6b9e-4f7a-9d2e-1f0c5a7e3b11',
};

const gql = (app: FastifyInstance, query: string, token?: string) =>
  call(app, { method: 'POST', url: '/graphql', payload: { query }, headers: token ? bearer(token) : {} });

/** The body of a ConstraintViolationList with these violations. */
const violationList = (...violations: { propertyPath: string; message: string; code: string }[]) => ({
  '@context': '/api/contexts/ConstraintViolationList',
  '@type': 'ConstraintViolationList',
  'hydra:title': 'An error occurred',
  'hydra:description': violations.map((v) => `${v.propertyPath}: ${v.message}`).join('\n'),
  violations,
});

describe.each(databases)('beyond CRUD on $name', (database) => {
  const shop = useBookshop(database);

  async function twoUsers() {
    const { app } = shop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const grace = await registerAndLogin(app, 'grace@example.com');
    expect([ada.iri, grace.iri]).toEqual(['/api/users/2', '/api/users/3']);
    return { app, ada, grace, admin: bearer(shop().adminToken) };
  }

  const get = (url: string, headers: Record<string, string> = {}) => call(shop().app, { method: 'GET', url, headers });
  const loginStatus = async (email: string, password: string) =>
    (await call(shop().app, { method: 'POST', url: '/api/auth', payload: { email, password } })).status;
  /** Every audit entry, in id order, as the admin reads them. */
  async function auditEntries(query = ''): Promise<Record<string, unknown>[]> {
    const response = await get(`/api/audit_entries?pagination=false&order[id]=asc${query}`, bearer(shop().adminToken));
    expect(response.status, response.text).toBe(200);
    return response.body['hydra:member'];
  }
  /** What matters of the audit entries: `[action, resource, user]` (a null user is left out of the body, as every null). */
  const trail = async () => (await auditEntries()).map((e) => [e.action, e.resource, e.user ?? null]);

  describe('POST /api/articles/{id}/publish', () => {
    it("publishes the owner's article: 200 with the article as GET renders it, published now; no body and {} alike", async () => {
      const { app, ada } = await twoUsers();
      await create(app, 'articles', { title: 'First' }, ada.token);
      await create(app, 'articles', { title: 'Second' }, ada.token);
      expect((await get('/api/articles/1')).body).toEqual({
        '@context': '/api/contexts/Article',
        '@id': '/api/articles/1',
        '@type': 'Article',
        id: 1,
        title: 'First',
        owner: ada.iri,
        published: false,
        createdAt: expect.stringMatching(DATETIME),
        updatedAt: expect.stringMatching(DATETIME),
      });

      const before = Date.now();
      const response = await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        '@context': '/api/contexts/Article',
        '@id': '/api/articles/1',
        '@type': 'Article',
        id: 1,
        title: 'First',
        owner: ada.iri,
        published: true,
        publishedAt: expect.stringMatching(DATETIME),
        createdAt: expect.stringMatching(DATETIME),
        updatedAt: expect.stringMatching(DATETIME),
      });
      expect(Date.parse(response.body.publishedAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(response.body.publishedAt)).toBeLessThanOrEqual(Date.now() + 1000);
      expect((await get('/api/articles/1')).body).toEqual(response.body);

      // `{}` is a body the operation accepts too (it reads none).
      const withEmptyObject = await call(app, {
        method: 'POST',
        url: '/api/articles/2/publish',
        headers: ada.auth,
        payload: {},
      });
      expect(withEmptyObject.status, withEmptyObject.text).toBe(200);
      expect(withEmptyObject.body).toMatchObject({
        '@id': '/api/articles/2',
        published: true,
        publishedAt: expect.stringMatching(DATETIME),
      });
      expect((await get('/api/articles/2')).body).toEqual(withEmptyObject.body);
    });

    it("lets an admin publish anyone's article", async () => {
      const { app, ada, admin } = await twoUsers();
      await create(app, 'articles', { title: 'Ada writes' }, ada.token);
      const response = await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: admin });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ '@id': '/api/articles/1', owner: ada.iri, published: true });
    });

    it('refuses anyone else (403 with its message), anonymous callers (401, even for a missing article) and a missing article (404 after authentication), changing nothing', async () => {
      const { app, ada, grace } = await twoUsers();
      await create(app, 'articles', { title: 'Ada writes' }, ada.token);
      const unpublished = (await get('/api/articles/1')).body;

      const other = await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: grace.auth });
      expect(other.status).toBe(403);
      expect(other.body).toMatchObject({
        '@type': 'hydra:Error',
        status: 403,
        detail: PUBLISH_DENIED,
        'hydra:description': PUBLISH_DENIED,
      });

      const anonymous = await call(app, { method: 'POST', url: '/api/articles/1/publish' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.detail).toBe('Full authentication is required to access this resource.');
      expect((await call(app, { method: 'POST', url: '/api/articles/99/publish' })).status).toBe(401);

      const missing = await call(app, { method: 'POST', url: '/api/articles/99/publish', headers: grace.auth });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ '@type': 'hydra:Error', status: 404 });
      expect((await call(app, { method: 'POST', url: '/api/articles/abc/publish', headers: ada.auth })).status).toBe(
        404,
      );

      expect((await get('/api/articles/1')).body).toEqual(unpublished);
    });

    it('answers 400 on `published` for an article published already, and changes nothing', async () => {
      const { app, ada, admin } = await twoUsers();
      await create(app, 'articles', { title: 'Once only' }, ada.token);
      expect((await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth })).status).toBe(200);
      const published = (await get('/api/articles/1')).body;
      const row = await shop().row('article', 1);

      for (const headers of [ada.auth, admin]) {
        const again = await call(app, { method: 'POST', url: '/api/articles/1/publish', headers });
        expect(again.status).toBe(400);
        expect(again.headers['content-type']).toBe('application/ld+json; charset=utf-8');
        expect(again.body).toEqual(
          violationList({ propertyPath: 'published', message: ALREADY_PUBLISHED, code: CODES.custom }),
        );
      }
      expect((await get('/api/articles/1')).body).toEqual(published);
      expect(await shop().row('article', 1)).toEqual(row);
    });

    it('ignores published and publishedAt on POST, PUT and PATCH: only publish writes them', async () => {
      const { app, ada } = await twoUsers();
      const created = await create(
        app,
        'articles',
        { title: 'Sneaky', published: true, publishedAt: '2001-01-01T00:00:00+00:00' },
        ada.token,
      );
      expect(created).toEqual({
        '@context': '/api/contexts/Article',
        '@id': '/api/articles/1',
        '@type': 'Article',
        id: 1,
        title: 'Sneaky',
        owner: ada.iri,
        published: false,
        createdAt: expect.stringMatching(DATETIME),
        updatedAt: expect.stringMatching(DATETIME),
      });

      const put = await call(app, {
        method: 'PUT',
        url: '/api/articles/1',
        headers: ada.auth,
        payload: { title: 'Sneaky', published: true, publishedAt: '2001-01-01T00:00:00+00:00' },
      });
      expect(put.status, put.text).toBe(200);
      expect(put.body).toMatchObject({ published: false });
      expect(put.body).not.toHaveProperty('publishedAt');
      const patch = await call(app, {
        method: 'PATCH',
        url: '/api/articles/1',
        headers: { ...ada.auth, ...MERGE_PATCH },
        payload: { published: true, publishedAt: '2001-01-01T00:00:00+00:00' },
      });
      expect(patch.status, patch.text).toBe(200);
      // Only updatedAt moved (the PATCH succeeded, changing nothing a client may write).
      expect(patch.body).toEqual({ ...created, updatedAt: expect.stringMatching(DATETIME) });

      // Published, it stays so: a PUT (a full replacement) or a PATCH cannot take it back.
      const publishedAt = (await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth })).body
        .publishedAt;
      const replaced = await call(app, {
        method: 'PUT',
        url: '/api/articles/1',
        headers: ada.auth,
        payload: { title: 'Replaced', published: false, publishedAt: null },
      });
      expect(replaced.status, replaced.text).toBe(200);
      expect(replaced.body).toMatchObject({ title: 'Replaced', published: true, publishedAt });
      const patched = await call(app, {
        method: 'PATCH',
        url: '/api/articles/1',
        headers: { ...ada.auth, ...MERGE_PATCH },
        payload: { published: false, publishedAt: '2001-01-01T00:00:00+00:00' },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({ title: 'Replaced', published: true, publishedAt });
    });
  });

  describe('GET /api/authors/{id}/stats', () => {
    it("answers an AuthorStats, publicly: the number of the author's books and the title of the latest", async () => {
      const { app } = shop();
      await create(app, 'authors', { name: 'Frank Herbert' });
      await create(app, 'authors', { name: 'Ursula K. Le Guin' });
      for (const title of ['Dune', 'Children of Dune']) await create(app, 'books', { title, author: '/api/authors/1' });
      await create(app, 'books', { title: 'The Dispossessed', author: '/api/authors/2' });
      await create(app, 'books', { title: 'Dune Messiah', author: '/api/authors/1' });

      const response = await get('/api/authors/1/stats');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/ld+json; charset=utf-8');
      expect(response.body).toEqual({
        '@context': '/api/contexts/AuthorStats',
        '@id': '/api/authors/1/stats',
        '@type': 'AuthorStats',
        bookCount: 3,
        latestBookTitle: 'Dune Messiah',
      });
      expect((await get('/api/authors/2/stats')).body).toEqual({
        '@context': '/api/contexts/AuthorStats',
        '@id': '/api/authors/2/stats',
        '@type': 'AuthorStats',
        bookCount: 1,
        latestBookTitle: 'The Dispossessed',
      });
      expect((await get('/api/authors/1/stats', { accept: 'application/json' })).body).toEqual({
        bookCount: 3,
        latestBookTitle: 'Dune Messiah',
      });

      // Its context resolves.
      const context = await get('/api/contexts/AuthorStats');
      expect(context.status).toBe(200);
      expect(context.body['@context']).toMatchObject({
        bookCount: 'AuthorStats/bookCount',
        latestBookTitle: 'AuthorStats/latestBookTitle',
      });
    });

    it('has no latest title for an author without books (null, left out of the body as every null value of the API)', async () => {
      await create(shop().app, 'authors', { name: 'Nobody Yet' });
      const response = await get('/api/authors/1/stats');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        '@context': '/api/contexts/AuthorStats',
        '@id': '/api/authors/1/stats',
        '@type': 'AuthorStats',
        bookCount: 0,
      });
      expect(response.body.latestBookTitle ?? null).toBeNull();
    });

    it('answers 404 for a missing author', async () => {
      for (const url of ['/api/authors/1/stats', '/api/authors/abc/stats']) {
        const response = await get(url);
        expect(response.status).toBe(404);
        expect(response.body).toMatchObject({ '@type': 'hydra:Error', status: 404 });
      }
    });
  });

  describe('POST /api/users/{id}/password', () => {
    const change = (
      app: FastifyInstance,
      id: number,
      payload: Record<string, unknown>,
      headers: Record<string, string> = {},
    ) => call(app, { method: 'POST', url: `/api/users/${id}/password`, headers, payload });

    it("changes the caller's own password: 204 without a body, the old password no longer logs in, the new one does", async () => {
      const { app, ada } = await twoUsers();
      const response = await change(app, ada.id, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, ada.auth);
      expect(response.status, response.text).toBe(204);
      expect(response.text).toBe('');
      expect(await loginStatus(ada.email, PASSWORD)).toBe(401);
      expect(await loginStatus(ada.email, NEW_PASSWORD)).toBe(200);
      // Stored hashed, as every password.
      const row = await shop().row('user', ada.id);
      expect(row?.password).not.toBe(NEW_PASSWORD);
      expect(String(row?.password)).not.toContain(NEW_PASSWORD);
    });

    it('refuses anyone but the user themself: admins and other users 403, anonymous callers 401; the password stays', async () => {
      const { app, ada, grace, admin } = await twoUsers();
      const body = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
      expect((await change(app, ada.id, body, admin)).status).toBe(403);
      expect(
        (await change(app, ada.id, { currentPassword: ADMIN.password, newPassword: NEW_PASSWORD }, admin)).status,
      ).toBe(403);
      const other = await change(app, ada.id, body, grace.auth);
      expect(other.status).toBe(403);
      expect(other.body).toMatchObject({ '@type': 'hydra:Error', status: 403 });
      const anonymous = await change(app, ada.id, body);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.detail).toBe('Full authentication is required to access this resource.');
      expect((await change(app, 99, body)).status).toBe(401);
      expect(await loginStatus(ada.email, PASSWORD)).toBe(200);
      expect(await loginStatus(ada.email, NEW_PASSWORD)).toBe(401);
    });

    it('answers violations for a wrong current password and a new one that is blank or too short, never echoing a value', async () => {
      const { app, ada } = await twoUsers();
      const wrong = await change(
        app,
        ada.id,
        { currentPassword: 'not my password', newPassword: NEW_PASSWORD },
        ada.auth,
      );
      expect(wrong.status).toBe(400);
      expect(wrong.body).toEqual(
        violationList({ propertyPath: 'currentPassword', message: NOT_CURRENT, code: CODES.userPassword }),
      );

      const short = await change(app, ada.id, { currentPassword: PASSWORD, newPassword: 'short1' }, ada.auth);
      expect(short.status).toBe(400);
      expect(short.body).toEqual(
        violationList({ propertyPath: 'newPassword', message: TOO_SHORT, code: CODES.tooShort }),
      );

      const both = await change(app, ada.id, { currentPassword: 'guess-guess', newPassword: 'tiny' }, ada.auth);
      expect(both.body.violations).toEqual([
        { propertyPath: 'currentPassword', message: NOT_CURRENT, code: CODES.userPassword },
        { propertyPath: 'newPassword', message: TOO_SHORT, code: CODES.tooShort },
      ]);
      const blank = await change(app, ada.id, { currentPassword: PASSWORD, newPassword: '' }, ada.auth);
      expect(blank.body.violations).toContainEqual({
        propertyPath: 'newPassword',
        message: 'This value should not be blank.',
        code: CODES.notBlank,
      });

      for (const response of [wrong, short, both, blank]) {
        for (const secret of [PASSWORD, NEW_PASSWORD, 'not my password', 'short1', 'guess-guess', 'tiny'])
          expect(response.text).not.toContain(secret);
      }
      expect(await loginStatus(ada.email, PASSWORD)).toBe(200);
      expect(await loginStatus(ada.email, NEW_PASSWORD)).toBe(401);
    });

    it('ignores unknown keys in the body (an e-mail, roles, plainPassword)', async () => {
      const { app, ada } = await twoUsers();
      const before = await shop().row('user', ada.id);
      const response = await change(
        app,
        ada.id,
        {
          currentPassword: PASSWORD,
          newPassword: NEW_PASSWORD,
          email: 'mallory@example.com',
          roles: ['ROLE_ADMIN'],
          plainPassword: 'yet another one',
          id: 1,
        },
        ada.auth,
      );
      expect(response.status, response.text).toBe(204);
      const after = await shop().row('user', ada.id);
      // Only the password changed, and with it the instant the user's tokens are good from (the earlier ones are refused).
      expect({ ...after, password: undefined, resource_api_tokens_valid_after: undefined }).toEqual({
        ...before,
        password: undefined,
        resource_api_tokens_valid_after: undefined,
      });
      expect(Number(after!.resource_api_tokens_valid_after)).toBeGreaterThan(
        Number(before!.resource_api_tokens_valid_after),
      );
      expect(await loginStatus(ada.email, NEW_PASSWORD)).toBe(200);
      expect(await loginStatus(ada.email, 'yet another one')).toBe(401);
      expect(await loginStatus('mallory@example.com', NEW_PASSWORD)).toBe(401);
      expect(await loginStatus(ADMIN.email, ADMIN.password)).toBe(200);
    });
  });

  describe('the audit trail', () => {
    it('adds one entry per successful write of a book or an article, with the action, the item and the caller', async () => {
      const { app, ada, admin } = await twoUsers();
      // Anonymous writes of books (no access rule): no user.
      await create(app, 'books', { title: 'Dune', author: { name: 'Frank Herbert' } });
      expect(
        (
          await call(app, {
            method: 'PUT',
            url: '/api/books/1',
            headers: ada.auth,
            payload: { title: 'Dune (1965)', author: '/api/authors/1' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(app, {
            method: 'PATCH',
            url: '/api/books/1',
            headers: { ...admin, ...MERGE_PATCH },
            payload: { title: 'Dune' },
          })
        ).status,
      ).toBe(200);
      await create(app, 'articles', { title: 'On Dune' }, ada.token);
      expect(
        (
          await call(app, {
            method: 'PUT',
            url: '/api/articles/1',
            headers: ada.auth,
            payload: { title: 'On Dune, again' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(app, {
            method: 'PATCH',
            url: '/api/articles/1',
            headers: { ...ada.auth, ...MERGE_PATCH },
            payload: { body: 'Spice.' },
          })
        ).status,
      ).toBe(200);
      expect((await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth })).status).toBe(200);
      expect((await call(app, { method: 'DELETE', url: '/api/articles/1', headers: admin })).status).toBe(204);
      expect((await call(app, { method: 'DELETE', url: '/api/books/1' })).status).toBe(204);
      // Other resources are not audited: the author created with the book above, a comment, an author alone.
      await create(app, 'authors', { name: 'Not audited' });
      await create(app, 'comments', { content: 'Not audited either.' }, ada.token);

      expect(await trail()).toEqual([
        ['create', '/api/books/1', null],
        ['update', '/api/books/1', ada.iri],
        ['update', '/api/books/1', ADMIN.iri],
        ['create', '/api/articles/1', ada.iri],
        ['update', '/api/articles/1', ada.iri],
        ['update', '/api/articles/1', ada.iri],
        ['publish', '/api/articles/1', ada.iri],
        ['delete', '/api/articles/1', ADMIN.iri],
        ['delete', '/api/books/1', null],
      ]);
      const entries = await auditEntries();
      for (const entry of entries) expect(entry.at).toMatch(DATETIME);
      const times = entries.map((entry) => Date.parse(entry.at as string));
      expect(times).toEqual([...times].sort((a, b) => a - b));

      // An entry as GET renders it.
      const item = await get('/api/audit_entries/2', admin);
      expect(item.status).toBe(200);
      expect(item.body).toEqual({
        '@context': '/api/contexts/AuditEntry',
        '@id': '/api/audit_entries/2',
        '@type': 'AuditEntry',
        id: 2,
        action: 'update',
        resource: '/api/books/1',
        user: ada.iri,
        at: expect.stringMatching(DATETIME),
      });
      expect((await get('/api/audit_entries/1', { ...admin, accept: 'application/json' })).body).toEqual({
        id: 1,
        action: 'create',
        resource: '/api/books/1',
        at: expect.stringMatching(DATETIME),
      });
    });

    it('audits writes made through GraphQL as well', async () => {
      const { app, ada } = await twoUsers();
      const created = await gql(
        app,
        'mutation { createBook(input: { title: "Dune", author: { name: "Frank Herbert" } }) { book { id } } }',
        ada.token,
      );
      expect(created.body.errors).toBeUndefined();
      expect(
        (await gql(app, 'mutation { deleteBook(input: { id: "/api/books/1" }) { book { id } } }')).body.errors,
      ).toBeUndefined();
      expect(await trail()).toEqual([
        ['create', '/api/books/1', ada.iri],
        ['delete', '/api/books/1', null],
      ]);
    });

    it('adds no entry for a refused or failed write (400, 401, 403, 404, 412)', async () => {
      const { app, ada, grace, admin } = await twoUsers();
      await create(app, 'books', { title: 'Dune', author: { name: 'Frank Herbert' } });
      await create(app, 'articles', { title: 'Ada writes' }, ada.token);
      const before = await trail();
      expect(before).toEqual([
        ['create', '/api/books/1', null],
        ['create', '/api/articles/1', ada.iri],
      ]);

      const refused: [string, string, Record<string, string>, Record<string, unknown> | undefined, number][] = [
        ['POST', '/api/books', {}, { title: 'ab', author: '/api/authors/1' }, 400],
        ['POST', '/api/books', {}, { title: 'Dune', author: '/api/authors/99' }, 400],
        ['PUT', '/api/books/1', {}, { title: '' }, 400],
        ['PATCH', '/api/books/1', MERGE_PATCH, { title: 'x' }, 400],
        ['PUT', '/api/books/99', {}, { title: 'Missing', author: '/api/authors/1' }, 404],
        ['DELETE', '/api/books/99', {}, undefined, 404],
        // If-Match that no longer holds: 412.
        [
          'PUT',
          '/api/books/1',
          { 'if-match': '"not-the-current-tag"' },
          { title: 'Dune', author: '/api/authors/1' },
          412,
        ],
        ['DELETE', '/api/articles/1', { ...ada.auth, 'if-match': '"not-the-current-tag"' }, undefined, 412],
        ['POST', '/api/articles', {}, { title: 'Anonymous' }, 401],
        ['POST', '/api/articles', ada.auth, { title: '' }, 400],
        ['POST', '/api/articles', ada.auth, { title: 'Not mine', owner: grace.iri }, 403],
        ['PUT', '/api/articles/1', grace.auth, { title: 'Taken' }, 403],
        ['PATCH', '/api/articles/1', { ...admin, ...MERGE_PATCH }, { title: 'Admin is not the owner' }, 403],
        ['PATCH', '/api/articles/1', { ...ada.auth, ...MERGE_PATCH }, { title: '' }, 400],
        ['DELETE', '/api/articles/1', {}, undefined, 401],
        ['DELETE', '/api/articles/1', grace.auth, undefined, 403],
        ['DELETE', '/api/articles/99', admin, undefined, 404],
        ['POST', '/api/articles/1/publish', {}, undefined, 401],
        ['POST', '/api/articles/1/publish', grace.auth, undefined, 403],
        ['POST', '/api/articles/99/publish', ada.auth, undefined, 404],
      ];
      for (const [method, url, headers, payload, status] of refused) {
        const response = await call(app, { method, url, headers, ...(payload === undefined ? {} : { payload }) });
        expect(response.status, `${method} ${url}: ${response.text}`).toBe(status);
      }
      expect(await trail()).toEqual(before);

      // An article published already: the second publish is a 400 and adds nothing.
      expect((await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth })).status).toBe(200);
      expect((await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth })).status).toBe(400);
      expect(await trail()).toEqual([...before, ['publish', '/api/articles/1', ada.iri]]);
    });

    it('is read by ROLE_ADMIN only, through GET only', async () => {
      const { app, ada } = await twoUsers();
      await create(app, 'books', { title: 'Dune', author: { name: 'Frank Herbert' } });
      for (const url of ['/api/audit_entries', '/api/audit_entries/1']) {
        expect((await get(url)).status).toBe(401);
        const user = await get(url, ada.auth);
        expect(user.status).toBe(403);
        expect(user.body).toMatchObject({ '@type': 'hydra:Error', status: 403 });
        expect((await get(url, bearer(shop().adminToken))).status).toBe(200);
      }
      expect((await get('/api/audit_entries/99', bearer(shop().adminToken))).status).toBe(404);
      const admin = bearer(shop().adminToken);
      expect(
        (
          await call(app, {
            method: 'POST',
            url: '/api/audit_entries',
            headers: admin,
            payload: { action: 'create', resource: '/api/books/9', at: '2001-01-01T00:00:00+00:00' },
          })
        ).status,
      ).toBe(405);
      for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
        const headers = method === 'PATCH' ? { ...admin, ...MERGE_PATCH } : admin;
        expect(
          (
            await call(app, {
              method,
              url: '/api/audit_entries/1',
              headers,
              ...(method === 'DELETE' ? {} : { payload: { action: 'forged' } }),
            })
          ).status,
          method,
        ).toBe(405);
      }
      expect(await trail()).toEqual([['create', '/api/books/1', null]]);
      // The GraphQL API applies the same rule.
      expect((await gql(app, '{ auditEntries { totalCount } }')).body.errors[0].extensions.status).toBe(401);
      expect((await gql(app, '{ auditEntries { totalCount } }', ada.token)).body.errors[0].extensions.status).toBe(403);
      expect((await gql(app, '{ auditEntries { totalCount } }', shop().adminToken)).body).toEqual({
        data: { auditEntries: { totalCount: 1 } },
      });
    });

    it('filters by resource (exact) and action (exact), and orders by id', async () => {
      const { app, ada } = await twoUsers();
      const author = await create(app, 'authors', { name: 'Frank Herbert' });
      for (let i = 1; i <= 10; i++) await create(app, 'books', { title: `Book ${i}`, author: author['@id'] });
      expect(
        (
          await call(app, {
            method: 'PATCH',
            url: '/api/books/1',
            headers: MERGE_PATCH,
            payload: { title: 'Book one' },
          })
        ).status,
      ).toBe(200);
      await create(app, 'articles', { title: 'Ada writes' }, ada.token);
      expect((await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth })).status).toBe(200);

      // Exact: /api/books/1 is not /api/books/10.
      expect((await auditEntries('&resource=/api/books/1')).map((e) => [e.id, e.action])).toEqual([
        [1, 'create'],
        [11, 'update'],
      ]);
      expect((await auditEntries('&resource=/api/books')).length).toBe(0);
      expect((await auditEntries('&action=publish')).map((e) => [e.id, e.resource])).toEqual([[13, '/api/articles/1']]);
      expect((await auditEntries('&action=pub')).length).toBe(0);
      expect((await auditEntries('&action=update&resource=/api/books/1')).map((e) => e.id)).toEqual([11]);

      const admin = bearer(shop().adminToken);
      const desc = await get('/api/audit_entries?order[id]=desc', admin);
      expect(desc.body['hydra:totalItems']).toBe(13);
      expect(desc.body['hydra:member'].map((e: { id: number }) => e.id)).toEqual([13, 12, 11, 10, 9, 8, 7, 6, 5, 4]);
      expect(desc.body['hydra:view']).toMatchObject({ 'hydra:next': '/api/audit_entries?order%5Bid%5D=desc&page=2' });
      const asc = await get('/api/audit_entries?order[id]=asc&page=2', admin);
      expect(asc.body['hydra:member'].map((e: { id: number }) => e.id)).toEqual([11, 12, 13]);
      expect(asc.body['hydra:search']['hydra:mapping'].map((m: { variable: string }) => m.variable)).toEqual([
        'resource',
        'resource[]',
        'action',
        'action[]',
        'order[id]',
      ]);
    });
  });

  describe('the custom operations in the documents', () => {
    it('are in the OpenAPI document with an operationId and their request and response schemas', async () => {
      const document = (await get('/api/docs.json')).body;
      const publish = document.paths['/articles/{id}/publish'].post;
      expect(publish.operationId).toBe('api_articles_id_publish_post');
      expect(publish.requestBody).toBeUndefined();
      expect(publish.responses['200'].content['application/ld+json'].schema).toEqual({
        $ref: '#/components/schemas/Article.jsonld',
      });
      expect(Object.keys(publish.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));

      const stats = document.paths['/authors/{id}/stats'].get;
      expect(stats.operationId).toBe('api_authors_id_stats_get');
      expect(stats.responses['200'].content['application/ld+json'].schema).toEqual({
        $ref: '#/components/schemas/AuthorStats.jsonld',
      });
      expect(Object.keys(stats.responses)).toContain('404');
      expect(document.components.schemas['AuthorStats.jsonld'].properties).toMatchObject({
        bookCount: { type: 'integer' },
        latestBookTitle: { type: ['string', 'null'] },
      });
      expect(document.components.schemas['AuthorStats.jsonld'].properties).not.toHaveProperty('id');

      const password = document.paths['/users/{id}/password'].post;
      expect(password.operationId).toBe('api_users_id_password_post');
      expect(password.requestBody.content['application/ld+json'].schema).toEqual({
        $ref: '#/components/schemas/ChangePassword',
      });
      expect(document.components.schemas.ChangePassword).toMatchObject({
        type: 'object',
        properties: {
          currentPassword: { type: 'string', writeOnly: true },
          newPassword: { type: 'string', writeOnly: true },
        },
        required: ['currentPassword', 'newPassword'],
      });
      expect(Object.keys(password.responses)).toEqual(expect.arrayContaining(['204', '400', '401', '403', '404']));
      expect(password.responses['204'].content).toBeUndefined();

      for (const path of ['/audit_entries', '/audit_entries/{id}'])
        expect(Object.keys(document.paths[path])).toEqual(expect.arrayContaining(['get']));
      expect(document.paths['/audit_entries'].post).toBeUndefined();
      expect(document.paths['/audit_entries/{id}'].put).toBeUndefined();
    });

    it('are hydra:operations of their classes in the Hydra documentation, with method, expects and returns', async () => {
      const documentation = (await get('/api/docs.jsonld')).body;
      const operation = (className: string, title: string) => {
        const found = documentation['hydra:supportedClass'].find(
          (c: { '@id': string }) => c['@id'] === `#${className}`,
        );
        return found?.['hydra:supportedOperation'].find((o: { 'hydra:title': string }) => o['hydra:title'] === title);
      };
      // No body: it expects nothing (owl:Nothing), as API Platform documents an operation without input.
      expect(operation('Article', 'api_articles_id_publish_post')).toMatchObject({
        'hydra:method': 'POST',
        'hydra:expects': { '@id': 'owl:Nothing' },
        'hydra:returns': { '@id': '#Article' },
      });
      expect(operation('Author', 'api_authors_id_stats_get')).toMatchObject({
        'hydra:method': 'GET',
        'hydra:returns': { '@id': '#AuthorStats' },
      });
      expect(operation('User', 'api_users_id_password_post')).toMatchObject({
        'hydra:method': 'POST',
        'hydra:expects': { '@id': '#ChangePassword' },
        'hydra:returns': { '@id': 'owl:Nothing' },
      });
      const classes = documentation['hydra:supportedClass'].map((c: { '@id': string }) => c['@id']);
      expect(classes).toEqual(expect.arrayContaining(['#AuthorStats', '#ChangePassword', '#AuditEntry']));
    });

    it('are in GraphQL with the same rules: publishArticle, authorStats, changePasswordUser', async () => {
      const { app, ada, grace, admin } = await twoUsers();
      await create(app, 'articles', { title: 'Ada writes' }, ada.token);
      await create(app, 'books', { title: 'Dune', author: { name: 'Frank Herbert' } });
      await create(app, 'books', { title: 'Dune Messiah', author: '/api/authors/1' });

      const publish = 'mutation { publishArticle(input: { id: "/api/articles/1" }) { article { id published } } }';
      expect((await gql(app, publish)).body.errors[0].extensions.status).toBe(401);
      const denied = await gql(app, publish, grace.token);
      expect(denied.body.errors[0].extensions.status).toBe(403);
      expect(denied.body.errors[0].message).toBe(PUBLISH_DENIED);
      expect((await gql(app, publish, ada.token)).body).toEqual({
        data: { publishArticle: { article: { id: '/api/articles/1', published: true } } },
      });
      const again = await gql(app, publish, ada.token);
      expect(again.body.errors[0].extensions).toMatchObject({
        status: 400,
        violations: [{ propertyPath: 'published', message: ALREADY_PUBLISHED }],
      });
      expect(
        (await gql(app, 'mutation { publishArticle(input: { id: "/api/articles/99" }) { article { id } } }', ada.token))
          .body.errors[0].extensions.status,
      ).toBe(404);

      expect((await gql(app, '{ authorStats(id: "/api/authors/1") { bookCount latestBookTitle } }')).body).toEqual({
        data: { authorStats: { bookCount: 2, latestBookTitle: 'Dune Messiah' } },
      });
      expect((await gql(app, '{ authorStats(id: "/api/authors/99") { bookCount } }')).body.data.authorStats).toBeNull();

      const changePassword = (id: number, current: string, next: string) =>
        `mutation { changePasswordUser(input: { id: "/api/users/${id}", currentPassword: "${current}", newPassword: "${next}" }) { clientMutationId } }`;
      expect((await gql(app, changePassword(ada.id, PASSWORD, NEW_PASSWORD))).body.errors[0].extensions.status).toBe(
        401,
      );
      expect(
        (await gql(app, changePassword(ada.id, PASSWORD, NEW_PASSWORD), grace.token)).body.errors[0].extensions.status,
      ).toBe(403);
      expect(
        (await gql(app, changePassword(ada.id, PASSWORD, NEW_PASSWORD), admin.authorization.slice(7))).body.errors[0]
          .extensions.status,
      ).toBe(403);
      const wrong = await gql(app, changePassword(ada.id, 'not my password', 'short'), ada.token);
      expect(wrong.body.errors[0].extensions).toMatchObject({
        status: 400,
        violations: [
          { propertyPath: 'currentPassword', message: NOT_CURRENT },
          { propertyPath: 'newPassword', message: TOO_SHORT },
        ],
      });
      expect(wrong.text).not.toContain('not my password');
      const changed = await gql(app, changePassword(ada.id, PASSWORD, NEW_PASSWORD), ada.token);
      expect(changed.body.errors).toBeUndefined();
      expect(await loginStatus(ada.email, PASSWORD)).toBe(401);
      expect(await loginStatus(ada.email, NEW_PASSWORD)).toBe(200);
      expect(changed.text).not.toContain(NEW_PASSWORD);
    });
  });
});
