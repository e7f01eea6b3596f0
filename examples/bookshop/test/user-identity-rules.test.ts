/**
 * The contract's User rules on roles, e-mail addresses and passwords (section "User"), black-box over HTTP:
 * - roles: each value one of ROLE_USER, ROLE_COMPANY, ROLE_ADMIN, ROLE_SUPER_ADMIN (else `The value you selected is
 *   not a valid choice.`); only a ROLE_SUPER_ADMIN may grant ROLE_SUPER_ADMIN (else 403);
 * - email: unique regardless of letter case (`This value is already used.`);
 * - plainPassword: Length min 8 on update too, as on registration and in the password change.
 * Every refusal changes nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  bearer,
  call,
  databases,
  login,
  MERGE_PATCH,
  PASSWORD,
  registerAndLogin,
  storedRoles,
  useBookshop,
} from './support.js';

const CHOICE = 'The value you selected is not a valid choice.';

describe.each(databases)('User identity rules on $name', (database) => {
  const bookshop = useBookshop(database);

  it('an admin cannot grant ROLE_SUPER_ADMIN (403, on POST, PATCH and PUT), but grants ROLE_ADMIN and ROLE_COMPANY', async () => {
    const { app, adminToken, row } = bookshop();
    // The bookshop's first admin is a super admin: it makes Ann an admin.
    const ann = await registerAndLogin(app, 'ann@example.com');
    const bob = await registerAndLogin(app, 'bob@example.com');
    const promoted = await call(app, {
      method: 'PATCH',
      url: ann.iri,
      headers: { ...bearer(adminToken), ...MERGE_PATCH },
      payload: { roles: ['ROLE_ADMIN'] },
    });
    expect(promoted.status, promoted.text).toBe(200);
    // A new login: the roles changed, so the tokens issued before are refused.
    const admin = bearer(await login(app, 'ann@example.com'));
    const post = await call(app, {
      method: 'POST',
      url: '/api/users',
      headers: admin,
      payload: { email: 'root@example.com', plainPassword: PASSWORD, roles: ['ROLE_SUPER_ADMIN'] },
    });
    expect(post.status, post.text).toBe(403);
    expect(post.body['hydra:description']).toMatch(/ROLE_SUPER_ADMIN/);
    for (const [method, headers, payload] of [
      ['PATCH', { ...admin, ...MERGE_PATCH }, { roles: ['ROLE_SUPER_ADMIN'] }],
      ['PUT', admin, { email: 'bob@example.com', roles: ['ROLE_USER', 'ROLE_SUPER_ADMIN'] }],
    ] as const) {
      const response = await call(app, { method, url: bob.iri, headers, payload });
      expect(response.status, `${method}: ${response.text}`).toBe(403);
    }
    // Adding ROLE_SUPER_ADMIN to the admin themself is no way round either.
    const self = await call(app, {
      method: 'PATCH',
      url: ann.iri,
      headers: { ...admin, ...MERGE_PATCH },
      payload: { roles: ['ROLE_ADMIN', 'ROLE_SUPER_ADMIN'] },
    });
    expect(self.status, self.text).toBe(403);
    expect(storedRoles(await row('user', bob.id))).toEqual(['ROLE_USER']);
    expect(storedRoles(await row('user', ann.id))).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
    const count = await call(app, { method: 'GET', url: '/api/users', headers: admin });
    expect(count.body['hydra:totalItems']).toBe(3);

    const granted = await call(app, {
      method: 'PATCH',
      url: bob.iri,
      headers: { ...admin, ...MERGE_PATCH },
      payload: { roles: ['ROLE_ADMIN', 'ROLE_COMPANY'] },
    });
    expect(granted.status, granted.text).toBe(200);
    expect(granted.body.roles).toEqual(['ROLE_USER', 'ROLE_ADMIN', 'ROLE_COMPANY']);
  });

  it('a super admin grants ROLE_SUPER_ADMIN', async () => {
    const { app } = bookshop();
    const root = await registerAndLogin(app, 'root@example.com');
    await app.resourceApi.database
      .knex('user')
      .where('id', root.id)
      .update({ roles: JSON.stringify(['ROLE_SUPER_ADMIN']) });
    const token = (
      await call(app, { method: 'POST', url: '/api/auth', payload: { email: 'root@example.com', password: PASSWORD } })
    ).body.token as string;
    const made = await call(app, {
      method: 'POST',
      url: '/api/users',
      headers: bearer(token),
      payload: { email: 'root2@example.com', plainPassword: PASSWORD, roles: ['ROLE_SUPER_ADMIN'] },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.roles).toEqual(['ROLE_USER', 'ROLE_SUPER_ADMIN']);
  });

  it('refuses a role that is not one of the four with the Choice violation (400), and writes nothing', async () => {
    const { app, adminToken, row } = bookshop();
    const admin = bearer(adminToken);
    const ann = await registerAndLogin(app, 'ann@example.com');
    const post = await call(app, {
      method: 'POST',
      url: '/api/users',
      headers: admin,
      payload: { email: 'x@example.com', plainPassword: PASSWORD, roles: ['ROLE_USER', 'ROLE_ROOT'] },
    });
    expect(post.status, post.text).toBe(400);
    expect(post.body['@type']).toBe('ConstraintViolationList');
    expect(post.body.violations).toEqual([
      { propertyPath: 'roles[1]', message: CHOICE, code: '8e179f1b-97aa-4560-a02f-2a8b42e49df7' },
    ]);
    const patch = await call(app, {
      method: 'PATCH',
      url: ann.iri,
      headers: { ...admin, ...MERGE_PATCH },
      payload: { roles: ['admin'] },
    });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.body.violations).toEqual([{ propertyPath: 'roles[0]', message: CHOICE, code: expect.any(String) }]);
    expect(storedRoles(await row('user', ann.id))).toEqual(['ROLE_USER']);
    expect((await call(app, { method: 'GET', url: '/api/users', headers: admin })).body['hydra:totalItems']).toBe(2);
  });

  it('e-mail addresses are unique regardless of letter case, on registration and on update', async () => {
    const { app, row } = bookshop();
    const alice = await call(app, {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'alice@example.com', plainPassword: PASSWORD },
    });
    expect(alice.status).toBe(201);
    const twin = await call(app, {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'Alice@Example.COM', plainPassword: PASSWORD },
    });
    expect(twin.status, twin.text).toBe(400);
    expect(twin.body.violations).toEqual([
      { propertyPath: 'email', message: 'This value is already used.', code: expect.any(String) },
    ]);
    const bob = await registerAndLogin(app, 'bob@example.com');
    const patch = await call(app, {
      method: 'PATCH',
      url: bob.iri,
      headers: { ...bob.auth, ...MERGE_PATCH },
      payload: { email: 'ALICE@example.com' },
    });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.body.violations[0]).toMatchObject({ propertyPath: 'email', message: 'This value is already used.' });
    expect((await row('user', bob.id))!.email).toBe('bob@example.com');
  });

  it('a new password is 8 characters or more on update too (PATCH, PUT, the password change); the stored one stays', async () => {
    const { app, row } = bookshop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const stored = (await row('user', ada.id))!.password;
    const tooShort = 'This value is too short. It should have 8 characters or more.';
    const patch = await call(app, {
      method: 'PATCH',
      url: ada.iri,
      headers: { ...ada.auth, ...MERGE_PATCH },
      payload: { plainPassword: 'short' },
    });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.body.violations).toEqual([
      { propertyPath: 'plainPassword', message: tooShort, code: expect.any(String) },
    ]);
    const put = await call(app, {
      method: 'PUT',
      url: ada.iri,
      headers: ada.auth,
      payload: { email: 'ada@example.com', plainPassword: '1234567' },
    });
    expect(put.status, put.text).toBe(400);
    expect(put.body.violations[0]).toMatchObject({ propertyPath: 'plainPassword', message: tooShort });
    const change = await call(app, {
      method: 'POST',
      url: `${ada.iri}/password`,
      headers: ada.auth,
      payload: { currentPassword: PASSWORD, newPassword: 'short' },
    });
    expect(change.status, change.text).toBe(400);
    expect(change.body.violations[0]).toMatchObject({ propertyPath: 'newPassword', message: tooShort });
    expect((await row('user', ada.id))!.password).toBe(stored);
    const fine = await call(app, {
      method: 'PATCH',
      url: ada.iri,
      headers: { ...ada.auth, ...MERGE_PATCH },
      payload: { plainPassword: 'long enough now' },
    });
    expect(fine.status, fine.text).toBe(200);
  });
});
