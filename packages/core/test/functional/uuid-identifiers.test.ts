/**
 * UUID identifiers (`id: 'uuid'`), on SQLite and PostgreSQL: ids made by the framework (version 7, in creation order)
 * or by the database; IRIs, relations both ways (to-one, one-to-many, many-to-many with integer and UUID sides),
 * subresources, filters, cursor pagination, unique checks, GraphQL and OpenAPI follow; malformed ids are 404s in
 * paths and 400s in filters and bodies, and change nothing.
 */
import { describe, expect, inject, it } from 'vitest';
import {
  ApiProperty,
  ApiResource,
  buildMetadata,
  DeclarationError,
  defineResource,
  type InferResource,
  NotBlank,
  Unique,
} from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { expectTypeOf } from 'vitest';
import { call, useApp } from '../helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ABSENT = '01890a5d-ac96-774b-bcce-b302099a8057';

const Ticket = defineResource({
  name: 'Ticket',
  id: 'uuid',
  fields: {
    title: { type: 'string', constraints: [NotBlank()] },
    code: { type: 'string', nullable: true, constraints: [Unique()] },
    replies: { toMany: 'Reply', mappedBy: 'ticket', subresource: true },
    labels: { toMany: 'Label', inversedBy: 'tickets', targetId: 'uuid' },
    tags: { toMany: 'Tag', inversedBy: 'tickets' },
  },
  filters: [{ type: 'search', properties: { title: 'partial', id: 'exact', labels: 'exact' } }],
});

const Reply = defineResource({
  name: 'Reply',
  fields: {
    text: { type: 'string' },
    ticket: { toOne: 'Ticket', inversedBy: 'replies', targetId: 'uuid', readableLink: true, onDelete: 'cascade' },
  },
  filters: [{ type: 'search', properties: { ticket: 'exact' } }],
});

const Label = defineResource({
  name: 'Label',
  id: { type: 'uuid', generatedBy: 'database' },
  fields: {
    name: { type: 'string' },
    tickets: { toMany: 'Ticket', mappedBy: 'labels', targetId: 'uuid' },
  },
});

const Tag = defineResource({
  name: 'Tag',
  fields: { name: { type: 'string' }, tickets: { toMany: 'Ticket', mappedBy: 'tags', targetId: 'uuid' } },
});

const Event = defineResource({
  name: 'Event',
  id: 'uuid',
  fields: { n: { type: 'integer' } },
  paginationViaCursor: { direction: 'asc' },
  paginationItemsPerPage: 2,
});

