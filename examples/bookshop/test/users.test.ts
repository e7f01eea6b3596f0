/** Users end to end: a write-only hashed password, roles with a default, a write-only create-only flag, comments. */
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '@resource-api/core';
import { call, create, databases, useBookshop } from './support.js';

const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

describe.each(databases)('users on $name', (database) => {
  const bookshop = useBookshop(database);

  it('registers a user and never sends the password or the company flag back', async () => {
    const { app } = bookshop();
    const response = await call(app, {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'ada@example.com', plainPassword: 'correct horse battery', isCompany: true },
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/users/1');
    expect(response.body).toEqual({
      '@context': '/api/contexts/User',
      '@id': '/api/users/1',
      '@type': 'User',
      id: 1,
      email: 'ada@example.com',
      roles: ['ROLE_USER'],
      comments: [],
    });

    const read = await call(app, { method: 'GET', url: '/api/users/1' });
    expect(read.body).toEqual(response.body);
    expect(read.text).not.toContain('plainPassword');
    expect(read.text).not.toContain('scrypt$');
    const list = await call(app, { method: 'GET', url: '/api/users' });
    expect(list.body['hydra:member']).toEqual([
      { '@id': '/api/users/1', '@type': 'User', id: 1, email: 'ada@example.com', roles: ['ROLE_USER'], comments: [] },
    ]);
  });

  it('stores the password hashed with scrypt, never in clear', async () => {
    const { app, row } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });

    const stored = await row('user', 1);
    expect(stored!.password).toMatch(/^scrypt\$/);
    expect(stored!.password).not.toContain('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored!.password as string)).toBe(true);
    expect(await verifyPassword('wrong password', stored!.password as string)).toBe(false);
  });

  it('stores isCompany on create and defaults it to false', async () => {
    const { app, row } = bookshop();
    await create(app, 'users', { email: 'shop@example.com', plainPassword: 'correct horse battery', isCompany: true });
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });

    expect(Boolean((await row('user', 1))!.is_company)).toBe(true);
    expect(Boolean((await row('user', 2))!.is_company)).toBe(false);
  });

  it('takes the roles given on create', async () => {
    const { app } = bookshop();
    const user = await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery', roles: ['ROLE_USER', 'ROLE_ADMIN'] });
    expect(user.roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
  });

  it('replaces a user with PUT: roles left out go back to their default, the password and isCompany are kept', async () => {
    const { app, row } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery', roles: ['ROLE_ADMIN'], isCompany: true });
    const before = await row('user', 1);

    const response = await call(app, { method: 'PUT', url: '/api/users/1', payload: { email: 'ada.lovelace@example.com', isCompany: false } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/User',
      '@id': '/api/users/1',
      '@type': 'User',
      id: 1,
      email: 'ada.lovelace@example.com',
      roles: ['ROLE_USER'],
      comments: [],
    });
    const after = await row('user', 1);
    expect(after!.password).toBe(before!.password);
    expect(Boolean(after!.is_company)).toBe(true);
  });

  it('hashes a new password given with PUT', async () => {
    const { app, row } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });

    const response = await call(app, { method: 'PUT', url: '/api/users/1', payload: { email: 'ada@example.com', plainPassword: 'tr0ub4dor&3' } });
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('tr0ub4dor');
    const stored = (await row('user', 1))!.password as string;
    expect(stored).toMatch(/^scrypt\$/);
    expect(await verifyPassword('tr0ub4dor&3', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery', stored)).toBe(false);
  });

  it('changes only the roles with a merge-patch PATCH, keeping the password', async () => {
    const { app, row } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });
    const before = await row('user', 1);

    const response = await call(app, {
      method: 'PATCH',
      url: '/api/users/1',
      headers: MERGE_PATCH,
      payload: JSON.stringify({ roles: ['ROLE_USER', 'ROLE_ADMIN'] }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/User',
      '@id': '/api/users/1',
      '@type': 'User',
      id: 1,
      email: 'ada@example.com',
      roles: ['ROLE_USER', 'ROLE_ADMIN'],
      comments: [],
    });
    expect((await row('user', 1))!.password).toBe(before!.password);
  });

  it('refuses a registration without a password with a NotBlank violation on plainPassword', async () => {
    const { app } = bookshop();
    const response = await call(app, { method: 'POST', url: '/api/users', payload: { email: 'ada@example.com' } });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      { propertyPath: 'plainPassword', message: 'This value should not be blank.', code: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3' },
    ]);
    expect((await call(app, { method: 'GET', url: '/api/users' })).body['hydra:totalItems']).toBe(0);
  });

  it('lists the IRIs of the comments a user wrote', async () => {
    const { app } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });
    await create(app, 'users', { email: 'grace@example.com', plainPassword: 'correct horse battery' });
    await create(app, 'comments', { content: 'A fine book.', user: '/api/users/1' });
    await create(app, 'comments', { content: 'Not for me.', user: '/api/users/2' });
    await create(app, 'comments', { content: 'Read it twice.', user: '/api/users/1' });

    expect((await call(app, { method: 'GET', url: '/api/users/1' })).body.comments).toEqual(['/api/comments/1', '/api/comments/3']);
    expect((await call(app, { method: 'GET', url: '/api/users/2' })).body.comments).toEqual(['/api/comments/2']);
  });
});
