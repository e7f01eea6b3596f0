/** The contract's validation rules end to end, with Symfony's messages, on SQLite and PostgreSQL. */
import { describe, expect, it } from 'vitest';
import { bearer, call, databases, MERGE_PATCH, registerAndLogin, useBookshop } from './support.js';

const violation = (propertyPath: string, message: string) => ({ propertyPath, message, code: expect.any(String) });

describe.each(databases)('bookshop validation on $name', (database) => {
  const shop = useBookshop(database);
  /** A POST, anonymous unless a token is given. */
  const post = (url: string, payload: object, token?: string) =>
    call(shop().app, { method: 'POST', url, payload, ...(token ? { headers: bearer(token) } : {}) });
  /** A POST as the admin (categories, brands and products are admin-only writes). */
  const asAdmin = (url: string, payload: object) => post(url, payload, shop().adminToken);

  it('refuses a blank or too short book title, and a book without author, all at once', async () => {
    const response = await post('/api/books', { title: 'ab' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      '@context': '/api/contexts/ConstraintViolationList',
      '@type': 'ConstraintViolationList',
      'hydra:title': 'An error occurred',
      'hydra:description':
        'title: This value is too short. It should have 3 characters or more.\nauthor: This value should not be null.',
      violations: [
        violation('title', 'This value is too short. It should have 3 characters or more.'),
        violation('author', 'This value should not be null.'),
      ],
    });
    expect((await post('/api/books', { title: '', author: { name: '' } })).body.violations).toEqual([
      violation('title', 'This value should not be blank.'),
      violation('title', 'This value is too short. It should have 3 characters or more.'),
      violation('author.name', 'This value should not be blank.'),
    ]);
    expect((await post('/api/books', { title: 'Dune', author: null })).body.violations).toEqual([
      violation('author', 'This value should not be null.'),
    ]);
    expect((await call(shop().app, { method: 'GET', url: '/api/authors' })).body['hydra:totalItems']).toBe(0);
  });

  it('checks user e-mails (blank, invalid, already used) and the password length on registration', async () => {
    expect((await post('/api/users', { email: '', plainPassword: 'x' })).body.violations).toEqual([
      violation('email', 'This value should not be blank.'),
      violation('plainPassword', 'This value is too short. It should have 8 characters or more.'),
    ]);
    expect((await post('/api/users', { email: 'not-an-email', plainPassword: 'long enough' })).body.violations).toEqual(
      [violation('email', 'This value is not a valid email address.')],
    );
    expect((await post('/api/users', { email: 'ann@example.com', plainPassword: 'long enough' })).status).toBe(201);
    expect(
      (await post('/api/users', { email: 'ann@example.com', plainPassword: 'long enough' })).body.violations,
    ).toEqual([
      { propertyPath: 'email', message: 'This value is already used.', code: '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f' },
    ]);
    // The password rule is for creation: a later PATCH without it is fine (ann is user 2; user 1 is the admin).
    const patch = await call(shop().app, {
      method: 'PATCH',
      url: '/api/users/2',
      headers: { ...bearer(shop().adminToken), ...MERGE_PATCH },
      payload: '{"roles": ["ROLE_USER"]}',
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ id: 2, email: 'ann@example.com', roles: ['ROLE_USER'] });
  });

  it('runs the "create" group on comment POST and the "update" group on PUT and PATCH', async () => {
    const ann = await registerAndLogin(shop().app, 'ann@example.com', { plainPassword: 'long enough' });
    const blank = await post('/api/comments', { content: '', user: ann.iri }, ann.token);
    expect(blank.status).toBe(400);
    expect(blank.body.violations).toEqual([violation('content', 'This value should not be blank.')]);
    expect((await post('/api/comments', { content: 'short', user: ann.iri }, ann.token)).status).toBe(201);
    const put = await call(shop().app, {
      method: 'PUT',
      url: '/api/comments/1',
      headers: ann.auth,
      payload: { content: 'too short', user: ann.iri },
    });
    expect(put.status).toBe(400);
    expect(put.body.violations).toEqual([
      violation('content', 'This value is too short. It should have 10 characters or more.'),
    ]);
    const patch = await call(shop().app, {
      method: 'PATCH',
      url: '/api/comments/1',
      headers: { ...ann.auth, ...MERGE_PATCH },
      payload: '{"content": "long enough now"}',
    });
    expect(patch.status).toBe(200);
    expect(patch.body.content).toBe('long enough now');
  });

  it('refuses a negative price and blank names', async () => {
    expect((await asAdmin('/api/products', { name: '', price: -1 })).body.violations).toEqual([
      violation('name', 'This value should not be blank.'),
      violation('price', 'This value should be either positive or zero.'),
    ]);
    for (const url of ['/api/categories', '/api/brands', '/api/authors']) {
      const response = await asAdmin(url, { name: '' });
      expect(response.status, url).toBe(400);
      expect(response.body.violations, url).toEqual([violation('name', 'This value should not be blank.')]);
    }
    expect((await post('/api/authors', { name: '' })).body.violations).toEqual([
      violation('name', 'This value should not be blank.'),
    ]);
    expect((await asAdmin('/api/products', { name: 'Free', price: 0 })).status).toBe(201);
  });
});
