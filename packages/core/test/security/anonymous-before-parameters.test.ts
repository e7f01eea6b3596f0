/**
 * The order of checks for an anonymous caller: a protected operation is a 401 before its parameters are looked at
 * (a page, a filter value, an id that cannot exist), so an anonymous caller learns nothing of what the operation
 * would accept. A logged-in caller without the role still gets the parameter's 400 first, as API Platform answers
 * (it reads the page before its `security` rule); an operation open to anonymous callers still checks its parameters.
 * Over REST and GraphQL, on SQLite and PostgreSQL.
 */
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { call, useApp } from '../helpers.js';
import { Note, Public, securityOptions, User } from './fixtures.js';

// Paged by page number in GraphQL too, so that `page: 0` goes through the same parameters stage as REST's `?page=0`.
const Ledger = defineResource({
  name: 'Ledger',
  fields: { title: { type: 'string' } },
  security: "is_granted('ROLE_ADMIN')",
  paginationType: 'page',
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'anonymous callers get 401 before parameters on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Note, Public, Ledger], security: securityOptions() });
    const get = (url: string, authorization?: string) =>
      call(app(), { method: 'GET', url, headers: authorization ? { authorization } : {} });

    async function register(email: string, roles?: string[]): Promise<string> {
      const created = await call(app(), {
        method: 'POST',
        url: '/api/users',
        payload: { email, plainPassword: 'password-1' },
      });
      expect(created.status).toBe(201);
      if (roles)
        await app()
          .resourceApi.database.knex('user')
          .where({ id: created.body.id })
          .update({ roles: JSON.stringify(roles) });
      return `Bearer ${(await call(app(), { method: 'POST', url: '/api/auth', payload: { email, password: 'password-1' } })).body.token as string}`;
    }

    it('answers 401 to an anonymous request of a protected collection, whatever its query string', async () => {
      for (const url of [
        '/api/users?page=0',
        '/api/users?page=abc',
        '/api/users?itemsPerPage=-1',
        '/api/users?page=1%00',
        `/api/users?x=${'y'.repeat(20_000)}`,
        '/api/ledgers?page=0',
      ]) {
        const response = await get(url);
        expect(response.status, url).toBe(401);
        expect(response.body).toMatchObject({ '@type': 'hydra:Error', status: 401 });
      }
    });

    it('answers 401 to an anonymous request of a protected item whose id cannot exist, as for a missing one', async () => {
      // The user's rule reads the item (`object == user`); the note's does not.
      for (const url of ['/api/users/abc', '/api/users/0', '/api/users/99', '/api/notes/abc', '/api/notes/99'])
        expect((await get(url)).status, url).toBe(401);
    });

    it('still answers 400 to a logged-in caller, with or without the role, and to anyone on an open operation', async () => {
      const admin = await register('admin@example.com', ['ROLE_ADMIN']);
      const ann = await register('ann@example.com');
      for (const authorization of [admin, ann]) {
        const response = await get('/api/users?page=0', authorization);
        expect(response.status).toBe(400);
        expect(response.body.detail).toMatch(/^Page should not be less than 1/);
      }
      // Without the role, a valid page is a 403.
      expect((await get('/api/users?page=1', ann)).status).toBe(403);
      expect((await get('/api/pages?page=0')).status).toBe(400);
      expect((await get('/api/pages/abc')).status).toBe(404);
    });

    it('answers the GraphQL error of an anonymous caller (401) before the page is checked', async () => {
      const query = (authorization?: string) =>
        call(app(), {
          method: 'POST',
          url: '/graphql',
          headers: authorization ? { authorization } : {},
          payload: { query: '{ ledgers(page: 0) { collection { id } } }' },
        });
      const anonymous = await query();
      expect(anonymous.body.errors[0].extensions.status).toBe(401);
      const ann = await register('ann@example.com');
      const refused = await query(ann);
      expect(refused.body.errors[0].extensions.status).toBe(400);
      expect(refused.body.errors[0].message).toMatch(/^Page should not be less than 1/);
    });

    const graphql = (query: string, authorization?: string) =>
      call(app(), {
        method: 'POST',
        url: '/graphql',
        headers: authorization ? { authorization } : {},
        payload: { query },
      });

    it('answers 401 to an anonymous GraphQL query or mutation before its cursor, page size or id is checked', async () => {
      const refused = [
        '{ users(first: -1) { edges { node { id } } } }',
        '{ users(after: "not a cursor") { edges { node { id } } } }',
        '{ users(last: 2, before: "!!") { edges { node { id } } } }',
        '{ user(id: "abc") { id } }',
        '{ user(id: "/api/notes/1") { id } }',
        'mutation { updateUser(input: { id: "abc", nickname: "x" }) { user { id } } }',
        'mutation { deleteUser(input: { id: "/api/users/abc" }) { user { id } } }',
      ];
      for (const query of refused) {
        const response = await graphql(query);
        expect(response.body.errors?.[0]?.extensions?.status, query).toBe(401);
      }
    });

    it('checks the same GraphQL arguments for a logged-in caller: a bad cursor is a 400, an id that cannot exist is null or a 404', async () => {
      const admin = await register('admin@example.com', ['ROLE_ADMIN']);
      const badCursor = await graphql('{ users(after: "not a cursor") { edges { node { id } } } }', admin);
      expect(badCursor.body.errors[0].extensions.status).toBe(400);
      expect(badCursor.body.errors[0].message).toBe('Cursor "not a cursor" is invalid.');
      const negative = await graphql('{ users(first: -1) { edges { node { id } } } }', admin);
      expect(negative.body.errors[0].extensions.status).toBe(400);
      expect(negative.body.errors[0].message).toBe('Limit should not be less than 0 (argument "first").');
      expect((await graphql('{ user(id: "abc") { id } }', admin)).body).toEqual({ data: { user: null } });
      const update = await graphql(
        'mutation { updateUser(input: { id: "abc", nickname: "x" }) { user { id } } }',
        admin,
      );
      expect(update.body.errors[0].extensions.status).toBe(404);
      expect(update.body.errors[0].message).toBe('Item "abc" not found.');
      // An open collection still checks its arguments for anyone.
      const open = await graphql('{ pages(after: "not a cursor") { edges { node { id } } } }');
      expect(open.body.errors[0].extensions.status).toBe(400);
    });
  },
);
