/**
 * Soft delete (`softDelete`): DELETE stamps the item instead of removing its row; from then on every read of the
 * built-in state leaves it out (item, collection, count, filter, subresource, relations, GraphQL, Unique), and a
 * `list` rule lets some callers read the deleted items with `?deleted=true`.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, Unique } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const Shelf = defineResource({
  name: 'Shelf',
  filters: [{ type: 'search', properties: { 'notes.text': 'exact' } }],
  fields: {
    name: { type: 'string' },
    notes: { toMany: 'Note', mappedBy: 'shelf', subresource: true },
    // The owning side of a many-to-many: its links go through a join table.
    labels: { toMany: 'Label', joinTable: 'shelf_labels' },
  },
});

const Note = defineResource({
  name: 'Note',
  softDelete: { list: "is_granted('ROLE_ADMIN')" },
  filters: [{ type: 'search', properties: { text: 'partial' } }],
  fields: {
    text: { type: 'string', constraints: [Unique()] },
    shelf: { toOne: 'Shelf', inversedBy: 'notes', nullable: true },
  },
});

/** Embeds its note (a to-one read with the page, joined), and orders by its text. */
const Pin = defineResource({
  name: 'Pin',
  filters: [{ type: 'order', properties: ['note.text'] }],
  fields: { note: { toOne: 'Note', readableLink: true, nullable: true } },
});

/** Its own field name, declared by the resource; anyone may list its deleted items. */
const Label = defineResource({
  name: 'Label',
  softDelete: { field: 'removedAt', list: "is_granted('PUBLIC_ACCESS')" },
  fields: { name: { type: 'string' }, removedAt: { type: 'datetime', nullable: true, writable: false } },
});

