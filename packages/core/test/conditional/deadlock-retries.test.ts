/**
 * A transaction the database rolls back to break a deadlock is run again, and the request succeeds: provoked for real
 * on PostgreSQL and MariaDB (SQLite has one writer at a time and cannot deadlock). Two PATCHes each lock the other's
 * row first (`SELECT … FOR UPDATE` in a beforeWrite hook, inside the write's transaction), wait until both hold their lock, then update
 * their own row: each waits for the other, and the database kills one of them.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, type Entity, type ProcessContext } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

/** Resolves once `count` callers have arrived (or after `timeoutMs`, so a broken retry fails the test, not hangs it). */
function createBarrier(count: number, timeoutMs: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
    setTimeout(resolve, timeoutMs);
  });
  return () => {
    arrived++;
    if (arrived >= count) open();
    return opened;
  };
}

const servers = testDatabases(inject('postgresUrl'), inject('mariadbUrl')).filter((d) => d.name !== 'sqlite');

describe.each(servers)('deadlock retries on $name', (database) => {
  it('runs a deadlocked write again: both crossed PATCHes answer 200 and both rows are written', async () => {
    const attempts: string[] = [];
    const barrier = createBarrier(2, 5_000);
    // Each request's first attempt waits for the other's lock; a retry goes straight on.
    const waited = new Set<string>();
    const lockTheOtherFirst = async (item: Entity, context: ProcessContext) => {
      const own = String(item.id);
      attempts.push(own);
      const other = own === '1' ? 2 : 1;
      await context.db('account').where('id', other).forUpdate().select('id');
      if (!waited.has(own)) {
        waited.add(own);
        await barrier();
      }
    };
    const Account = defineResource({
      name: 'Account',
      fields: { label: { type: 'string' } },
      hooks: { beforeWrite: lockTheOtherFirst },
      operations: ['get', 'post', 'patch'],
    });
    const app = await buildTestApp({ database, resources: [Account] });
    try {
      const knex = app.resourceApi.database.knex;
      await knex('account').insert([{ label: 'one' }, { label: 'two' }]);
      const patch = (id: number, label: string) =>
        call(app, {
          method: 'PATCH',
          url: `/api/accounts/${id}`,
          headers: { 'content-type': 'application/merge-patch+json' },
          payload: { label },
        });
      const [first, second] = await Promise.all([patch(1, 'uno'), patch(2, 'dos')]);

      expect([first.status, second.status]).toEqual([200, 200]);
      // Three attempts in all: one of the two ran again after the database broke the deadlock.
      expect(attempts.length).toBe(3);
      expect(await knex('account').orderBy('id').pluck('label')).toEqual(['uno', 'dos']);
    } finally {
      await app.close();
    }
  });
});
