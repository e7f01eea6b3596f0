/**
 * Issue 34, point 3: `app.resourceApi.provisionUser` creates the accounts an app keeps itself (a first admin from the
 * environment) and never promotes an account someone else registered with that identifier. On SQLite and PostgreSQL.
 */
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { AccountNotProvisionedError, resourceApi } from '@resource-api/core';
import { testDatabases, createTestSchemaName, dropTestSchema } from '@resource-api/core/testing';
import { call } from '../helpers.js';
import { Note, securityOptions, User } from './fixtures.js';

const ADMIN = { identifier: 'root@example.com', password: 'root-password', roles: ['ROLE_ADMIN'] };

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('provisionUser on $name', (database) => {
  /** An app with a logger whose lines are kept. */
  async function start() {
    const lines: { level: number; msg: string }[] = [];
    const stream = new Writable({
      write: (chunk, _encoding, done) => {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const app = Fastify({ logger: { level: 'info', stream } });
    const schema = createTestSchemaName(database);
    await app.register(resourceApi, {
      resources: [User, Note],
      database: database.url,
      databaseSchema: schema,
      security: securityOptions(),
    });
    await app.ready();
    const close = async () => {
      if (schema) await dropTestSchema(app.resourceApi.database.knex, schema);
      await app.close();
    };
    return { app, lines, close };
  }
  const login = async (app: Awaited<ReturnType<typeof start>>['app'], email: string, password: string) =>
    call(app, { method: 'POST', url: '/api/auth', payload: { email, password } });

  it('creates the account, keeps its tokens while nothing changes, revokes them when the password does', async () => {
    const { app, close } = await start();
    try {
      expect(await app.resourceApi.provisionUser(ADMIN)).toEqual({ id: 1, outcome: 'created' });
      const token = (await login(app, 'root@example.com', 'root-password')).body.token;
      const users = await call(app, {
        method: 'GET',
        url: '/api/users',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(users.status).toBe(200);
      expect(users.body['hydra:member'][0].roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
      expect(await app.resourceApi.provisionUser(ADMIN)).toEqual({ id: 1, outcome: 'unchanged' });
      expect(
        (await call(app, { method: 'GET', url: '/api/users', headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(200);
      expect(await app.resourceApi.provisionUser({ ...ADMIN, password: 'another-password' })).toEqual({
        id: 1,
        outcome: 'updated',
      });
      expect(
        (await call(app, { method: 'GET', url: '/api/users', headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(401);
      expect((await login(app, 'root@example.com', 'another-password')).status).toBe(200);
    } finally {
      await close();
    }
  });

  it('refuses to promote an account it did not create (any letter case), logs why at warn, and changes nothing of it', async () => {
    const { app, lines, close } = await start();
    try {
      expect(
        (
          await call(app, {
            method: 'POST',
            url: '/api/users',
            payload: { email: 'root@example.com', plainPassword: 'the-registrant-password' },
          })
        ).status,
      ).toBe(201);
      const before = await app.resourceApi.database.knex('user').where('id', 1).first();
      for (const identifier of ['root@example.com', 'ROOT@example.com']) {
        const refused = app.resourceApi.provisionUser({ ...ADMIN, identifier });
        await expect(refused).rejects.toThrow(AccountNotProvisionedError);
        await expect(app.resourceApi.provisionUser({ ...ADMIN, identifier })).rejects.toThrow(
          'The account "root@example.com" (user 1) was not created by the app and lacks ROLE_ADMIN: it is not promoted, since whoever registered that address would get the roles.',
        );
      }
      expect(lines.filter((line) => line.level === 40).map((line) => line.msg)[0]).toMatch(
        /^The account "root@example\.com" \(user 1\) was not created by the app/,
      );
      expect(await app.resourceApi.database.knex('user').where('id', 1).first()).toEqual(before);
      expect((await login(app, 'root@example.com', 'root-password')).status).toBe(401);

      // Made an admin by someone who may (here, straight in the database): left as it is, with a warning.
      await app.resourceApi.database
        .knex('user')
        .where('id', 1)
        .update({ roles: JSON.stringify(['ROLE_USER', 'ROLE_ADMIN']) });
      expect(await app.resourceApi.provisionUser(ADMIN)).toEqual({ id: 1, outcome: 'left alone' });
      expect((await login(app, 'root@example.com', 'root-password')).status).toBe(401);
      expect((await login(app, 'root@example.com', 'the-registrant-password')).status).toBe(200);
    } finally {
      await close();
    }
  });

  it('an account it created, then deleted and registered again by someone else, is not its own any more', async () => {
    const { app, close } = await start();
    try {
      await app.resourceApi.provisionUser(ADMIN);
      const token = (await login(app, 'root@example.com', 'root-password')).body.token;
      expect(
        (await call(app, { method: 'DELETE', url: '/api/users/1', headers: { authorization: `Bearer ${token}` } }))
          .status,
      ).toBe(204);
      expect(
        (
          await call(app, {
            method: 'POST',
            url: '/api/users',
            payload: { email: 'root@example.com', plainPassword: 'someone-else' },
          })
        ).status,
      ).toBe(201);
      await expect(app.resourceApi.provisionUser(ADMIN)).rejects.toThrow(AccountNotProvisionedError);
    } finally {
      await close();
    }
  });
  it('adopts an unmarked account that holds a role of `adopt` (an admin made before), never a plain registrant', async () => {
    const { app, lines, close } = await start();
    try {
      const { knex } = app.resourceApi.database;
      for (const email of ['old-admin@example.com', 'someone@example.com']) {
        expect(
          (
            await call(app, {
              method: 'POST',
              url: '/api/users',
              payload: { email, plainPassword: 'registered-password' },
            })
          ).status,
        ).toBe(201);
      }
      await knex('user')
        .where('email', 'old-admin@example.com')
        .update({ roles: JSON.stringify(['ROLE_USER', 'ROLE_ADMIN']) });
      const asked = { password: 'root-password', roles: ['ROLE_SUPER_ADMIN'], adopt: ['ROLE_ADMIN'] };
      await expect(app.resourceApi.provisionUser({ ...asked, identifier: 'someone@example.com' })).rejects.toThrow(
        AccountNotProvisionedError,
      );
      const stored = (await knex('user').where('email', 'someone@example.com').first()).roles;
      expect(typeof stored === 'string' ? JSON.parse(stored) : stored).toEqual(['ROLE_USER']);
      expect(await app.resourceApi.provisionUser({ ...asked, identifier: 'old-admin@example.com' })).toEqual({
        id: 1,
        outcome: 'updated',
      });
      expect(lines.some((line) => line.level === 40 && line.msg.includes("taken as the app's own"))).toBe(true);
      expect((await login(app, 'old-admin@example.com', 'registered-password')).status).toBe(401);
      const token = (await login(app, 'old-admin@example.com', 'root-password')).body.token;
      const me = await call(app, { method: 'GET', url: '/api/users/1', headers: { authorization: `Bearer ${token}` } });
      expect(me.body.roles).toEqual(['ROLE_USER', 'ROLE_ADMIN', 'ROLE_SUPER_ADMIN']);
      // Marked now: a later start brings it up to date as one it created.
      expect(await app.resourceApi.provisionUser({ ...asked, identifier: 'old-admin@example.com' })).toEqual({
        id: 1,
        outcome: 'unchanged',
      });
    } finally {
      await close();
    }
  });
});
