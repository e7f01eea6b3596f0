/**
 * Restoring a soft-deleted item (`softDelete.restore`): `PATCH /api/<plural>/{id}/restore` for the callers the rule
 * grants (judged on the deleted item), 200 with the item as GET renders it; 403/401 for the others, 404 for an item
 * that does not exist, 409 for one that is not deleted, the Unique violation when a live item holds its values, and
 * nothing changed by a refused restore. The same through GraphQL (`restore<Resource>`), in the OpenAPI document, and
 * under races with a delete, another restore and a create of the same unique value.
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { defineResource, type StateProcessor, Unique } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { securityOptions, User } from '../security/fixtures.js';

const Folder = defineResource({
  name: 'Folder',
  fields: { name: { type: 'string' }, memos: { toMany: 'Memo', mappedBy: 'folder', subresource: true } },
});

const Memo = defineResource({
  name: 'Memo',
  softDelete: {
    list: "is_granted('ROLE_ADMIN')",
    // Judged on the deleted item: its author may bring it back too.
    restore: "is_granted('ROLE_ADMIN') or object.author == user",
    restoreMessage: 'Only an admin or the author restores a memo.',
  },
  fields: {
    text: { type: 'string', constraints: [Unique()] },
    folder: { toOne: 'Folder', inversedBy: 'memos', nullable: true },
    author: { toOne: 'User', currentUser: 'default', nullable: true },
    updatedAt: { type: 'datetime', timestamp: 'update' },
    updatedBy: { toOne: 'User', blame: 'update', nullable: true, onDelete: 'set null' },
  },
});

/** Soft-deleted without a restore rule: no restore route. */
const Label = defineResource({ name: 'Label', softDelete: true, fields: { name: { type: 'string' } } });

/** Writes need If-Match, which a deleted item cannot give: a restore does not ask for it. */
const Draft = defineResource({
  name: 'Draft',
  requireIfMatch: true,
  softDelete: { restore: "is_granted('PUBLIC_ACCESS')" },
  fields: { title: { type: 'string' } },
});

/**
 * Its processor writes a live item with the same name inside the restore's transaction, after the Unique check ran:
 * what a create racing the restore does at worst. Only the partial unique index can refuse the restore then.
 */
const sneakInClash: StateProcessor = {
  async process(data, context, next) {
    if (context.operation.restores) await context.db('tag').insert({ name: data.name });
    return next(data);
  },
};
const Tag = defineResource({
  name: 'Tag',
  softDelete: { restore: "is_granted('PUBLIC_ACCESS')" },
  processor: sneakInClash,
  fields: { name: { type: 'string', constraints: [Unique()] } },
});

const merge = { 'content-type': 'application/merge-patch+json' };

