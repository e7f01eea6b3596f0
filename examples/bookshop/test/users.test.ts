/**
 * Users end to end: a write-only hashed password, roles with a default (seen and written by admins only), a write-only
 * create-only flag, comments. User 1 is the admin the bookshop starts with; registered users get ids from 2 on.
 */
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '@resource-api/core';
import {
  ADMIN,
  bearer,
  call,
  create,
  databases,
  login,
  MERGE_PATCH,
  registerAndLogin,
  storedRoles,
  useBookshop,
} from './support.js';

const ADMIN_MEMBER = {
  '@id': '/api/users/1',
  '@type': 'User',
  id: 1,
  email: ADMIN.email,
  roles: ['ROLE_USER', 'ROLE_SUPER_ADMIN'],
  comments: [],
};

describe.each(databases)('users on $name', (database) => {
  const bookshop = useBookshop(database);

  it('registers a user and never sends the password, the company flag or (to non-admins) the roles back', async () => {
    const { app, adminToken } = bookshop();
    const response = await call(app, {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'ada@example.com', plainPassword: 'correct horse battery', isCompany: true },
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/users/2');
    const ada = {
      '@context': '/api/contexts/User',
      '@id': '/api/users/2',
      '@type': 'User',
      id: 2,
      email: 'ada@example.com',
      comments: [],
    };
    expect(response.body).toEqual(ada);

    const token = await login(app, 'ada@example.com', 'correct horse battery');
    const read = await call(app, { method: 'GET', url: '/api/users/2', headers: bearer(token) });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(ada);
    expect(read.text).not.toContain('plainPassword');
    expect(read.text).not.toContain('scrypt$');
    expect(read.text).not.toContain('isCompany');

    // Admins see the roles: a company got ROLE_COMPANY on registration.
    const byAdmin = await call(app, { method: 'GET', url: '/api/users/2', headers: bearer(adminToken) });
    expect(byAdmin.body).toEqual({ ...ada, roles: ['ROLE_USER', 'ROLE_COMPANY'] });
    const list = await call(app, { method: 'GET', url: '/api/users', headers: bearer(adminToken) });
    expect(list.status).toBe(200);
    expect(list.body['hydra:member']).toEqual([
      ADMIN_MEMBER,
      {
        '@id': '/api/users/2',
        '@type': 'User',
        id: 2,
        email: 'ada@example.com',
        roles: ['ROLE_USER', 'ROLE_COMPANY'],
        comments: [],
      },
    ]);
    expect(list.text).not.toContain('scrypt$');
  });

  it('stores the password hashed with scrypt, never in clear', async () => {
    const { app, row } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });

    const stored = await row('user', 2);
    expect(stored!.email).toBe('ada@example.com');
    expect(stored!.password).toMatch(/^scrypt\$/);
    expect(stored!.password).not.toContain('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored!.password as string)).toBe(true);
    expect(await verifyPassword('wrong password', stored!.password as string)).toBe(false);
  });

  it('stores isCompany on create and defaults it to false', async () => {
    const { app, row } = bookshop();
    await create(app, 'users', { email: 'shop@example.com', plainPassword: 'correct horse battery', isCompany: true });
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });

    expect(Boolean((await row('user', 2))!.is_company)).toBe(true);
    expect(Boolean((await row('user', 3))!.is_company)).toBe(false);
  });

  it('takes the roles given on create from an admin, and ignores them from anyone else', async () => {
    const { app, adminToken } = bookshop();
    const byAdmin = await create(
      app,
      'users',
      { email: 'ada@example.com', plainPassword: 'correct horse battery', roles: ['ROLE_USER', 'ROLE_ADMIN'] },
      adminToken,
    );
    expect(byAdmin.roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);

    const anonymous = await create(app, 'users', {
      email: 'eve@example.com',
      plainPassword: 'correct horse battery',
      roles: ['ROLE_ADMIN'],
    });
    expect(anonymous).not.toHaveProperty('roles');
    expect(
      (await call(app, { method: 'GET', url: `/api/users/${anonymous.id}`, headers: bearer(adminToken) })).body.roles,
    ).toEqual(['ROLE_USER']);
  });

  it('replaces a user with PUT: roles left out go back to their default, the password and isCompany are kept', async () => {
    const { app, row, adminToken } = bookshop();
    await create(
      app,
      'users',
      { email: 'ada@example.com', plainPassword: 'correct horse battery', roles: ['ROLE_ADMIN'], isCompany: true },
      adminToken,
    );
    const before = await row('user', 2);
    expect(storedRoles(before)).toEqual(['ROLE_USER', 'ROLE_ADMIN', 'ROLE_COMPANY']);

    const response = await call(app, {
      method: 'PUT',
      url: '/api/users/2',
      headers: bearer(adminToken),
      payload: { email: 'ada.lovelace@example.com', isCompany: false },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/User',
      '@id': '/api/users/2',
      '@type': 'User',
      id: 2,
      email: 'ada.lovelace@example.com',
      roles: ['ROLE_USER'],
      comments: [],
    });
    const after = await row('user', 2);
    expect(after!.password).toBe(before!.password);
    expect(Boolean(after!.is_company)).toBe(true);
  });

  it('keeps the roles through a PUT by the user themself, who may not write them', async () => {
    const { app, row, adminToken } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery', isCompany: true });
    const token = await login(app, 'ada@example.com', 'correct horse battery');

    const response = await call(app, {
      method: 'PUT',
      url: '/api/users/2',
      headers: bearer(token),
      payload: { email: 'ada.lovelace@example.com', roles: ['ROLE_ADMIN'] },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/User',
      '@id': '/api/users/2',
      '@type': 'User',
      id: 2,
      email: 'ada.lovelace@example.com',
      comments: [],
    });
    expect(storedRoles(await row('user', 2))).toEqual(['ROLE_USER', 'ROLE_COMPANY']);
    expect((await call(app, { method: 'GET', url: '/api/users/2', headers: bearer(adminToken) })).body.roles).toEqual([
      'ROLE_USER',
      'ROLE_COMPANY',
    ]);
  });

  it('hashes a new password given with PUT', async () => {
    const { app, row } = bookshop();
    const ada = await registerAndLogin(app, 'ada@example.com', { plainPassword: 'correct horse battery' });

    const response = await call(app, {
      method: 'PUT',
      url: '/api/users/2',
      headers: ada.auth,
      payload: { email: 'ada@example.com', plainPassword: 'tr0ub4dor&3' },
    });
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('tr0ub4dor');
    const stored = (await row('user', 2))!.password as string;
    expect(stored).toMatch(/^scrypt\$/);
    expect(await verifyPassword('tr0ub4dor&3', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery', stored)).toBe(false);
    // The new password logs in, the old one no longer does.
    expect(await login(app, 'ada@example.com', 'tr0ub4dor&3')).toEqual(expect.any(String));
    expect(
      (
        await call(app, {
          method: 'POST',
          url: '/api/auth',
          payload: { email: 'ada@example.com', password: 'correct horse battery' },
        })
      ).status,
    ).toBe(401);
  });

  it('changes only the roles with a merge-patch PATCH by an admin, keeping the password', async () => {
    const { app, row, adminToken } = bookshop();
    await create(app, 'users', { email: 'ada@example.com', plainPassword: 'correct horse battery' });
    const before = await row('user', 2);

    const response = await call(app, {
      method: 'PATCH',
      url: '/api/users/2',
      headers: { ...bearer(adminToken), ...MERGE_PATCH },
      payload: JSON.stringify({ roles: ['ROLE_USER', 'ROLE_ADMIN'] }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/User',
      '@id': '/api/users/2',
      '@type': 'User',
      id: 2,
      email: 'ada@example.com',
      roles: ['ROLE_USER', 'ROLE_ADMIN'],
      comments: [],
    });
    expect((await row('user', 2))!.password).toBe(before!.password);
  });

  it('refuses a registration without a password with a NotBlank violation on plainPassword', async () => {
    const { app, adminToken } = bookshop();
    const response = await call(app, { method: 'POST', url: '/api/users', payload: { email: 'ada@example.com' } });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'plainPassword',
        message: 'This value should not be blank.',
        code: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3',
      },
    ]);
    // Only the admin the bookshop started with.
    const list = await call(app, { method: 'GET', url: '/api/users', headers: bearer(adminToken) });
    expect(list.body['hydra:totalItems']).toBe(1);
    expect(list.body['hydra:member']).toEqual([ADMIN_MEMBER]);
  });

  it('lists the IRIs of the comments a user wrote', async () => {
    const { app, adminToken } = bookshop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const grace = await registerAndLogin(app, 'grace@example.com');
    await create(app, 'comments', { content: 'A fine book.' }, ada.token);
    await create(app, 'comments', { content: 'Not for me.' }, grace.token);
    await create(app, 'comments', { content: 'Read it twice.' }, ada.token);

    expect((await call(app, { method: 'GET', url: '/api/users/2', headers: ada.auth })).body.comments).toEqual([
      '/api/comments/1',
      '/api/comments/3',
    ]);
    expect((await call(app, { method: 'GET', url: '/api/users/3', headers: grace.auth })).body.comments).toEqual([
      '/api/comments/2',
    ]);
    expect(
      (await call(app, { method: 'GET', url: '/api/users/3', headers: bearer(adminToken) })).body.comments,
    ).toEqual(['/api/comments/2']);
  });
});
