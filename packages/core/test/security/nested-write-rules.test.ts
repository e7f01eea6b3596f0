/**
 * A nested object that creates or updates an item of another resource runs that resource's create (POST) or update
 * (PATCH, else PUT) rules, `security` and `securityPostDenormalize`, with the request's caller, at any depth, in REST
 * and GraphQL; a denial is a 403 naming the property, and nothing is written. A target without such an operation is
 * written through a relation only when the relation says so (`nestedWithoutOperation`).
 */
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { call, useApp } from '../helpers.js';
import { securityOptions, User } from './fixtures.js';

const ADMIN_ONLY = "is_granted('ROLE_ADMIN')";

/** Admins only may create or edit a vault; and its name may never be "forbidden", even for them (after the body). */
const Vault = defineResource({
  name: 'Vault',
  fields: { name: { type: 'string' } },
  operations: [
    'get',
    'getCollection',
    {
      kind: 'post',
      security: ADMIN_ONLY,
      securityPostDenormalize: "object.name != 'forbidden'",
      securityPostDenormalizeMessage: 'No vault may be called that.',
    },
    { kind: 'patch', security: ADMIN_ONLY, securityPostDenormalize: "object.name != 'forbidden'" },
  ],
});

/** Read-only from the outside: no POST, no PATCH, no PUT. */
const Seal = defineResource({ name: 'Seal', fields: { label: { type: 'string' } }, operations: ['get'] });

/** A public resource whose relations cascade into the admin-only vault and the operation-less seal. */
const Box = defineResource({
  name: 'Box',
  fields: {
    title: { type: 'string' },
    vault: { toOne: 'Vault', cascadePersist: true, nullable: true },
    seal: { toOne: 'Seal', cascadePersist: true, nullable: true },
    // The same target, but the relation says it is the way seals are written.
    ownSeal: { toOne: 'Seal', cascadePersist: true, nullable: true, nestedWithoutOperation: true },
  },
});

/** One level more: a crate holds a box, which holds a vault. */
const Crate = defineResource({
  name: 'Crate',
  fields: { label: { type: 'string' }, box: { toOne: 'Box', cascadePersist: true, nullable: true } },
});

