/**
 * A Unique constraint that loses a race (two writes at once both pass the check; the unique index refuses the second)
 * answers what its check answers one request at a time: 400 with the constraint's errorPath and message, a nested
 * item's path included (`writer.nick`), on SQLite and PostgreSQL.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, Unique, Valid } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const Seat = defineResource({
  name: 'Seat',
  fields: { club: { type: 'string' }, seat: { type: 'string' } },
  constraints: [Unique({ fields: ['club', 'seat'], errorPath: 'seat', message: 'This seat is taken.' })],
});
const Member = defineResource({
  name: 'Member',
  fields: { nick: { type: 'string', constraints: [Unique({ message: 'This nick is taken.' })] } },
});

const Writer = defineResource({ name: 'Writer', fields: { nick: { type: 'string', constraints: [Unique()] } } });
const Post = defineResource({
  name: 'Post',
  fields: { title: { type: 'string' }, writer: { toOne: 'Writer', cascadePersist: true, constraints: [Valid()] } },
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'Unique constraints under concurrency on $name',
  (database) => {
    const app = useApp(database, { resources: [Seat, Member, Writer, Post] });
    const post = (url: string, payload: object) => call(app(), { method: 'POST', url, payload });

    it("sequential duplicate: the constraint's errorPath and message (reference behaviour)", async () => {
      expect((await post('/api/seats', { club: 'a', seat: '1' })).status).toBe(201);
      const second = await post('/api/seats', { club: 'a', seat: '1' });
      expect(second.status).toBe(400);
      expect(second.body.violations).toEqual([
        { propertyPath: 'seat', message: 'This seat is taken.', code: expect.any(String) },
      ]);
    });

    it('racing duplicates (resource-level Unique with errorPath and message): one 201, one 400 with the same violation', async () => {
      for (let round = 0; round < 5; round++) {
        const responses = await Promise.all([
          post('/api/seats', { club: 'c', seat: String(round) }),
          post('/api/seats', { club: 'c', seat: String(round) }),
        ]);
        const statuses = responses.map((r) => r.status).sort();
        expect(statuses).toEqual([201, 400]);
        const refused = responses.find((r) => r.status === 400)!;
        expect(refused.body.violations).toEqual([
          { propertyPath: 'seat', message: 'This seat is taken.', code: expect.any(String) },
        ]);
      }
    });

    it("racing duplicates (field Unique with a message): one 201, one 400 with the constraint's message", async () => {
      for (let round = 0; round < 5; round++) {
        const responses = await Promise.all([
          post('/api/members', { nick: `n${round}` }),
          post('/api/members', { nick: `n${round}` }),
        ]);
        expect(responses.map((r) => r.status).sort()).toEqual([201, 400]);
        const refused = responses.find((r) => r.status === 400)!;
        expect(refused.body.violations).toEqual([
          { propertyPath: 'nick', message: 'This nick is taken.', code: expect.any(String) },
        ]);
      }
    });

    it('nested new item (cascadePersist + Valid) with a duplicate unique value: 400 writer.nick, sequential and racing', async () => {
      expect((await post('/api/posts', { title: 'a', writer: { nick: 'taken' } })).status).toBe(201);
      const sequential = await post('/api/posts', { title: 'b', writer: { nick: 'taken' } });
      expect(sequential.status).toBe(400);
      expect(sequential.body.violations).toEqual([
        { propertyPath: 'writer.nick', message: 'This value is already used.', code: expect.any(String) },
      ]);
      for (let round = 0; round < 5; round++) {
        const responses = await Promise.all([
          post('/api/posts', { title: 'x', writer: { nick: `w${round}` } }),
          post('/api/posts', { title: 'y', writer: { nick: `w${round}` } }),
        ]);
        expect(responses.map((r) => r.status).sort()).toEqual([201, 400]);
        const refused = responses.find((r) => r.status === 400)!;
        expect(refused.body.violations).toEqual([
          { propertyPath: 'writer.nick', message: 'This value is already used.', code: expect.any(String) },
        ]);
      }
    });
  },
);
