/**
 * Passwords on update: a value shaped like a stored hash is still the password its owner types (it is hashed, not
 * stored as it came), and an empty one on PATCH or PUT changes nothing (as API Platform's password-hashing processor).
 */
import { describe, expect, it } from 'vitest';
import { bearer, call, databases, login, MERGE_PATCH, PASSWORD, registerAndLogin, useBookshop } from './support.js';

const HASH_SHAPED = 'scrypt$16384$8$1$c2FsdHNhbHQ=$aGFzaGhhc2g=';

describe.each(databases)('passwords on $name', (database) => {
  const bookshop = useBookshop(database);

  it('hashes a password that looks like a stored hash, on registration and on update', async () => {
    const { app, row } = bookshop();
    const ada = await registerAndLogin(app, 'ada@example.com', { plainPassword: HASH_SHAPED });
    expect((await row('user', ada.id))!.password).not.toBe(HASH_SHAPED);

    const next = `${HASH_SHAPED}x`;
    const patched = await call(app, {
      method: 'PATCH',
      url: ada.iri,
      headers: { ...MERGE_PATCH, ...ada.auth },
      payload: { plainPassword: next },
    });
    expect(patched.status).toBe(200);
    expect((await row('user', ada.id))!.password).not.toBe(next);
    await login(app, ada.email, next);
    const old = await call(app, {
      method: 'POST',
      url: '/api/auth',
      payload: { email: ada.email, password: HASH_SHAPED },
    });
    expect(old.status).toBe(401);
  });

  it('keeps the password when PATCH or PUT sends an empty one', async () => {
    const { app, row } = bookshop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const stored = (await row('user', ada.id))!.password;

    const patched = await call(app, {
      method: 'PATCH',
      url: ada.iri,
      headers: { ...MERGE_PATCH, ...ada.auth },
      payload: { plainPassword: '' },
    });
    expect(patched.status).toBe(200);
    const put = await call(app, {
      method: 'PUT',
      url: ada.iri,
      headers: ada.auth,
      payload: { email: ada.email, plainPassword: '' },
    });
    expect(put.status).toBe(200);

    expect((await row('user', ada.id))!.password).toBe(stored);
    await login(app, ada.email, PASSWORD);
    const empty = await call(app, { method: 'POST', url: '/api/auth', payload: { email: ada.email, password: '' } });
    expect([400, 401]).toContain(empty.status);
  });

  it('still refuses an empty password on registration', async () => {
    const { app, adminToken } = bookshop();
    const response = await call(app, {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'bob@example.com', plainPassword: '' },
    });
    expect(response.status).toBe(400);
    expect(response.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toContain('plainPassword');
    const users = await call(app, { method: 'GET', url: '/api/users', headers: bearer(adminToken) });
    expect(users.body['hydra:totalItems']).toBe(1);
  });
});