async function register(app: FastifyInstance, email: string, roles?: string[]) {
  const user = await call(app, {
    method: 'POST',
    url: '/api/users',
    payload: { email, plainPassword: 'password-123' },
  });
  expect(user.status, user.text).toBe(201);
  if (roles)
    await app.resourceApi.database
      .knex('user')
      .where('id', user.body.id)
      .update({ roles: JSON.stringify(roles) });
  const login = await call(app, { method: 'POST', url: '/api/auth', payload: { email, password: 'password-123' } });
  expect(login.status, login.text).toBe(200);
  return { iri: user.body['@id'] as string, auth: { authorization: `Bearer ${login.body.token}` } };
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'restoring soft-deleted items on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Folder, Memo, Label, Draft, Tag], security: securityOptions() });
    const knex = () => app().resourceApi.database.knex;
    const memoRow = async (id: number | string) => knex()('memo').where('id', id).first();
    const restore = (id: number | string, headers: Record<string, string> = {}, payload?: string) =>
      call(app(), {
        method: 'PATCH',
        url: `/api/memos/${id}/restore`,
        headers: payload === undefined ? headers : { ...headers, ...merge },
        ...(payload === undefined ? {} : { payload }),
      });

    /** An admin, ada (author of memos 1 to 3, in folder 1) and grace; memo 2 deleted. */
    async function seeded() {
      const admin = await register(app(), 'admin@example.com', ['ROLE_ADMIN']);
      const ada = await register(app(), 'ada@example.com');
      const grace = await register(app(), 'grace@example.com');
      expect((await call(app(), { method: 'POST', url: '/api/folders', payload: { name: 'Inbox' } })).status).toBe(201);
      for (const word of ['one', 'two', 'three']) {
        const created = await call(app(), {
          method: 'POST',
          url: '/api/memos',
          headers: ada.auth,
          payload: { text: `memo ${word}`, folder: '/api/folders/1' },
        });
        expect(created.status, created.text).toBe(201);
      }
      expect((await call(app(), { method: 'DELETE', url: '/api/memos/2' })).status).toBe(204);
      return { admin, ada, grace };
    }
    const ids = (body: { 'hydra:member': { '@id': string }[] }) => body['hydra:member'].map((m) => m['@id']);

    it('restores a deleted item for a caller the rule grants: 200 with the item as GET renders it, stamped, back in every read', async () => {
      const { admin } = await seeded();
      const deleted = await memoRow(2);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const restored = await restore(2, admin.auth);
      expect(restored.status, restored.text).toBe(200);
      expect(restored.headers['content-type']).toBe('application/ld+json; charset=utf-8');
      const read = await call(app(), { method: 'GET', url: '/api/memos/2' });
      expect(read.status).toBe(200);
      expect(restored.body).toEqual(read.body);
      expect(restored.body).toMatchObject({ '@id': '/api/memos/2', text: 'memo two', updatedBy: admin.iri });
      expect(restored.body).not.toHaveProperty('deletedAt');
      // A write: updatedAt and updatedBy stamped, the deletion field cleared, nothing else changed.
      const row = await memoRow(2);
      expect(row.deleted_at).toBeNull();
      expect(new Date(row.updated_at).getTime()).toBeGreaterThan(new Date(deleted.updated_at).getTime());
      expect({ ...row, deleted_at: 1, updated_at: 1, updated_by_id: 1 }).toEqual({
        ...deleted,
        deleted_at: 1,
        updated_at: 1,
        updated_by_id: 1,
      });

      const list = await call(app(), { method: 'GET', url: '/api/memos' });
      expect(ids(list.body)).toEqual(['/api/memos/1', '/api/memos/2', '/api/memos/3']);
      expect(list.body['hydra:totalItems']).toBe(3);
      const sub = await call(app(), { method: 'GET', url: '/api/folders/1/memos' });
      expect(sub.body['hydra:totalItems']).toBe(3);
      expect((await call(app(), { method: 'GET', url: '/api/folders/1' })).body.memos).toEqual([
        '/api/memos/1',
        '/api/memos/2',
        '/api/memos/3',
      ]);
      const stillDeleted = await call(app(), { method: 'GET', url: '/api/memos?deleted=true', headers: admin.auth });
      expect(stillDeleted.body['hydra:totalItems']).toBe(0);
      // Deleted again, and restored again: the restore takes no body, an empty object is as good as none.
      expect((await call(app(), { method: 'DELETE', url: '/api/memos/2' })).status).toBe(204);
      const again = await restore(2, admin.auth, '{}');
      expect(again.status, again.text).toBe(200);
      expect(again.body.text).toBe('memo two');
    });

    it('judges the rule on the deleted item: its author may restore it, anyone else gets 403 (401 anonymous) and nothing changes', async () => {
      const { ada, grace } = await seeded();
      const before = await memoRow(2);
      const denied = await restore(2, grace.auth);
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ status: 403, detail: 'Only an admin or the author restores a memo.' });
      const anonymous = await restore(2);
      expect(anonymous.status).toBe(401);
      expect(await memoRow(2)).toEqual(before);
      expect((await call(app(), { method: 'GET', url: '/api/memos/2' })).status).toBe(404);

      const byAuthor = await restore(2, ada.auth);
      expect(byAuthor.status, byAuthor.text).toBe(200);
      expect(byAuthor.body.updatedBy).toBe(ada.iri);
    });

    it('answers 404 for an item that does not exist or an id that cannot be one, as GET does', async () => {
      const { admin } = await seeded();
      const missing = await call(app(), { method: 'GET', url: '/api/memos/99' });
      for (const id of ['99', 'abc', '0', '1.5']) {
        const response = await restore(id, admin.auth);
        expect(response.status, id).toBe(404);
        expect(response.body, id).toEqual(missing.body);
      }
    });

    it('answers 409 for an item that is not deleted, and changes nothing (not even its updatedAt)', async () => {
      const { admin } = await seeded();
      const before = await memoRow(1);
      const live = await restore(1, admin.auth);
      expect(live.status).toBe(409);
      expect(live.body).toMatchObject({ status: 409, detail: 'The Memo is not deleted: there is nothing to restore.' });
      expect(await memoRow(1)).toEqual(before);
      // A caller the rule denies learns nothing of the item's state: 403 either way.
      const grace = await register(app(), 'grace2@example.com');
      expect((await restore(1, grace.auth)).status).toBe(403);
    });

    it('refuses a restore when a live item now holds its unique value, with the Unique violation, and changes nothing', async () => {
      const { admin, ada } = await seeded();
      const created = await call(app(), {
        method: 'POST',
        url: '/api/memos',
        headers: ada.auth,
        payload: { text: 'memo two' },
      });
      expect(created.status, created.text).toBe(201);
      const clash = await call(app(), {
        method: 'POST',
        url: '/api/memos',
        headers: ada.auth,
        payload: { text: 'memo two' },
      });
      expect(clash.status).toBe(400);
      const before = await memoRow(2);
      const refused = await restore(2, admin.auth);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.headers['content-type']).toBe(clash.headers['content-type']);
      expect(refused.body.violations).toEqual(clash.body.violations);
      expect(refused.body).toMatchObject({
        '@type': 'ConstraintViolationList',
        violations: [{ propertyPath: 'text', message: 'This value is already used.' }],
      });
      expect(await memoRow(2)).toEqual(before);
      // Once the live one is deleted, the value is free again.
      expect((await call(app(), { method: 'DELETE', url: `/api/memos/${created.body.id}` })).status).toBe(204);
      expect((await restore(2, admin.auth)).status).toBe(200);
    });

    it('is refused by the partial unique index when a clashing item is written after the check, with the same violation', async () => {
      expect((await call(app(), { method: 'POST', url: '/api/tags', payload: { name: 'red' } })).status).toBe(201);
      expect((await call(app(), { method: 'DELETE', url: '/api/tags/1' })).status).toBe(204);
      const before = await knex()('tag').orderBy('id');
      const refused = await call(app(), { method: 'PATCH', url: '/api/tags/1/restore' });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.violations).toEqual([
        expect.objectContaining({ propertyPath: 'name', message: 'This value is already used.' }),
      ]);
      // The transaction is undone: neither the sneaked-in item nor the restore is there.
      expect(await knex()('tag').orderBy('id')).toEqual(before);
    });

    it('has no restore route without a restore rule: the path answers as any unknown route', async () => {
      await call(app(), { method: 'POST', url: '/api/labels', payload: { name: 'red' } });
      expect((await call(app(), { method: 'DELETE', url: '/api/labels/1' })).status).toBe(204);
      const unknown = await call(app(), { method: 'PATCH', url: '/api/labels/1/unknown' });
      const response = await call(app(), { method: 'PATCH', url: '/api/labels/1/restore' });
      expect(response.status).toBe(404);
      expect(response.body).toEqual(JSON.parse(JSON.stringify(unknown.body).replaceAll('/unknown', '/restore')));
      expect((await knex()('label').where('id', 1).first()).deleted_at).not.toBeNull();
    });

    it('restores without If-Match on a resource whose writes require it (a deleted item has no ETag to send)', async () => {
      await call(app(), { method: 'POST', url: '/api/drafts', payload: { title: 'Plan' } });
      const read = await call(app(), { method: 'GET', url: '/api/drafts/1' });
      const removed = await call(app(), {
        method: 'DELETE',
        url: '/api/drafts/1',
        headers: { 'if-match': read.headers.etag as string },
      });
      expect(removed.status, removed.text).toBe(204);
      const restored = await call(app(), { method: 'PATCH', url: '/api/drafts/1/restore' });
      expect(restored.status, restored.text).toBe(200);
      // Its ETag is the one GET gives: a client may write with it straight away.
      expect(restored.headers.etag).toBe((await call(app(), { method: 'GET', url: '/api/drafts/1' })).headers.etag);
    });

    it('restores through GraphQL with restore<Type>, under the same rule and answers', async () => {
      const { admin, grace } = await seeded();
      const mutation = (id: string) => ({
        query: `mutation { restoreMemo(input: { id: "${id}", clientMutationId: "m1" }) { memo { id text } clientMutationId } }`,
      });
      const denied = await call(app(), {
        method: 'POST',
        url: '/graphql',
        headers: grace.auth,
        payload: mutation('/api/memos/2'),
      });
      expect(denied.body.errors?.[0]).toMatchObject({
        message: 'Only an admin or the author restores a memo.',
        extensions: { status: 403 },
      });
      expect((await memoRow(2)).deleted_at).not.toBeNull();
      const live = await call(app(), {
        method: 'POST',
        url: '/graphql',
        headers: admin.auth,
        payload: mutation('/api/memos/1'),
      });
      expect(live.body.errors?.[0]).toMatchObject({ extensions: { status: 409 } });
      const restored = await call(app(), {
        method: 'POST',
        url: '/graphql',
        headers: admin.auth,
        payload: mutation('/api/memos/2'),
      });
      expect(restored.body.errors, restored.text).toBeUndefined();
      expect(restored.body.data).toEqual({
        restoreMemo: { memo: { id: '/api/memos/2', text: 'memo two' }, clientMutationId: 'm1' },
      });
      expect((await memoRow(2)).deleted_at).toBeNull();
    });

    it('documents the restore operation in OpenAPI (no body, its answers, no If-Match) and in the Hydra documentation', async () => {
      const document = (await call(app(), { method: 'GET', url: '/api/docs.json' })).body;
      const operation = document.paths['/memos/{id}/restore'].patch;
      expect(operation.operationId).toBe('api_memos_id_restore_patch');
      expect(operation.requestBody).toBeUndefined();
      expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '404', '406', '409']);
      expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(['id']);
      expect(document.paths['/labels/{id}/restore']).toBeUndefined();

      // The Hydra documentation lists it on the resource's class, expecting nothing and returning the item.
      const hydra = (await call(app(), { method: 'GET', url: '/api/docs.jsonld' })).body;
      const memo = hydra['hydra:supportedClass'].find((c: { '@id': string }) => c['@id'] === '#Memo');
      expect(
        memo['hydra:supportedOperation'].find(
          (o: { 'hydra:title': string }) => o['hydra:title'] === 'api_memos_id_restore_patch',
        ),
      ).toMatchObject({
        'hydra:method': 'PATCH',
        'hydra:description': 'Restores a deleted Memo resource.',
        'hydra:expects': { '@id': 'owl:Nothing' },
        'hydra:returns': { '@id': '#Memo' },
      });
    });

    it('keeps a restore racing a delete of the same item consistent: the delete runs before (404) or after (204) it', async () => {
      const { admin } = await seeded();
      for (let round = 1; round <= 10; round++) {
        // Memo 2 is deleted when the round starts.
        if ((await memoRow(2)).deleted_at === null)
          expect((await call(app(), { method: 'DELETE', url: '/api/memos/2' })).status).toBe(204);
        const [restored, removed] = await Promise.all([
          restore(2, admin.auth),
          call(app(), { method: 'DELETE', url: '/api/memos/2' }),
        ]);
        expect(restored.status, `round ${round}: ${restored.text}`).toBe(200);
        expect([204, 404], `round ${round}: ${removed.status}`).toContain(removed.status);
        const row = await memoRow(2);
        expect(row.deleted_at !== null, `round ${round}`).toBe(removed.status === 204);
        expect((await call(app(), { method: 'GET', url: '/api/memos/2' })).status).toBe(
          removed.status === 204 ? 404 : 200,
        );
        expect(row.text).toBe('memo two');
      }
    });

    it('answers two restores of one item at once with one 200 and one 409', async () => {
      const { admin, ada } = await seeded();
      const [first, second] = await Promise.all([restore(2, admin.auth), restore(2, ada.auth)]);
      expect([first.status, second.status].sort()).toEqual([200, 409]);
      expect((await memoRow(2)).deleted_at).toBeNull();
    });

    it('lets exactly one of a restore and a create of the same unique value win', async () => {
      const { admin, ada } = await seeded();
      for (let round = 1; round <= 5; round++) {
        const text = `contested ${round}`;
        const first = await call(app(), { method: 'POST', url: '/api/memos', headers: ada.auth, payload: { text } });
        expect((await call(app(), { method: 'DELETE', url: `/api/memos/${first.body.id}` })).status).toBe(204);
        const [restored, created] = await Promise.all([
          restore(first.body.id, admin.auth),
          call(app(), { method: 'POST', url: '/api/memos', headers: ada.auth, payload: { text } }),
        ]);
        expect([restored.status, created.status].sort(), `round ${round}`).toEqual(
          restored.status === 200 ? [200, 400] : [201, 400],
        );
        const loser = restored.status === 200 ? created : restored;
        expect(loser.body.violations).toEqual([
          expect.objectContaining({ propertyPath: 'text', message: 'This value is already used.' }),
        ]);
        const live = await knex()('memo').where('text', text).whereNull('deleted_at');
        expect(live).toHaveLength(1);
      }
    });
  },
);
