/**
 * Conditional requests on the bookshop, end to end: a book's ETag, 304 to a client that has it, and two editors of
 * the same book — the one who read it before the other's change gets 412 instead of overwriting it.
 */
import { describe, expect, it } from 'vitest';
import { call, create, databases, MERGE_PATCH, useBookshop } from './support.js';

describe.each(databases)('conditional requests on the bookshop on $name', (database) => {
  const bookshop = useBookshop(database);

  it('revalidates a book with its ETag and stops the second of two editors who read the same version', async () => {
    const { app, row } = bookshop();
    await create(app, 'authors', { name: 'Ursula K. Le Guin' });
    await create(app, 'books', { title: 'A Wizard of Earthsea', author: '/api/authors/1' });

    const read = await call(app, { method: 'GET', url: '/api/books/1' });
    const etag = read.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(await call(app, { method: 'GET', url: '/api/books/1', headers: { 'if-none-match': etag } })).toMatchObject({
      status: 304,
      text: '',
    });

    // Both editors read `etag`; the first one's change goes through and answers with the new tag.
    const first = await call(app, {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { ...MERGE_PATCH, 'if-match': etag },
      payload: { title: 'A Wizard of Earthsea (1968)' },
    });
    expect(first.status).toBe(200);
    expect(first.headers.etag).not.toBe(etag);
    const second = await call(app, {
      method: 'PUT',
      url: '/api/books/1',
      headers: { 'if-match': etag },
      payload: { title: 'Earthsea', author: '/api/authors/1' },
    });
    expect(second.status).toBe(412);
    expect(second.body).toMatchObject({ '@type': 'hydra:Error', status: 412 });
    expect((await row('book', 1))!.title).toBe('A Wizard of Earthsea (1968)');

    // With the tag of what is stored now, the second editor's change is accepted.
    const retried = await call(app, {
      method: 'PUT',
      url: '/api/books/1',
      headers: { 'if-match': first.headers.etag as string },
      payload: { title: 'Earthsea', author: '/api/authors/1' },
    });
    expect(retried.status).toBe(200);
    expect((await call(app, { method: 'GET', url: '/api/books/1', headers: { 'if-none-match': etag } })).status).toBe(
      200,
    );
  });
});