const json = { 'content-type': 'application/ld+json' };
const resources = [Ticket, Reply, Label, Tag, Event];

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('UUID identifiers on $name', (database) => {
  const app = useApp(database, { resources });

  const post = async (url: string, payload: Record<string, unknown>) => {
    const response = await call(app(), { method: 'POST', url, headers: json, payload });
    expect(response.status, response.text).toBe(201);
    return response.body as Record<string, unknown> & { '@id': string; id: string };
  };

  it('makes version 7 UUIDs in creation order, and serves the item at its IRI', async () => {
    const first = await post('/api/tickets', { title: 'First' });
    const second = await post('/api/tickets', { title: 'Second' });
    expect(first.id).toMatch(UUID_V7);
    expect(first['@id']).toBe(`/api/tickets/${first.id}`);
    expect(second.id > first.id).toBe(true);

    const read = await call(app(), { method: 'GET', url: first['@id'] });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ '@id': first['@id'], '@type': 'Ticket', id: first.id, title: 'First' });
    // Upper case names the same item; the body keeps the canonical form.
    const upper = await call(app(), { method: 'GET', url: `/api/tickets/${first.id.toUpperCase()}` });
    expect(upper.status).toBe(200);
    expect(upper.body['@id']).toBe(first['@id']);

    const list = await call(app(), { method: 'GET', url: '/api/tickets' });
    expect(list.body['hydra:member'].map((t: { title: string }) => t.title)).toEqual(['First', 'Second']);
    expect(list.body['hydra:totalItems']).toBe(2);
  });

  it('answers 404 to malformed, integer and unknown ids, and changes nothing', async () => {
    const ticket = await post('/api/tickets', { title: 'Kept' });
    for (const id of ['1', 'abc', `${ticket.id}x`, ticket.id.slice(1), ABSENT, '%27%20or%201%3D1']) {
      expect((await call(app(), { method: 'GET', url: `/api/tickets/${id}` })).status, id).toBe(404);
      const patch = await call(app(), {
        method: 'PATCH',
        url: `/api/tickets/${id}`,
        headers: { 'content-type': 'application/merge-patch+json' },
        payload: { title: 'Changed' },
      });
      expect(patch.status, id).toBe(404);
      expect((await call(app(), { method: 'DELETE', url: `/api/tickets/${id}` })).status, id).toBe(404);
    }
    // An integer resource refuses a UUID as its id.
    expect((await call(app(), { method: 'GET', url: `/api/replies/${ticket.id}` })).status).toBe(404);
    expect((await call(app(), { method: 'GET', url: ticket['@id'] })).body.title).toBe('Kept');
  });

  it('updates and deletes by UUID', async () => {
    const ticket = await post('/api/tickets', { title: 'Draft' });
    const patched = await call(app(), {
      method: 'PATCH',
      url: ticket['@id'],
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: { title: 'Final', id: ABSENT },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id: ticket.id, title: 'Final' });
    const put = await call(app(), { method: 'PUT', url: ticket['@id'], headers: json, payload: { title: 'Put' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.id).toBe(ticket.id);
    expect((await call(app(), { method: 'DELETE', url: ticket['@id'] })).status).toBe(204);
    expect((await call(app(), { method: 'GET', url: ticket['@id'] })).status).toBe(404);
  });

  it('makes the id in the database when declared so', async () => {
    const label = await post('/api/labels', { name: 'bug' });
    expect(label.id).toMatch(UUID_V4);
    expect((await call(app(), { method: 'GET', url: label['@id'] })).body.name).toBe('bug');
  });

  it('links items by UUID IRIs: to-one, inverse side, many-to-many on UUID and integer sides, subresource', async () => {
    const bug = await post('/api/labels', { name: 'bug' });
    const urgent = await post('/api/tags', { name: 'urgent' });
    const ticket = await post('/api/tickets', { title: 'Linked', labels: [bug['@id']], tags: [urgent['@id']] });
    expect(ticket.labels).toEqual([bug['@id']]);
    expect(ticket.tags).toEqual([urgent['@id']]);
    const reply = await post('/api/replies', { text: 'On it', ticket: ticket['@id'] });
    expect(reply.ticket).toMatchObject({ '@id': ticket['@id'], title: 'Linked' });
    // An absolute IRI is taken too.
    await post('/api/replies', { text: 'Absolute', ticket: `http://localhost${ticket['@id']}` });

    const read = await call(app(), { method: 'GET', url: ticket['@id'] });
    expect(read.body.replies).toHaveLength(2);
    expect((await call(app(), { method: 'GET', url: bug['@id'] })).body.tickets).toEqual([ticket['@id']]);
    expect((await call(app(), { method: 'GET', url: urgent['@id'] })).body.tickets).toEqual([ticket['@id']]);

    const sub = await call(app(), { method: 'GET', url: `${ticket['@id']}/replies` });
    expect(sub.status, sub.text).toBe(200);
    expect(sub.body['hydra:totalItems']).toBe(2);
    expect((await call(app(), { method: 'GET', url: `/api/tickets/${ABSENT}/replies` })).status).toBe(404);
    expect((await call(app(), { method: 'GET', url: '/api/tickets/12/replies' })).status).toBe(404);
  });

  it('refuses relations to malformed, unknown or integer IRIs with 400, writing nothing', async () => {
    const before = (await call(app(), { method: 'GET', url: '/api/replies' })).body['hydra:totalItems'];
    for (const iri of [
      '/api/tickets/1',
      '/api/tickets/not-a-uuid',
      `/api/tickets/${ABSENT}`,
      `/api/labels/${ABSENT}`,
    ]) {
      const response = await call(app(), {
        method: 'POST',
        url: '/api/replies',
        headers: json,
        payload: { text: 'x', ticket: iri },
      });
      expect(response.status, iri).toBe(400);
      expect(response.body.violations[0].propertyPath).toBe('ticket');
    }
    const labels = await call(app(), {
      method: 'POST',
      url: '/api/tickets',
      headers: json,
      payload: { title: 'x', labels: [`/api/labels/${ABSENT}`] },
    });
    expect(labels.status).toBe(400);
    expect((await call(app(), { method: 'GET', url: '/api/replies' })).body['hydra:totalItems']).toBe(before);
    expect((await call(app(), { method: 'GET', url: '/api/tickets' })).body['hydra:totalItems']).toBe(0);
  });

  it('filters by UUID IRIs and ids; a malformed value is a 400', async () => {
    const one = await post('/api/tickets', { title: 'One' });
    const two = await post('/api/tickets', { title: 'Two' });
    await post('/api/replies', { text: 'a', ticket: one['@id'] });
    await post('/api/replies', { text: 'b', ticket: two['@id'] });
    const texts = async (url: string) => {
      const response = await call(app(), { method: 'GET', url });
      expect(response.status, response.text).toBe(200);
      return response.body['hydra:member'].map((r: { text: string }) => r.text);
    };
    expect(await texts(`/api/replies?ticket=${encodeURIComponent(one['@id'])}`)).toEqual(['a']);
    expect(await texts(`/api/replies?ticket=${two.id}`)).toEqual(['b']);
    expect(await texts(`/api/replies?ticket[]=${one.id}&ticket[]=${two.id}`)).toEqual(['a', 'b']);
    expect(await texts(`/api/replies?ticket=${ABSENT}`)).toEqual([]);
    const titles = await call(app(), { method: 'GET', url: `/api/tickets?id=${two.id}` });
    expect(titles.body['hydra:member'].map((t: { title: string }) => t.title)).toEqual(['Two']);
    for (const value of ['1', 'nope', '/api/tickets/1']) {
      const bad = await call(app(), { method: 'GET', url: `/api/replies?ticket=${encodeURIComponent(value)}` });
      expect(bad.status, value).toBe(400);
      expect(bad.body.detail).toContain('ticket');
    }
  });

  it('pages by cursor on UUIDs; a malformed cursor is a 400', async () => {
    for (let n = 1; n <= 5; n++) await post('/api/events', { n });
    const first = await call(app(), { method: 'GET', url: '/api/events' });
    expect(first.body['hydra:member'].map((e: { n: number }) => e.n)).toEqual([1, 2]);
    const next = first.body['hydra:view']['hydra:next'] as string;
    expect(next).toMatch(/id%5Bgt%5D=[0-9a-f-]{36}$/);
    const second = await call(app(), { method: 'GET', url: next });
    expect(second.body['hydra:member'].map((e: { n: number }) => e.n)).toEqual([3, 4]);
    const third = await call(app(), { method: 'GET', url: second.body['hydra:view']['hydra:next'] });
    expect(third.body['hydra:member'].map((e: { n: number }) => e.n)).toEqual([5]);
    expect((await call(app(), { method: 'GET', url: '/api/events?id[gt]=12' })).status).toBe(400);
  });

  it('checks Unique against other items, not the item itself', async () => {
    const ticket = await post('/api/tickets', { title: 'A', code: 'T-1' });
    const same = await call(app(), {
      method: 'PUT',
      url: ticket['@id'],
      headers: json,
      payload: { title: 'A again', code: 'T-1' },
    });
    expect(same.status, same.text).toBe(200);
    const clash = await call(app(), {
      method: 'POST',
      url: '/api/tickets',
      headers: json,
      payload: { title: 'B', code: 'T-1' },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.violations[0].propertyPath).toBe('code');
  });

  it('gives GraphQL the IRI as id and the UUID as _id, and finds items by UUID IRI', async () => {
    const ticket = await post('/api/tickets', { title: 'Graph' });
    await post('/api/replies', { text: 'r', ticket: ticket['@id'] });
    const response = await call(app(), {
      method: 'POST',
      url: '/graphql',
      payload: {
        query:
          'query($id: ID!) { ticket(id: $id) { id _id title replies { edges { node { text ticket { _id } } } } } }',
        variables: { id: ticket['@id'] },
      },
    });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.ticket).toEqual({
      id: ticket['@id'],
      _id: ticket.id,
      title: 'Graph',
      replies: { edges: [{ node: { text: 'r', ticket: { _id: ticket.id } } }] },
    });
    const missing = await call(app(), {
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ ticket(id: "/api/tickets/1") { id } }' },
    });
    expect(missing.body.data.ticket).toBeNull();
  });

  it('documents UUIDs in OpenAPI: the id property, path parameters and cursors', async () => {
    const openapi = (await call(app(), { method: 'GET', url: '/api/docs.json' })).body;
    const item = openapi.paths['/tickets/{id}'].get;
    expect(item.parameters.find((p: { name: string }) => p.name === 'id').schema).toEqual({
      type: 'string',
      format: 'uuid',
    });
    const sub = openapi.paths['/tickets/{id}/replies'].get;
    expect(sub.parameters.find((p: { name: string }) => p.name === 'id').schema).toEqual({
      type: 'string',
      format: 'uuid',
    });
    expect(openapi.paths['/replies/{id}'].get.parameters[0].schema).toEqual({ type: 'integer', minimum: 1 });
    const events = openapi.paths['/events'].get.parameters;
    expect(events.find((p: { name: string }) => p.name === 'id[gt]').schema).toEqual({
      type: 'string',
      format: 'uuid',
    });
    const schemas = Object.entries(openapi.components.schemas as Record<string, { properties?: { id?: unknown } }>);
    const ticketSchema = schemas.find(([name]) => name.startsWith('Ticket.jsonld'))![1];
    expect(ticketSchema.properties!.id).toEqual({ type: 'string', format: 'uuid', readOnly: true });
  });
});