const merge = { 'content-type': 'application/merge-patch+json' };

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('soft delete on $name', (database) => {
  const app = useApp(database, { resources: [Shelf, Note, Label, Pin] });
  const knex = () => app().resourceApi.database.knex;

  async function post(url: string, payload: object) {
    const response = await call(app(), { method: 'POST', url, payload });
    expect(response.status, response.text).toBe(201);
    return response.body;
  }
  /** A shelf with notes 1 to 3 ("note one" …). */
  async function seed() {
    await post('/api/shelves', { name: 'Kitchen' });
    for (const word of ['one', 'two', 'three'])
      await post('/api/notes', { text: `note ${word}`, shelf: '/api/shelves/1' });
  }

  it('DELETE answers 204 and keeps the row with its deletion time; the item then answers 404 like a missing one', async () => {
    await seed();
    const before = Date.now();
    const removed = await call(app(), { method: 'DELETE', url: '/api/notes/2' });
    expect(removed.status).toBe(204);
    const row = await knex()('note').where('id', 2).first();
    expect(row.text).toBe('note two');
    const stamped = new Date(row.deleted_at).getTime();
    expect(stamped).toBeGreaterThanOrEqual(before - 1000);
    expect(stamped).toBeLessThanOrEqual(Date.now() + 1000);

    const gone = await call(app(), { method: 'GET', url: '/api/notes/2' });
    const missing = await call(app(), { method: 'GET', url: '/api/notes/99' });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(missing.body);
    expect(gone.headers['content-type']).toBe(missing.headers['content-type']);
    // A live item does not show the field (null values are left out).
    expect((await call(app(), { method: 'GET', url: '/api/notes/1' })).body).not.toHaveProperty('deletedAt');
  });

  it('leaves a deleted item out of collections, counts, filters, subresources and relations', async () => {
    await seed();
    expect((await call(app(), { method: 'DELETE', url: '/api/notes/2' })).status).toBe(204);
    const ids = (body: { 'hydra:member': { '@id': string }[] }) => body['hydra:member'].map((member) => member['@id']);

    const list = await call(app(), { method: 'GET', url: '/api/notes' });
    expect(ids(list.body)).toEqual(['/api/notes/1', '/api/notes/3']);
    expect(list.body['hydra:totalItems']).toBe(2);
    const searched = await call(app(), { method: 'GET', url: '/api/notes?text=two' });
    expect(searched.body['hydra:member']).toEqual([]);
    expect(searched.body['hydra:totalItems']).toBe(0);
    const paged = await call(app(), { method: 'GET', url: '/api/notes?itemsPerPage=1&page=2' });
    expect(ids(paged.body)).toEqual(['/api/notes/3']);
    expect(paged.body['hydra:totalItems']).toBe(2);

    const sub = await call(app(), { method: 'GET', url: '/api/shelves/1/notes' });
    expect(sub.status, sub.text).toBe(200);
    expect(ids(sub.body)).toEqual(['/api/notes/1', '/api/notes/3']);
    expect(sub.body['hydra:totalItems']).toBe(2);
    const shelf = await call(app(), { method: 'GET', url: '/api/shelves/1' });
    expect(shelf.body.notes).toEqual(['/api/notes/1', '/api/notes/3']);
    const shelves = await call(app(), { method: 'GET', url: '/api/shelves' });
    expect(shelves.body['hydra:member'][0].notes).toEqual(['/api/notes/1', '/api/notes/3']);
    // A filter through the relation reaches live notes only.
    const through = await call(app(), { method: 'GET', url: '/api/shelves?notes.text=note%20two' });
    expect(through.body['hydra:totalItems']).toBe(0);
    expect(
      (await call(app(), { method: 'GET', url: '/api/shelves?notes.text=note%20one' })).body['hydra:totalItems'],
    ).toBe(1);

    // A to-one relation to a deleted note does not embed it: the stored link stays, as its IRI (the IRI answers 404),
    // on the page (joined) and on the item (read after it).
    await post('/api/pins', { note: '/api/notes/1' });
    await post('/api/pins', { note: '/api/notes/3' });
    await knex()('pin').where('id', 2).update({ note_id: 2 });
    const pins = await call(app(), { method: 'GET', url: '/api/pins' });
    expect(pins.body['hydra:member'].map((pin: { note: unknown }) => pin.note)).toEqual([
      expect.objectContaining({ '@id': '/api/notes/1', text: 'note one' }),
      '/api/notes/2',
    ]);
    const pin = await call(app(), { method: 'GET', url: '/api/pins/2' });
    expect(pin.body.note).toBe('/api/notes/2');
  });

  it('orders through a relation as if a deleted related item were none: its values are not read', async () => {
    await seed();
    // Pin 1 points at note 3 (live), pins 2 and 3 at notes 2 ("note two") and 1 ("note one"), both deleted below; pins
    // 4 and 5 at nothing.
    for (const note of ['/api/notes/3', '/api/notes/2', '/api/notes/1', null, null]) await post('/api/pins', { note });
    for (const id of [1, 2])
      expect((await call(app(), { method: 'DELETE', url: `/api/notes/${id}` })).status).toBe(204);
    for (const direction of ['asc', 'desc']) {
      const response = await call(app(), { method: 'GET', url: `/api/pins?order[note.text]=${direction}` });
      const ids: string[] = response.body['hydra:member'].map((pin: { '@id': string }) => pin['@id']);
      const before = (a: number, b: number) => ids.indexOf(`/api/pins/${a}`) < ids.indexOf(`/api/pins/${b}`);
      // Pins 2 and 3 tie, as pins 4 and 5 do (no note): the same tie-break orders both pairs, whatever the texts.
      expect(before(2, 3), `${direction}: ${ids}`).toBe(before(4, 5));
    }
  });

  it('refuses writes to a deleted item with 404 and changes nothing', async () => {
    await seed();
    expect((await call(app(), { method: 'DELETE', url: '/api/notes/2' })).status).toBe(204);
    const row = await knex()('note').where('id', 2).first();
    const again = await call(app(), { method: 'DELETE', url: '/api/notes/2' });
    expect(again.status).toBe(404);
    const patched = await call(app(), {
      method: 'PATCH',
      url: '/api/notes/2',
      headers: merge,
      payload: '{"text":"back"}',
    });
    expect(patched.status).toBe(404);
    const put = await call(app(), { method: 'PUT', url: '/api/notes/2', payload: { text: 'back' } });
    expect(put.status).toBe(404);
    expect(await knex()('note').where('id', 2).first()).toEqual(row);
    // A client cannot set or clear the deletion field: it is read-only.
    const created = await post('/api/notes', { text: 'note four', deletedAt: '2020-01-01T00:00:00+00:00' });
    expect((await knex()('note').where('id', created.id).first()).deleted_at).toBeNull();
  });

  it('lets a deleted item’s unique value be used again, and no relation point at a deleted item', async () => {
    await seed();
    const taken = await call(app(), { method: 'POST', url: '/api/notes', payload: { text: 'note two' } });
    expect(taken.status).toBe(400);
    expect((await call(app(), { method: 'DELETE', url: '/api/notes/2' })).status).toBe(204);
    // The check leaves the deleted item out, and so does the (partial) unique index.
    const reused = await call(app(), { method: 'POST', url: '/api/notes', payload: { text: 'note two' } });
    expect(reused.status, reused.text).toBe(201);
    const twice = await call(app(), { method: 'POST', url: '/api/notes', payload: { text: 'note two' } });
    expect(twice.status).toBe(400);
    expect(Number((await knex()('note').where('text', 'note two').count({ n: '*' }))[0]!.n)).toBe(2);

    await post('/api/labels', { name: 'red' });
    await post('/api/labels', { name: 'blue' });
    const linked = await call(app(), {
      method: 'PATCH',
      url: '/api/shelves/1',
      headers: merge,
      payload: '{"labels":["/api/labels/1","/api/labels/2"]}',
    });
    expect(linked.body.labels).toEqual(['/api/labels/1', '/api/labels/2']);
    expect((await call(app(), { method: 'DELETE', url: '/api/labels/1' })).status).toBe(204);
    expect((await call(app(), { method: 'GET', url: '/api/shelves/1' })).body.labels).toEqual(['/api/labels/2']);
    const relinked = await call(app(), {
      method: 'PATCH',
      url: '/api/shelves/1',
      headers: merge,
      payload: '{"labels":["/api/labels/1"]}',
    });
    expect(relinked.status).toBe(400);
    const moved = await call(app(), {
      method: 'PATCH',
      url: '/api/notes/1',
      headers: merge,
      payload: '{"shelf":"/api/notes/2"}',
    });
    expect(moved.status).toBe(400);
  });

  it('lists the deleted items with ?deleted=true for callers the list rule grants, and refuses the others', async () => {
    await seed();
    await post('/api/labels', { name: 'red' });
    await post('/api/labels', { name: 'blue' });
    expect((await call(app(), { method: 'DELETE', url: '/api/labels/2' })).status).toBe(204);
    expect((await call(app(), { method: 'DELETE', url: '/api/notes/1' })).status).toBe(204);

    const deleted = await call(app(), { method: 'GET', url: '/api/labels?deleted=true' });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body['hydra:member'].map((m: { name: string }) => m.name)).toEqual(['blue']);
    expect(typeof deleted.body['hydra:member'][0].removedAt).toBe('string');
    expect(deleted.body['hydra:totalItems']).toBe(1);
    const live = await call(app(), { method: 'GET', url: '/api/labels?deleted=false' });
    expect(live.body['hydra:member'].map((m: { name: string }) => m.name)).toEqual(['red']);
    const bad = await call(app(), { method: 'GET', url: '/api/labels?deleted=maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('deleted');
    // The parameter is described with the collection's search template.
    expect(live.body['hydra:search']['hydra:mapping'].map((m: { variable: string }) => m.variable)).toContain(
      'deleted',
    );

    // Note's rule asks for ROLE_ADMIN: an anonymous caller gets the 401 of a denied rule.
    const denied = await call(app(), { method: 'GET', url: '/api/notes?deleted=true' });
    expect(denied.status).toBe(401);
    expect((await call(app(), { method: 'GET', url: '/api/notes?deleted=false' })).status).toBe(200);
  });

  it('leaves a deleted item out of GraphQL reads and connections', async () => {
    await seed();
    expect((await call(app(), { method: 'DELETE', url: '/api/notes/2' })).status).toBe(204);
    const response = await call(app(), {
      method: 'POST',
      url: '/graphql',
      payload: {
        query:
          '{ notes { totalCount edges { node { text } } } gone: note(id: "/api/notes/2") { text } shelf(id: "/api/shelves/1") { notes { totalCount edges { node { text } } } } }',
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const texts = { totalCount: 2, edges: [{ node: { text: 'note one' } }, { node: { text: 'note three' } }] };
    expect(response.body.data).toEqual({ notes: texts, gone: null, shelf: { notes: texts } });
  });

  it('answers two DELETEs of one item at once with one 204 and one 404, and changes nothing else', async () => {
    await seed();
    for (let id = 1; id <= 3; id++) {
      const [first, second] = await Promise.all([
        call(app(), { method: 'DELETE', url: `/api/notes/${id}` }),
        call(app(), { method: 'DELETE', url: `/api/notes/${id}` }),
      ]);
      expect([first.status, second.status].sort(), `note ${id}`).toEqual([204, 404]);
      const rows = await knex()('note').orderBy('id');
      expect(rows.map((row: { text: string }) => row.text)).toEqual(['note one', 'note two', 'note three']);
      expect(rows.map((row: { deleted_at: unknown }) => row.deleted_at !== null)).toEqual(
        [1, 2, 3].map((n) => n <= id),
      );
    }
  });

  it('never resurrects an item when an update races its soft delete: the update wins first, or gets 404', async () => {
    for (let round = 1; round <= 10; round++) {
      const note = await post('/api/notes', { text: `race ${round}` });
      const [removed, patched] = await Promise.all([
        call(app(), { method: 'DELETE', url: `/api/notes/${note.id}` }),
        call(app(), {
          method: 'PATCH',
          url: `/api/notes/${note.id}`,
          headers: merge,
          payload: `{"text":"won ${round}"}`,
        }),
      ]);
      expect(removed.status).toBe(204);
      expect([200, 404], `round ${round}: ${patched.status} ${patched.text}`).toContain(patched.status);
      const row = await knex()('note').where('id', note.id).first();
      expect(row.deleted_at).not.toBeNull();
      expect(row.text).toBe(patched.status === 200 ? `won ${round}` : `race ${round}`);
      expect((await call(app(), { method: 'GET', url: `/api/notes/${note.id}` })).status).toBe(404);
    }
  });
});
