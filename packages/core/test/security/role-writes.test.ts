/**
 * Roles written safely: a caller gives only roles they hold themself (an admin cannot make a super admin: 403), and
 * only declared roles (else Symfony's Choice violation, 400), in REST and GraphQL; nothing is written when refused.
 * Roles the user already held, and what the registration hook adds, are not "given" by the caller.
 */
import { testDatabases } from '@resource-api/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { call, useApp } from '../helpers.js';
import { Note, securityOptions, User } from './fixtures.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('role writes on $name', (database) => {
  const app = useApp(database, { resources: [User, Note], security: securityOptions() });

  async function userWith(email: string, roles: string[]): Promise<{ id: number; iri: string; token: string }> {
    const [row] = await app()
      .resourceApi.database.knex('user')
      .insert({ email, password: 'x', roles: JSON.stringify(roles), is_company: false })
      .returning('id');
    const id = Number(typeof row === 'object' ? row.id : row);
    return { id, iri: `/api/users/${id}`, token: await app().resourceApi.issueToken({ id, email, roles }) };
  }
  const rolesOf = async (id: number) => {
    const row = await app().resourceApi.database.knex('user').where('id', id).first('roles');
    return typeof row.roles === 'string' ? JSON.parse(row.roles) : row.roles;
  };
  const users = async () => Number((await app().resourceApi.database.knex('user').count({ n: '*' }).first())?.n);

  it('an admin cannot give a role above their own: 403 on POST, PATCH and GraphQL, nothing written', async () => {
    const admin = await userWith('admin@example.com', ['ROLE_ADMIN']);
    const ann = await userWith('ann@example.com', ['ROLE_USER']);
    const post = await call(app(), {
      method: 'POST',
      url: '/api/users',
      headers: as(admin.token),
      payload: { email: 'root@example.com', plainPassword: 'password-123', roles: ['ROLE_SUPER_ADMIN'] },
    });
    expect(post.status, post.text).toBe(403);
    expect(post.body.detail).toBe(
      'roles: You cannot grant "ROLE_SUPER_ADMIN": a role can only be given by someone who holds it.',
    );
    expect(await users()).toBe(2);
    const patch = await call(app(), {
      method: 'PATCH',
      url: ann.iri,
      headers: { ...as(admin.token), ...MERGE },
      payload: { roles: ['ROLE_USER', 'ROLE_SUPER_ADMIN'] },
    });
    expect(patch.status, patch.text).toBe(403);
    const g = await call(app(), {
      method: 'POST',
      url: '/graphql',
      headers: as(admin.token),
      payload: {
        query: `mutation { updateUser(input: { id: "${ann.iri}", roles: ["ROLE_SUPER_ADMIN"] }) { user { id } } }`,
      },
    });
    expect(g.body.errors?.[0]?.extensions?.status, g.text).toBe(403);
    expect(await rolesOf(ann.id)).toEqual(['ROLE_USER']);
  });

  it('a caller gives the roles they hold: an admin makes an admin, a super admin a super admin', async () => {
    const admin = await userWith('admin@example.com', ['ROLE_ADMIN']);
    const root = await userWith('root@example.com', ['ROLE_SUPER_ADMIN']);
    const ann = await userWith('ann@example.com', ['ROLE_USER']);
    const byAdmin = await call(app(), {
      method: 'PATCH',
      url: ann.iri,
      headers: { ...as(admin.token), ...MERGE },
      payload: { roles: ['ROLE_ADMIN'] },
    });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect(byAdmin.body.roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
    const byRoot = await call(app(), {
      method: 'POST',
      url: '/api/users',
      headers: as(root.token),
      payload: { email: 'root2@example.com', plainPassword: 'password-123', roles: ['ROLE_SUPER_ADMIN'] },
    });
    expect(byRoot.status, byRoot.text).toBe(201);
    expect(byRoot.body.roles).toEqual(['ROLE_USER', 'ROLE_SUPER_ADMIN']);
    // Roles the user already holds are not given again: an admin may still edit a super admin's other roles and fields.
    const keep = await call(app(), {
      method: 'PATCH',
      url: byRoot.body['@id'],
      headers: { ...as(admin.token), ...MERGE },
      payload: { email: 'root3@example.com', roles: ['ROLE_SUPER_ADMIN', 'ROLE_ADMIN'] },
    });
    expect(keep.status, keep.text).toBe(200);
  });

  it('refuses a role nobody declared with the Choice violation on its index, even from a super admin', async () => {
    const root = await userWith('root@example.com', ['ROLE_SUPER_ADMIN']);
    const ann = await userWith('ann@example.com', ['ROLE_USER']);
    const post = await call(app(), {
      method: 'POST',
      url: '/api/users',
      headers: as(root.token),
      payload: { email: 'x@example.com', plainPassword: 'password-123', roles: ['ROLE_ADMIN', 'ROLE_GOD'] },
    });
    expect(post.status, post.text).toBe(400);
    expect(post.body['@type']).toBe('ConstraintViolationList');
    expect(post.body.violations).toEqual([
      {
        propertyPath: 'roles[1]',
        message: 'The value you selected is not a valid choice.',
        code: '8e179f1b-97aa-4560-a02f-2a8b42e49df7',
      },
    ]);
    const patch = await call(app(), {
      method: 'PATCH',
      url: ann.iri,
      headers: { ...as(root.token), ...MERGE },
      payload: { roles: ['role_admin'] },
    });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.body.violations[0].propertyPath).toBe('roles[0]');
    expect(await users()).toBe(2);
    expect(await rolesOf(ann.id)).toEqual(['ROLE_USER']);
  });

  it('still lets the registration hook add its roles for an anonymous caller', async () => {
    const company = await call(app(), {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'co@example.com', plainPassword: 'password-123', isCompany: true },
    });
    expect(company.status, company.text).toBe(201);
    expect(await rolesOf(company.body.id)).toEqual(['ROLE_USER', 'ROLE_COMPANY']);
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('declaredRoles on $name', (database) => {
  const app = useApp(database, {
    resources: [User, Note],
    security: securityOptions({ declaredRoles: ['ROLE_ADMIN'] }),
  });

  it('takes the listed roles only (and ROLE_USER)', async () => {
    const [row] = await app()
      .resourceApi.database.knex('user')
      .insert({
        email: 'root@example.com',
        password: 'x',
        roles: JSON.stringify(['ROLE_SUPER_ADMIN']),
        is_company: false,
      })
      .returning('id');
    const id = Number(typeof row === 'object' ? row.id : row);
    const token = await app().resourceApi.issueToken({ id, email: 'root@example.com', roles: ['ROLE_SUPER_ADMIN'] });
    const refused = await call(app(), {
      method: 'POST',
      url: '/api/users',
      headers: as(token),
      payload: { email: 'a@example.com', plainPassword: 'password-123', roles: ['ROLE_SUPER_ADMIN'] },
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.violations[0]).toMatchObject({
      propertyPath: 'roles[0]',
      message: 'The value you selected is not a valid choice.',
    });
    const taken = await call(app(), {
      method: 'POST',
      url: '/api/users',
      headers: as(token),
      payload: { email: 'b@example.com', plainPassword: 'password-123', roles: ['ROLE_USER', 'ROLE_ADMIN'] },
    });
    expect(taken.status, taken.text).toBe(201);
  });
});