describe('UUID identifiers, declared', () => {
  it('types items with string ids, and relations declared targetId uuid as strings', () => {
    expectTypeOf<InferResource<typeof Ticket>['id']>().toEqualTypeOf<string>();
    expectTypeOf<InferResource<typeof Reply>['id']>().toEqualTypeOf<number>();
    expectTypeOf<InferResource<typeof Reply>['ticket']>().toEqualTypeOf<string>();
    expectTypeOf<InferResource<typeof Ticket>['tags']>().toEqualTypeOf<number[] | undefined>();
  });

  it('asks relations to UUID resources to say targetId, and refuses wrong id options', () => {
    const Loose = defineResource({ name: 'Loose', fields: { ticket: { toOne: 'Ticket' } } });
    expect(() => buildMetadata({ resources: [Ticket, Reply, Label, Tag, Loose] })).toThrow(
      /"Loose", field "ticket": "Ticket" has UUID ids; declare targetId: 'uuid'/,
    );
    const Wrong = defineResource({ name: 'Wrong', fields: { tag: { toOne: 'Tag', targetId: 'uuid' } } });
    expect(() => buildMetadata({ resources: [Ticket, Reply, Label, Tag, Wrong] })).toThrow(DeclarationError);
    const Odd = { name: 'Odd', id: 'ulid', fields: {} } as never;
    expect(() => buildMetadata({ resources: [Odd] })).toThrow(/"id" must be "integer", "uuid"/);
    const Odder = { name: 'Odder', id: { type: 'uuid', generatedBy: 'client' }, fields: {} } as never;
    expect(() => buildMetadata({ resources: [Odder] })).toThrow(/generatedBy/);
  });

  it.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
    'takes id: uuid in the decorator form too ($name)',
    async (database) => {
      @ApiResource({ id: 'uuid' })
      class Gadget {
        id!: string;
        @ApiProperty({ type: 'string' }) name!: string;
      }
      expectTypeOf<InferResource<typeof Gadget>['id']>().toEqualTypeOf<string>();
      const app = await buildTestApp({ database, resources: [Gadget] });
      const created = await call(app, { method: 'POST', url: '/api/gadgets', headers: json, payload: { name: 'g' } });
      expect(created.status, created.text).toBe(201);
      expect(created.body.id).toMatch(UUID);
      expect((await call(app, { method: 'GET', url: created.body['@id'] })).body.name).toBe('g');
      await app.close();
    },
  );
});
