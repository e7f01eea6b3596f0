/**
 * Concurrent single-statement writes: on SQLite those of one turn share one transaction and one commit
 * (`state/knex/group-commit.ts`); on both databases each write still answers on its own, a failing one changes
 * nothing, and every acknowledged write is there afterwards.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, Email, NotBlank, Unique } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const Member = defineResource({
  name: 'Member',
  fields: { email: { type: 'string', constraints: [NotBlank(), Email(), Unique()] } },
});

const Team = defineResource({
  name: 'Team',
  fields: { name: { type: 'string' }, players: { toMany: 'Player', mappedBy: 'team' } },
});
const Player = defineResource({
  name: 'Player',
  fields: { team: { toOne: 'Team', inversedBy: 'players', onDelete: 'restrict' } },
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('concurrent writes on $name', (database) => {
  it('answers each of twelve concurrent POSTs on its own: the duplicate alone fails, and nothing of it is kept', async () => {
    const app = await buildTestApp({ database, resources: [Member] });
    const statements: string[] = [];
    app.resourceApi.database.knex.on('query', (query: { sql: string }) => statements.push(query.sql));

    const emails = [
      ...Array.from({ length: 10 }, (_, index) => `member${index}@example.com`),
      'twin@example.com',
      'twin@example.com',
    ];
    const responses = await Promise.all(
      emails.map((email) => call(app, { method: 'POST', url: '/api/members', payload: { email } })),
    );

    expect(responses.map((response) => response.status).sort()).toEqual([...Array(11).fill(201), 400]);
    const failed = responses.find((response) => response.status === 400)!;
    expect(failed.body.violations).toEqual([
      { propertyPath: 'email', message: 'This value is already used.', code: '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f' },
    ]);
    const created = responses.filter((response) => response.status === 201);
    expect(new Set(created.map((response) => response.body.id)).size).toBe(11);
    for (const response of created) {
      const read = await call(app, { method: 'GET', url: response.body['@id'] as string });
      expect(read.body.email).toBe(response.body.email);
    }
    const list = await call(app, { method: 'GET', url: '/api/members?itemsPerPage=30' });
    expect(list.body['hydra:totalItems']).toBe(11);
    expect(
      (list.body['hydra:member'] as { email: string }[]).filter((member) => member.email === 'twin@example.com'),
    ).toHaveLength(1);

    if (database.name === 'sqlite') {
      // One group: one transaction, one savepoint per write, the duplicate rolled back to its own savepoint.
      expect(statements.filter((sql) => sql === 'BEGIN IMMEDIATE')).toHaveLength(1);
      expect(statements.filter((sql) => sql === 'COMMIT')).toHaveLength(1);
      expect(statements.filter((sql) => sql.startsWith('SAVEPOINT'))).toHaveLength(12);
      expect(statements.filter((sql) => sql.startsWith('ROLLBACK TO'))).toHaveLength(1);
    }
    await app.close();
  });

  it('keeps concurrent PATCHes and DELETEs apart: a DELETE the database refuses changes nothing and answers 409', async () => {
    const app = await buildTestApp({ database, resources: [Team, Player] });
    for (const name of ['A', 'B', 'C', 'D', 'E'])
      expect((await call(app, { method: 'POST', url: '/api/teams', payload: { name } })).status).toBe(201);
    expect((await call(app, { method: 'POST', url: '/api/players', payload: { team: '/api/teams/2' } })).status).toBe(
      201,
    );
    const statements: string[] = [];
    app.resourceApi.database.knex.on('query', (query: { sql: string }) => statements.push(query.sql));

    const patch = (id: number, name: string) =>
      call(app, {
        method: 'PATCH',
        url: `/api/teams/${id}`,
        headers: { 'content-type': 'application/merge-patch+json' },
        payload: JSON.stringify({ name }),
      });
    const responses = await Promise.all([
      call(app, { method: 'DELETE', url: '/api/teams/1' }),
      call(app, { method: 'DELETE', url: '/api/teams/2' }),
      patch(3, 'C2'),
      call(app, { method: 'DELETE', url: '/api/teams/4' }),
      patch(5, 'E2'),
    ]);

    expect(responses.map((response) => response.status)).toEqual([204, 409, 200, 204, 200]);
    expect(responses[1]!.body.title).toBeDefined();
    expect(responses[2]!.body.name).toBe('C2');
    const list = await call(app, { method: 'GET', url: '/api/teams' });
    expect(
      (list.body['hydra:member'] as { name: string; players: string[] }[]).map(({ name, players }) => ({
        name,
        players,
      })),
    ).toEqual([
      { name: 'B', players: ['/api/players/1'] },
      { name: 'C2', players: [] },
      { name: 'E2', players: [] },
    ]);
    if (database.name === 'sqlite') {
      // The writes that reached the state in the same turn shared a commit (the DELETEs, which have no body to wait
      // for, and the PATCHes may be two groups); the refused DELETE was undone alone, inside its group.
      const begins = statements.filter((sql) => sql === 'BEGIN IMMEDIATE').length;
      expect(begins).toBeGreaterThanOrEqual(1);
      expect(statements.filter((sql) => sql === 'COMMIT')).toHaveLength(begins);
      expect(statements.filter((sql) => sql.startsWith('ROLLBACK TO'))).toHaveLength(1);
      expect(statements.filter((sql) => /^(delete|update)/.test(sql))).toHaveLength(5);
    }
    await app.close();
  });

  it('runs a lone write on its own, without a transaction around it', async () => {
    const app = await buildTestApp({ database, resources: [Member] });
    const statements: string[] = [];
    app.resourceApi.database.knex.on('query', (query: { sql: string }) => statements.push(query.sql));
    expect(
      (await call(app, { method: 'POST', url: '/api/members', payload: { email: 'alone@example.com' } })).status,
    ).toBe(201);
    expect(statements.some((sql) => /^(BEGIN|SAVEPOINT|COMMIT)/i.test(sql))).toBe(false);
    expect(statements.filter((sql) => /^insert/i.test(sql))).toHaveLength(1);
    await app.close();
  });
});