const MERGE = { 'content-type': 'application/merge-patch+json' };

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  "nested writes run the target's rules on $name",
  (database) => {
    const app = useApp(database, { resources: [User, Vault, Seal, Box, Crate], security: securityOptions() });

    async function tokenFor(email: string, roles: string[] = ['ROLE_USER']): Promise<string> {
      const [row] = await app()
        .resourceApi.database.knex('user')
        .insert({ email, password: 'x', roles: JSON.stringify(roles), is_company: false })
        .returning('id');
      const id = Number(typeof row === 'object' ? row.id : row);
      return app().resourceApi.issueToken({ id, email, roles });
    }
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const count = async (table: string) =>
      Number((await app().resourceApi.database.knex(table).count({ n: '*' }).first())?.n);
    const gql = (query: string, token?: string) =>
      call(app(), { method: 'POST', url: '/graphql', headers: token ? as(token) : {}, payload: { query } });

    it('refuses a user creating an admin-only item through a public cascade: 403 naming the property, nothing written', async () => {
      const ann = await tokenFor('ann@example.com');
      const post = await call(app(), {
        method: 'POST',
        url: '/api/boxes',
        headers: as(ann),
        payload: { title: 'b', vault: { name: 'mine' } },
      });
      expect(post.status, post.text).toBe(403);
      expect(post.body.detail).toBe('vault: Access Denied.');
      expect(await count('box')).toBe(0);
      expect(await count('vault')).toBe(0);
    });

    it('answers an anonymous caller 401 (they may log in), and writes nothing', async () => {
      const post = await call(app(), {
        method: 'POST',
        url: '/api/boxes',
        payload: { title: 'b', vault: { name: 'mine' } },
      });
      expect(post.status, post.text).toBe(401);
      expect(post.headers['www-authenticate']).toBe('Bearer');
      expect(post.body.detail).toMatch(/^vault: /);
      expect(await count('vault')).toBe(0);
    });

    it('refuses a nested update of an admin-only item (by @id, and by merge patch into the item held)', async () => {
      const admin = await tokenFor('root@example.com', ['ROLE_ADMIN']);
      const made = await call(app(), {
        method: 'POST',
        url: '/api/boxes',
        headers: as(admin),
        payload: { title: 'b', vault: { name: 'gold' } },
      });
      expect(made.status, made.text).toBe(201);
      const ann = await tokenFor('ann@example.com');
      const byId = await call(app(), {
        method: 'POST',
        url: '/api/boxes',
        headers: as(ann),
        payload: { title: 'c', vault: { '@id': made.body.vault, name: 'stolen' } },
      });
      expect(byId.status, byId.text).toBe(403);
      expect(byId.body.detail).toBe('vault: Access Denied.');
      const merged = await call(app(), {
        method: 'PATCH',
        url: made.body['@id'],
        headers: { ...as(ann), ...MERGE },
        payload: { vault: { name: 'stolen' } },
      });
      expect(merged.status, merged.text).toBe(403);
      const put = await call(app(), {
        method: 'PUT',
        url: made.body['@id'],
        headers: as(ann),
        payload: { title: 'b', vault: { '@id': made.body.vault, name: 'stolen' } },
      });
      expect(put.status, put.text).toBe(403);
      const rows = await app().resourceApi.database.knex('vault').select('name');
      expect(rows.map((r: { name: string }) => r.name)).toEqual(['gold']);
      expect(await count('box')).toBe(1);
    });

    it('lets an admin through, and still runs the post-denormalize rule on the nested item', async () => {
      const admin = await tokenFor('root@example.com', ['ROLE_ADMIN']);
      const ok = await call(app(), {
        method: 'POST',
        url: '/api/boxes',
        headers: as(admin),
        payload: { title: 'b', vault: { name: 'gold' } },
      });
      expect(ok.status, ok.text).toBe(201);
      const bad = await call(app(), {
        method: 'POST',
        url: '/api/boxes',
        headers: as(admin),
        payload: { title: 'b', vault: { name: 'forbidden' } },
      });
      expect(bad.status, bad.text).toBe(403);
      expect(bad.body.detail).toBe('vault: No vault may be called that.');
      const badUpdate = await call(app(), {
        method: 'PATCH',
        url: ok.body['@id'],
        headers: { ...as(admin), ...MERGE },
        payload: { vault: { name: 'forbidden' } },
      });
      expect(badUpdate.status, badUpdate.text).toBe(403);
      expect(
        (await app().resourceApi.database.knex('vault').select('name')).map((r: { name: string }) => r.name),
      ).toEqual(['gold']);
    });

    it('holds at any depth: crate → box → vault', async () => {
      const ann = await tokenFor('ann@example.com');
      const deep = await call(app(), {
        method: 'POST',
        url: '/api/crates',
        headers: as(ann),
        payload: { label: 'l', box: { title: 'b', vault: { name: 'mine' } } },
      });
      expect(deep.status, deep.text).toBe(403);
      expect(deep.body.detail).toBe('box.vault: Access Denied.');
      for (const table of ['crate', 'box', 'vault']) expect(await count(table), table).toBe(0);
      const fine = await call(app(), {
        method: 'POST',
        url: '/api/crates',
        headers: as(ann),
        payload: { label: 'l', box: { title: 'b' } },
      });
      expect(fine.status, fine.text).toBe(201);
    });

    it('holds in GraphQL: createBox with a nested vault is a 403 error and writes nothing', async () => {
      const ann = await tokenFor('ann@example.com');
      const g = await gql('mutation { createBox(input: { title: "b", vault: { name: "mine" } }) { box { id } } }', ann);
      expect(g.status, g.text).toBe(200);
      expect(g.body.errors?.[0]?.extensions?.status, g.text).toBe(403);
      expect(g.body.errors?.[0]?.message).toBe('vault: Access Denied.');
      expect(await count('vault')).toBe(0);
      expect(await count('box')).toBe(0);
    });

    it('refuses creation through a relation to a target without a POST operation, unless the relation allows it', async () => {
      const ann = await tokenFor('ann@example.com');
      const denied = await call(app(), {
        method: 'POST',
        url: '/api/boxes',
        headers: as(ann),
        payload: { title: 'b', seal: { label: 's' } },
      });
      expect(denied.status, denied.text).toBe(403);
      expect(denied.body.detail).toMatch(/^seal: /);
      expect(await count('seal')).toBe(0);
      const allowed = await call(app(), {
        method: 'POST',
        url: '/api/boxes',
        headers: as(ann),
        payload: { title: 'b', ownSeal: { label: 's' } },
      });
      expect(allowed.status, allowed.text).toBe(201);
      expect(await count('seal')).toBe(1);
      // And no update through the relation either: the seal has no PATCH or PUT.
      const update = await call(app(), {
        method: 'PATCH',
        url: allowed.body['@id'],
        headers: { ...as(ann), ...MERGE },
        payload: { seal: { '@id': allowed.body.ownSeal, label: 'changed' } },
      });
      expect(update.status, update.text).toBe(403);
      expect((await app().resourceApi.database.knex('seal').first('label'))?.label).toBe('s');
    });
  },
);
