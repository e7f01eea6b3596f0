/**
 * The PostgreSQL update bus delivers in the order of commits, not in the order the writes' updates were sent (a write
 * renders its updates after its commit, and a later one may be quicker): two buses (two instances) on one database,
 * places taken in real transactions. A rolled-back write's place is never seen; a committed write whose updates never
 * come holds the others back only until its place is given up.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import type { BusMessage, UpdateBus } from '../../src/mercure/update-bus.js';
import { createPostgresUpdateBus } from '../../src/state/postgres-update-bus.js';

const postgres = testDatabases(inject('postgresUrl'), inject('mariadbUrl')).find(
  (database) => database.name === 'postgres',
);
const Note = defineResource({ name: 'Note', fields: { text: { type: 'string' } } });

const message = (name: string, data = `{"name":"${name}"}`): BusMessage => ({
  update: { topics: [`https://example.com/api/notes/${name}`], private: false, id: `urn:uuid:${name}`, data },
  item: { resource: 'Note', id: name, deleted: false },
  rendering: { resource: 'Note', operation: 'api_notes_id_get' },
});

describe.skipIf(!postgres)('the PostgreSQL update bus', () => {
  let app: FastifyInstance;
  let buses: UpdateBus[];
  const warnings: string[] = [];
  const received: BusMessage[][] = [[], []];
  beforeEach(async () => {
    app = await buildTestApp({ database: postgres!, resources: [Note] });
    const schema = `order_${randomBytes(4).toString('hex')}`;
    const log = { error: () => {}, warn: (_: unknown, text?: string) => void warnings.push(text ?? '') };
    const database = app.resourceApi.database;
    buses = [
      await createPostgresUpdateBus({ database, schema, log, placeTimeout: 400 }),
      await createPostgresUpdateBus({ database, schema, log, placeTimeout: 400 }),
    ];
    for (const [index, bus] of buses.entries()) bus.deliverTo((delivered) => void received[index]!.push(delivered));
  });
  afterEach(async () => {
    for (const bus of buses) await bus.close();
    await app.close();
    warnings.length = 0;
    for (const list of received) list.length = 0;
  });
  const knex = () => app.resourceApi.database.knex;
  /** Takes a place on `bus` in a transaction that commits (or rolls back). */
  const place = async (bus: UpdateBus, commit = true): Promise<string> => {
    const trx = await knex().transaction();
    const key = await bus.reserve!(trx);
    await (commit ? trx.commit() : trx.rollback());
    return key;
  };
  const until = async (check: () => boolean, timeout = 3_000) => {
    const start = Date.now();
    while (!check()) {
      if (Date.now() - start > timeout) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const names = (list: readonly BusMessage[]) => list.map((delivered) => delivered.item?.id);

  it('delivers each write’s updates in its place among the commits, on every instance', async () => {
    const first = await place(buses[0]!);
    const second = await place(buses[1]!);
    // The second write's updates are sent first.
    await buses[1]!.send([message('b1'), message('b2')], second);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received[0]).toEqual([]);
    await buses[0]!.send([message('a1')], first);
    await until(() => received.every((list) => list.length === 3));
    expect(names(received[0]!)).toEqual(['a1', 'b1', 'b2']);
    expect(names(received[1]!)).toEqual(['a1', 'b1', 'b2']);
  });

  it('never waits for a rolled-back write, and frees a place with nothing to publish', async () => {
    await place(buses[0]!, false);
    const empty = await place(buses[0]!);
    const next = await place(buses[1]!);
    await buses[1]!.send([message('n1')], next);
    await buses[0]!.send([], empty);
    await until(() => received[0]!.length === 1);
    expect(names(received[0]!)).toEqual(['n1']);
    expect(warnings).toEqual([]);
  });

  it('gives up a committed write whose updates never come, and drops them if they come after', async () => {
    const lost = await place(buses[0]!);
    const next = await place(buses[1]!);
    await buses[1]!.send([message('n1')], next);
    await until(() => received.every((list) => list.length === 1));
    expect(warnings.filter((text) => text.includes('did not come'))).toHaveLength(2);
    await buses[0]!.send([message('late')], lost);
    const marker = await place(buses[0]!);
    await buses[0]!.send([message('m1')], marker);
    await until(() => received.every((list) => list.length === 2));
    expect(names(received[0]!)).toEqual(['n1', 'm1']);
  });

  it('carries an update too long for a notification without its data, for each instance to render', async () => {
    const key = await place(buses[0]!);
    await buses[0]!.send([message('small'), message('large', JSON.stringify({ text: 'x'.repeat(9_000) }))], key);
    await until(() => received[1]!.length === 2);
    expect(received[1]![0]!.update.data).toBe('{"name":"small"}');
    expect(received[1]![1]!.update.data).toBeUndefined();
    expect(received[1]![1]!.update.topics).toEqual(['https://example.com/api/notes/large']);
  });
});
