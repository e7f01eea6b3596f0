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

describe.each(testDatabases(inject('postgresUrl')))('concurrent writes on $name', (database) => {
  it('answers each of twelve concurrent POSTs on its own: the duplicate alone fails, and nothing of it is kept', async () => {
    const app = await buildTestApp({ database, resources: [Member] });
    const statements: string[] = [];
    app.resourceApi.database.knex.on('query', (query: { sql: string }) => statements.push(query.sql));

    const emails = [...Array.from({ length: 10 }, (_, index) => `member${index}@example.com`), 'twin@example.com', 'twin@example.com'];
    const responses = await Promise.all(emails.map((email) => call(app, { method: 'POST', url: '/api/members', payload: { email } })));

    expect(responses.map((response) => response.status).sort()).toEqual([...Array(11).fill(201), 400]);
    const failed = responses.find((response) => response.status === 400)!;
    expect(failed.body.violations).toEqual([{ propertyPath: 'email', message: 'This value is already used.', code: '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f' }]);
    const created = responses.filter((response) => response.status === 201);
    expect(new Set(created.map((response) => response.body.id)).size).toBe(11);
    for (const response of created) {
      const read = await call(app, { method: 'GET', url: response.body['@id'] as string });
      expect(read.body.email).toBe(response.body.email);
    }
    const list = await call(app, { method: 'GET', url: '/api/members?itemsPerPage=30' });
    expect(list.body['hydra:totalItems']).toBe(11);
    expect((list.body['hydra:member'] as { email: string }[]).filter((member) => member.email === 'twin@example.com')).toHaveLength(1);

    if (database.name === 'sqlite') {
      // One group: one transaction, one savepoint per write, the duplicate rolled back to its own savepoint.
      expect(statements.filter((sql) => sql === 'BEGIN IMMEDIATE')).toHaveLength(1);
      expect(statements.filter((sql) => sql === 'COMMIT')).toHaveLength(1);
      expect(statements.filter((sql) => sql.startsWith('SAVEPOINT'))).toHaveLength(12);
      expect(statements.filter((sql) => sql.startsWith('ROLLBACK TO'))).toHaveLength(1);
    }
    await app.close();
  });

  it('runs a lone write on its own, without a transaction around it', async () => {
    const app = await buildTestApp({ database, resources: [Member] });
    const statements: string[] = [];
    app.resourceApi.database.knex.on('query', (query: { sql: string }) => statements.push(query.sql));
    expect((await call(app, { method: 'POST', url: '/api/members', payload: { email: 'alone@example.com' } })).status).toBe(201);
    expect(statements.some((sql) => /^(BEGIN|SAVEPOINT|COMMIT)/i.test(sql))).toBe(false);
    expect(statements.filter((sql) => /^insert/i.test(sql))).toHaveLength(1);
    await app.close();
  });
});
