/**
 * Comment DELETE is a soft delete (contract: "Timestamps, soft delete, uploads"): 204, the row stays with `deletedAt`
 * set, and the comment is gone from every read for everyone; admins list deleted comments with `?deleted=true`, which
 * is 403 for anyone else. Admins bring a deleted comment back with `PATCH /api/comments/{id}/restore` (the example's
 * own addition: 403 for anyone else, 404 for a comment that does not exist, 409 for one that is not deleted). Users 2
 * (ada) and 3 (grace) register and log in; user 1 is the admin.
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

  const restore = (app: Parameters<typeof call>[0], id: number | string, headers: Record<string, string> = {}) =>
    call(app, { method: 'PATCH', url: `/api/comments/${id}/restore`, headers });

  it('lets ROLE_ADMIN restore a deleted comment: 200 with the comment as GET renders it, back in every read', async () => {
    const { app, admin, row, ada } = await seeded();
    const restored = await restore(app, 2, admin);
    expect(restored.status, restored.text).toBe(200);
    const read = await call(app, { method: 'GET', url: '/api/comments/2', headers: ada.auth });
    expect(read.status).toBe(200);
    expect(restored.body).toEqual(read.body);
    expect(restored.body).toMatchObject({
      '@context': '/api/contexts/Comment',
      '@id': '/api/comments/2',
      '@type': 'Comment',
      content: "Ada's second comment.",
      user: '/api/users/2',
      createdAt: expect.stringMatching(DATETIME),
    });
    expect(restored.body).not.toHaveProperty('deletedAt');
    expect((await row('comment', 2))?.deleted_at).toBeNull();

    const list = await call(app, { method: 'GET', url: '/api/comments' });
    expect(ids(list.body)).toEqual(['/api/comments/1', '/api/comments/2', '/api/comments/3', '/api/comments/4']);
    expect(list.body['hydra:totalItems']).toBe(4);
    const sub = await call(app, { method: 'GET', url: '/api/users/2/comments', headers: ada.auth });
    expect(sub.body['hydra:totalItems']).toBe(3);
    const deleted = await call(app, { method: 'GET', url: '/api/comments?deleted=true', headers: admin });
    expect(deleted.body['hydra:totalItems']).toBe(0);
    // Its author can write it again.
    const patched = await call(app, {
      method: 'PATCH',
      url: '/api/comments/2',
      headers: { ...ada.auth, ...MERGE_PATCH },
      payload: '{"content":"Back from the dead."}',
    });
    expect(patched.status, patched.text).toBe(200);
  });

  it('refuses a restore to anyone but ROLE_ADMIN (the author too), and changes nothing', async () => {
    const { app, row, ada, grace } = await seeded();
    const before = await row('comment', 2);
    for (const user of [ada, grace]) {
      const refused = await restore(app, 2, user.auth);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ status: 403, detail: 'Access Denied.' });
    }
    expect((await restore(app, 2)).status).toBe(401);
    expect(await row('comment', 2)).toEqual(before);
    expect((await call(app, { method: 'GET', url: '/api/comments/2' })).status).toBe(404);
  });

  it('answers 404 for a comment that does not exist and 409 for one that is not deleted, changing nothing', async () => {
    const { app, admin, row } = await seeded();
    const never = await call(app, { method: 'GET', url: '/api/comments/99' });
    for (const id of [99, 'abc']) {
      const missing = await restore(app, id, admin);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(never.body);
    }
    const before = await row('comment', 1);
    const live = await restore(app, 1, admin);
    expect(live.status).toBe(409);
    expect(live.body).toMatchObject({
      status: 409,
      detail: 'The Comment is not deleted: there is nothing to restore.',
    });
    expect(await row('comment', 1)).toEqual(before);
  });

  it('ends consistent when a restore and a delete of one comment run at once', async () => {
    const { app, admin, row } = await seeded();
    const [restored, removed] = await Promise.all([
      restore(app, 2, admin),
      call(app, { method: 'DELETE', url: '/api/comments/2', headers: admin }),
    ]);
    expect(restored.status, restored.text).toBe(200);
    expect([204, 404]).toContain(removed.status);
    // Deleted again when the delete came second; live when it came first (and found nothing to delete).
    expect((await row('comment', 2))?.deleted_at !== null).toBe(removed.status === 204);
    const read = await call(app, { method: 'GET', url: '/api/comments/2' });
    expect(read.status).toBe(removed.status === 204 ? 404 : 200);
  });

  it('restores through GraphQL with restoreComment, for ROLE_ADMIN only', async () => {
    const { app, admin, ada } = await seeded();
    const payload = {
      query: 'mutation { restoreComment(input: { id: "/api/comments/2" }) { comment { _id content } } }',
    };
    const refused = await call(app, { method: 'POST', url: '/graphql', headers: ada.auth, payload });
    expect(refused.body.errors?.[0]).toMatchObject({ extensions: { status: 403 } });
    const restored = await call(app, { method: 'POST', url: '/graphql', headers: admin, payload });
    expect(restored.body.errors, restored.text).toBeUndefined();
    expect(restored.body.data).toEqual({ restoreComment: { comment: { _id: 2, content: "Ada's second comment." } } });
  });
});
