/**
 * Comment DELETE is a soft delete (contract: "Timestamps, soft delete, uploads"): 204, the row stays with `deletedAt`
 * set, and the comment is gone from every read for everyone; admins list deleted comments with `?deleted=true`, which
 * is 403 for anyone else. Users 2 (ada) and 3 (grace) register and log in; user 1 is the admin.
 */
import { describe, expect, it } from 'vitest';
import { bearer, call, DATETIME, databases, MERGE_PATCH, registerAndLogin, useBookshop } from './support.js';

describe.each(databases)('comment soft delete on $name', (database) => {
  const bookshop = useBookshop(database);

  /** Ada writes comments 1 to 3, grace comment 4; ada deletes comment 2. */
  async function seeded() {
    const { app, adminToken, row } = bookshop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const grace = await registerAndLogin(app, 'grace@example.com');
    const write = async (auth: { authorization: string }, content: string) => {
      const response = await call(app, { method: 'POST', url: '/api/comments', headers: auth, payload: { content } });
      expect(response.status, response.text).toBe(201);
    };
    for (const word of ['first', 'second', 'third']) await write(ada.auth, `Ada's ${word} comment.`);
    await write(grace.auth, "Grace's comment.");
    const removed = await call(app, { method: 'DELETE', url: '/api/comments/2', headers: ada.auth });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    return { app, admin: bearer(adminToken), row, ada, grace };
  }
  const ids = (body: { 'hydra:member': { '@id': string }[] }) => body['hydra:member'].map((m) => m['@id']);

  it('keeps the row with deletedAt set, and answers 404 for the comment as for one that never existed', async () => {
    const { app, admin, row, ada } = await seeded();
    const stored = await row('comment', 2);
    expect(stored?.content).toBe("Ada's second comment.");
    expect(stored?.deleted_at).not.toBeNull();
    for (const headers of [{}, ada.auth, admin]) {
      const gone = await call(app, { method: 'GET', url: '/api/comments/2', headers });
      const never = await call(app, { method: 'GET', url: '/api/comments/99', headers });
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(never.body);
    }
    expect((await call(app, { method: 'DELETE', url: '/api/comments/2', headers: admin })).status).toBe(404);
    const patched = await call(app, {
      method: 'PATCH',
      url: '/api/comments/2',
      headers: { ...ada.auth, ...MERGE_PATCH },
      payload: '{"content":"Back from the dead."}',
    });
    expect(patched.status).toBe(404);
    expect(await row('comment', 2)).toEqual(stored);
  });

  it('leaves a deleted comment out of collections, totals, filters, subresources and GraphQL, for everyone', async () => {
    const { app, admin, ada } = await seeded();
    for (const headers of [{}, ada.auth, admin]) {
      const list = await call(app, { method: 'GET', url: '/api/comments', headers });
      expect(ids(list.body)).toEqual(['/api/comments/1', '/api/comments/3', '/api/comments/4']);
      expect(list.body['hydra:totalItems']).toBe(3);
      const mine = await call(app, { method: 'GET', url: `/api/comments?user=${ada.iri}`, headers });
      expect(ids(mine.body)).toEqual(['/api/comments/1', '/api/comments/3']);
      expect(mine.body['hydra:totalItems']).toBe(2);
    }
    const sub = await call(app, {
      method: 'GET',
      url: '/api/users/2/comments?order[createdAt]=desc',
      headers: ada.auth,
    });
    expect(sub.status, sub.text).toBe(200);
    expect(ids(sub.body)).toEqual(['/api/comments/3', '/api/comments/1']);
    expect(sub.body['hydra:totalItems']).toBe(2);
    expect((await call(app, { method: 'GET', url: '/api/users/2', headers: ada.auth })).body.comments).toEqual([
      '/api/comments/1',
      '/api/comments/3',
    ]);

    const graphql = await call(app, {
      method: 'POST',
      url: '/graphql',
      headers: admin,
      payload: {
        query:
          '{ comments { totalCount edges { node { _id } } } comment(id: "/api/comments/2") { _id } user(id: "/api/users/2") { comments { totalCount edges { node { _id } } } } }',
      },
    });
    expect(graphql.body.errors, graphql.text).toBeUndefined();
    expect(graphql.body.data).toEqual({
      comments: { totalCount: 3, edges: [{ node: { _id: 1 } }, { node: { _id: 3 } }, { node: { _id: 4 } }] },
      comment: null,
      user: { comments: { totalCount: 2, edges: [{ node: { _id: 1 } }, { node: { _id: 3 } }] } },
    });
  });

  it('lists the deleted comments for ROLE_ADMIN with ?deleted=true, and answers 403 to anyone else', async () => {
    const { app, admin, ada } = await seeded();
    const deleted = await call(app, { method: 'GET', url: '/api/comments?deleted=true', headers: admin });
    expect(deleted.status, deleted.text).toBe(200);
    expect(ids(deleted.body)).toEqual(['/api/comments/2']);
    expect(deleted.body['hydra:totalItems']).toBe(1);
    expect(deleted.body['hydra:member'][0]).toMatchObject({
      content: "Ada's second comment.",
      user: '/api/users/2',
      deletedAt: expect.stringMatching(DATETIME),
    });

    const refused = await call(app, { method: 'GET', url: '/api/comments?deleted=true', headers: ada.auth });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 403, detail: 'Access Denied.' });
    expect((await call(app, { method: 'GET', url: '/api/comments?deleted=true' })).status).toBe(401);
    // false is the default listing, for everyone; a value that is not a boolean is a 400.
    const live = await call(app, { method: 'GET', url: '/api/comments?deleted=false', headers: ada.auth });
    expect(ids(live.body)).toEqual(['/api/comments/1', '/api/comments/3', '/api/comments/4']);
    expect((await call(app, { method: 'GET', url: '/api/comments?deleted=yes', headers: admin })).status).toBe(400);
  });

  it('answers two deletes of one comment at once with one 204 and one 404, and changes nothing else', async () => {
    const { app, admin, row, ada } = await seeded();
    const before = await row('comment', 3);
    const [first, second] = await Promise.all([
      call(app, { method: 'DELETE', url: '/api/comments/1', headers: ada.auth }),
      call(app, { method: 'DELETE', url: '/api/comments/1', headers: admin }),
    ]);
    expect([first.status, second.status].sort()).toEqual([204, 404]);
    expect((await row('comment', 1))?.deleted_at).not.toBeNull();
    expect(await row('comment', 3)).toEqual(before);
    const deleted = await call(app, { method: 'GET', url: '/api/comments?deleted=true', headers: admin });
    expect(ids(deleted.body)).toEqual(['/api/comments/1', '/api/comments/2']);
  });
});
