/**
 * Migrations of resources with UUID ids, on SQLite and PostgreSQL: the generated file makes UUID primary keys (with
 * the database's default when the database makes them), UUID relation and join columns with their foreign keys; the
 * API then works on it with schema sync off; a relation to a UUID resource added to a table with rows works; and a
 * resource whose id type changed over an existing table is refused at start-up with a clear message.
 */
import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { defineResource, generateMigration, rollbackMigrations, runMigrations } from '@resource-api/core';
import { injectJson, testDatabases } from '@resource-api/core/testing';
import { freshTarget, type MigrationTarget, on, startApp } from './support.js';

const Ticket = defineResource({
  name: 'Ticket',
  id: 'uuid',
  fields: {
    title: { type: 'string' },
    labels: { toMany: 'Label', inversedBy: 'tickets', targetId: 'uuid' },
  },
});
const Label = defineResource({
  name: 'Label',
  id: { type: 'uuid', generatedBy: 'database' },
  fields: { name: { type: 'string' }, tickets: { toMany: 'Ticket', mappedBy: 'labels', targetId: 'uuid' } },
});
const NoteV1 = defineResource({ name: 'Note', fields: { text: { type: 'string' } } });
const NoteV2 = defineResource({
  name: 'Note',
  fields: {
    text: { type: 'string' },
    ticket: { toOne: 'Ticket', nullable: true, onDelete: 'cascade', targetId: 'uuid' },
  },
});
/** Note again, now declaring UUID ids over the table made with integer ones. */
const NoteAsUuid = defineResource({ name: 'Note', id: 'uuid', fields: { text: { type: 'string' } } });

const json = { 'content-type': 'application/ld+json' };
const count = async (query: Knex.QueryBuilder): Promise<number> =>
  Number(((await query.count({ n: '*' })) as { n: number | string }[])[0]!.n);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'migrations of UUID resources on $name',
  (database) => {
    let target: MigrationTarget;
    beforeEach(async () => {
      target = await freshTarget(database);
    });
    afterEach(async () => {
      await target.drop();
    });

    it('creates UUID keys, relation columns and a join table the API works on; down drops them', async () => {
      const file = await generateMigration({ resources: [Ticket, Label, NoteV1], ...on(target) });
      const source = readFileSync(file!, 'utf8');
      expect(source).toContain("table.uuid('id').primary().notNullable();");
      expect(source).toContain("table.uuid('id').primary().defaultTo(knex.fn.uuid()).notNullable();");
      expect(source).toContain("table.uuid('ticket_id').notNullable();");
      expect(source).toContain("table.uuid('label_id').notNullable();");
      await runMigrations(on(target));

      const app = await startApp(target, [Ticket, Label, NoteV1]);
      const label = await injectJson(app, {
        method: 'POST',
        url: '/api/labels',
        headers: json,
        payload: { name: 'bug' },
      });
      expect(label.status, label.text).toBe(201);
      expect(label.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
      const ticket = await injectJson(app, {
        method: 'POST',
        url: '/api/tickets',
        headers: json,
        payload: { title: 'T', labels: [label.body['@id']] },
      });
      expect(ticket.status, ticket.text).toBe(201);
      expect(ticket.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      expect((await injectJson(app, { method: 'GET', url: label.body['@id'] })).body.tickets).toEqual([
        ticket.body['@id'],
      ]);
      // The join table's foreign keys hold: a link to a ticket that does not exist is refused by the database.
      await expect(
        target
          .knex('ticket_labels')
          .insert({ ticket_id: '01890a5d-ac96-774b-bcce-b302099a8057', label_id: label.body.id }),
      ).rejects.toThrow(/foreign key/i);
      await app.close();

      expect(await generateMigration({ resources: [Ticket, Label, NoteV1], ...on(target) })).toBeNull();
      await rollbackMigrations(on(target));
      expect(await target.knex.schema.hasTable('ticket')).toBe(false);
    });

    it('adds a relation to a UUID resource on a table with rows', async () => {
      await generateMigration({ resources: [Ticket, Label, NoteV1], ...on(target) });
      await runMigrations(on(target));
      const v1 = await startApp(target, [Ticket, Label, NoteV1]);
      await injectJson(v1, { method: 'POST', url: '/api/notes', headers: json, payload: { text: 'old' } });
      await v1.close();

      const file = await generateMigration({ resources: [Ticket, Label, NoteV2], ...on(target), name: 'note ticket' });
      expect(readFileSync(file!, 'utf8')).toContain('add column note.ticket_id');
      await runMigrations(on(target));
      const v2 = await startApp(target, [Ticket, Label, NoteV2]);
      const ticket = await injectJson(v2, {
        method: 'POST',
        url: '/api/tickets',
        headers: json,
        payload: { title: 'T' },
      });
      const note = await injectJson(v2, {
        method: 'POST',
        url: '/api/notes',
        headers: json,
        payload: { text: 'new', ticket: ticket.body['@id'] },
      });
      expect(note.status, note.text).toBe(201);
      expect(note.body.ticket).toBe(ticket.body['@id']);
      expect((await injectJson(v2, { method: 'GET', url: '/api/notes/1' })).body.text).toBe('old');
      // Deleting the ticket cascades to its note, through the new foreign key.
      expect((await injectJson(v2, { method: 'DELETE', url: ticket.body['@id'] })).status).toBe(204);
      expect(await count(target.knex('note'))).toBe(1);
      await v2.close();
    });

    it('refuses a resource whose ids changed type over an existing table, naming the column', async () => {
      await generateMigration({ resources: [NoteV1], ...on(target) });
      await runMigrations(on(target));
      await expect(generateMigration({ resources: [NoteAsUuid], ...on(target) })).rejects.toThrow(
        /Column note\.id holds integers .* but the declarations want UUIDs/,
      );
      await expect(startApp(target, [NoteAsUuid], { schemaSync: true })).rejects.toThrow(/note\.id holds integers/);
    });
  },
);
