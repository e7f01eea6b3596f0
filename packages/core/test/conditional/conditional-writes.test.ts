/**
 * Conditional writes, on SQLite and PostgreSQL: PUT, PATCH and DELETE with `If-Match` succeed with a current ETag and
 * get 412 with a stale one (nothing written); `*`, weak tags, `If-None-Match`, malformed headers; the order of 404,
 * 412 and 400; `requireIfMatch` and its 428; the declaration checks.
 */
import { describe, expect, inject, it } from 'vitest';
import { buildMetadata, defineResource, DeclarationError } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { MERGE_PATCH, resources } from './fixtures.js';

const STALE_DETAIL =
  'The Novel changed since you read it: none of the ETags in If-Match is its current one. GET it again and send its new ETag.';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('conditional writes on $name', (database) => {
  const app = useApp(database, { resources });
  const get = (url: string, accept = 'application/ld+json') => call(app(), { method: 'GET', url, headers: { accept } });
  const etagOf = async (url: string, accept?: string) => (await get(url, accept)).headers.etag as string;
  const row = (table: string, id: number) => app().resourceApi.database.knex(table).where('id', id).first();
  const write = (method: 'PUT' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
    call(app(), {
      method,
      url,
      headers: method === 'PATCH' ? { ...MERGE_PATCH, ...headers } : headers,
      ...(payload ? { payload } : {}),
    });
  const change = {
    PUT: { title: 'Always Coming Home', pages: 523 },
    PATCH: { pages: 523 },
    DELETE: undefined,
  } as const;

  /** Creates a novel; returns its IRI. */
  async function seed(): Promise<string> {
    const created = await call(app(), {
      method: 'POST',
      url: '/api/novels',
      payload: { title: 'The Lathe of Heaven', pages: 184, tags: ['dreams'] },
    });
    expect(created.status).toBe(201);
    return created.body['@id'];
  }

  it('writes with the current ETag, read as JSON-LD or as JSON, alone or in a list', async () => {
    const variants = [
      (jsonld: string) => jsonld,
      (_: string, json: string) => json,
      (jsonld: string) => `"stale", W/"weak", ${jsonld}`,
    ] as const;
    for (const method of ['PATCH', 'PUT', 'DELETE'] as const) {
      for (const [index, variant] of variants.entries()) {
        const url = await seed();
        const ifMatch = variant(await etagOf(url), await etagOf(url, 'application/json'));
        const response = await write(method, url, { 'if-match': ifMatch }, change[method]);
        expect([method, index, response.status]).toEqual([method, index, method === 'DELETE' ? 204 : 200]);
        if (method !== 'DELETE') expect(response.body.pages).toBe(523);
        else expect((await get(url)).status).toBe(404);
      }
    }
  });

  it('refuses PUT, PATCH and DELETE with a stale ETag: 412, and nothing changes', async () => {
    await seed();
    const stale = await etagOf('/api/novels/1');
    expect((await write('PATCH', '/api/novels/1', { 'if-match': stale }, { pages: 200 })).status).toBe(200);
    const stored = await row('novel', 1);
    const current = await etagOf('/api/novels/1');
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const response = await write(method, '/api/novels/1', { 'if-match': stale }, change[method]);
      expect([method, response.status]).toEqual([method, 412]);
      expect(response.headers['content-type']).toBe('application/ld+json; charset=utf-8');
      expect(response.body).toEqual({
        '@context': '/api/contexts/Error',
        '@type': 'hydra:Error',
        'hydra:title': 'An error occurred',
        'hydra:description': STALE_DETAIL,
        title: 'An error occurred',
        detail: STALE_DETAIL,
        status: 412,
        type: '/errors/412',
      });
    }
    const plain = await write(
      'PATCH',
      '/api/novels/1',
      { 'if-match': stale, accept: 'application/json' },
      { pages: 1 },
    );
    expect(plain.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(plain.body).toEqual({ type: '/errors/412', title: 'An error occurred', detail: STALE_DETAIL, status: 412 });
    expect(await row('novel', 1)).toEqual(stored);
    expect(await etagOf('/api/novels/1')).toBe(current);
  });

  it('never lets a weak tag, a tag of another item, or a malformed header through If-Match', async () => {
    await seed();
    await seed();
    const stored = await row('novel', 1);
    const current = await etagOf('/api/novels/1');
    const other = await etagOf('/api/novels/2');
    for (const ifMatch of [
      `W/${current}`,
      other,
      current.slice(1, -1),
      '',
      ',,',
      '"unterminated',
      `${current.slice(0, -1)}x"`,
    ]) {
      const response = await write('PATCH', '/api/novels/1', { 'if-match': ifMatch }, { pages: 1 });
      expect([ifMatch, response.status, response.body.status]).toEqual([ifMatch, 412, 412]);
    }
    expect(await row('novel', 1)).toEqual(stored);
  });

  it('lets If-Match: * through while the item exists; a missing item stays a 404', async () => {
    await seed();
    expect((await write('PATCH', '/api/novels/1', { 'if-match': '*' }, { pages: 9 })).status).toBe(200);
    expect((await write('PATCH', '/api/novels/99', { 'if-match': '*' }, { pages: 9 })).status).toBe(404);
    expect((await write('PATCH', '/api/novels/99', { 'if-match': '"stale"' }, { pages: 9 })).status).toBe(404);
    expect((await write('DELETE', '/api/novels/1', { 'if-match': '*' })).status).toBe(204);
  });

  it('refuses a write whose If-None-Match is * or names a current ETag: 412, nothing written', async () => {
    await seed();
    const stored = await row('novel', 1);
    for (const ifNoneMatch of [
      '*',
      await etagOf('/api/novels/1'),
      `W/${await etagOf('/api/novels/1', 'application/json')}`,
    ]) {
      const response = await write('PUT', '/api/novels/1', { 'if-none-match': ifNoneMatch }, change.PUT);
      expect([ifNoneMatch, response.status]).toEqual([ifNoneMatch, 412]);
    }
    expect(await row('novel', 1)).toEqual(stored);
    expect((await write('PATCH', '/api/novels/1', { 'if-none-match': '"stale"' }, { pages: 5 })).status).toBe(200);
  });

  it('checks the precondition before the body: a stale ETag with an invalid body is a 412, a current one a 400', async () => {
    await seed();
    const current = await etagOf('/api/novels/1');
    const invalid = { title: '' };
    expect((await write('PATCH', '/api/novels/1', { 'if-match': '"stale"' }, invalid)).status).toBe(412);
    const refused = await write('PATCH', '/api/novels/1', { 'if-match': current }, invalid);
    expect(refused.status).toBe(400);
    expect(refused.body.violations).toEqual([
      {
        propertyPath: 'title',
        message: 'This value should not be blank.',
        code: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3',
      },
    ]);
    expect(await etagOf('/api/novels/1')).toBe(current);
  });

  it('follows items embedded in the representation: an If-Match read before the embedded item changed is stale', async () => {
    await call(app(), { method: 'POST', url: '/api/writers', payload: { name: 'Ursula K. Le Guin' } });
    await call(app(), { method: 'POST', url: '/api/novels', payload: { title: 'Tehanu', writer: '/api/writers/1' } });
    const before = await etagOf('/api/novels/1');
    await write('PATCH', '/api/writers/1', {}, { name: 'U. K. Le Guin' });
    expect((await write('PATCH', '/api/novels/1', { 'if-match': before }, { pages: 252 })).status).toBe(412);
    expect(
      (await write('PATCH', '/api/novels/1', { 'if-match': await etagOf('/api/novels/1') }, { pages: 252 })).status,
    ).toBe(200);
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('requireIfMatch on $name', (database) => {
  const app = useApp(database, { resources });
  const row = (id: number) => app().resourceApi.database.knex('ledger').where('id', id).first();
  const REQUIRED =
    'Writes to Ledger need an If-Match header with the ETag of the item (GET it first): this protects against lost updates.';

  it('answers PUT, PATCH and DELETE without If-Match with 428, and changes nothing', async () => {
    expect(
      (await call(app(), { method: 'POST', url: '/api/ledgers', payload: { label: 'Petty cash', balance: 10 } }))
        .status,
    ).toBe(201);
    const stored = await row(1);
    const attempts = [
      { method: 'PUT', payload: { label: 'Petty cash', balance: 0 } },
      { method: 'PATCH', payload: { balance: 0 }, headers: MERGE_PATCH },
      { method: 'DELETE' },
    ] as const;
    for (const attempt of attempts) {
      const response = await call(app(), { url: '/api/ledgers/1', ...attempt });
      expect([attempt.method, response.status]).toEqual([attempt.method, 428]);
      expect(response.body).toMatchObject({
        '@type': 'hydra:Error',
        status: 428,
        detail: REQUIRED,
        type: '/errors/428',
      });
    }
    // If-None-Match is no substitute.
    expect(
      (await call(app(), { method: 'DELETE', url: '/api/ledgers/1', headers: { 'if-none-match': '"x"' } })).status,
    ).toBe(428);
    expect(await row(1)).toEqual(stored);
    // A missing item is still a 404.
    expect((await call(app(), { method: 'DELETE', url: '/api/ledgers/9' })).status).toBe(404);
  });

  it('writes with the current ETag, refuses a stale one, and leaves reads and creation alone', async () => {
    const created = await call(app(), {
      method: 'POST',
      url: '/api/ledgers',
      payload: { label: 'Petty cash', balance: 10 },
    });
    expect(created.status).toBe(201);
    const read = await call(app(), { method: 'GET', url: '/api/ledgers/1' });
    expect(read.status).toBe(200);
    expect((await call(app(), { method: 'GET', url: '/api/ledgers' })).status).toBe(200);
    const etag = read.headers.etag as string;
    const patched = await call(app(), {
      method: 'PATCH',
      url: '/api/ledgers/1',
      headers: { ...MERGE_PATCH, 'if-match': etag },
      payload: { balance: 15 },
    });
    expect(patched.status).toBe(200);
    expect(
      (
        await call(app(), {
          method: 'PATCH',
          url: '/api/ledgers/1',
          headers: { ...MERGE_PATCH, 'if-match': etag },
          payload: { balance: 0 },
        })
      ).status,
    ).toBe(412);
    // The write's response carries the new tag: the next write needs no GET.
    expect(
      (
        await call(app(), {
          method: 'DELETE',
          url: '/api/ledgers/1',
          headers: { 'if-match': patched.headers.etag as string },
        })
      ).status,
    ).toBe(204);
    expect(await row(1)).toBeUndefined();
  });

  it('refuses GraphQL updates and deletions, which cannot send If-Match, with the 428', async () => {
    await call(app(), { method: 'POST', url: '/api/ledgers', payload: { label: 'Petty cash', balance: 10 } });
    const response = await call(app(), {
      method: 'POST',
      url: '/graphql',
      payload: {
        query: 'mutation { updateLedger(input: { id: "/api/ledgers/1", balance: 0 }) { ledger { balance } } }',
      },
    });
    expect(response.body.errors[0]).toMatchObject({
      message: REQUIRED,
      extensions: { status: 428, code: 'API_ERR_PRECONDITION_REQUIRED' },
    });
    expect((await row(1)).balance).toBe(10);
  });
});

describe('declaring requireIfMatch', () => {
  it('takes true or false only', () => {
    const Bad = defineResource({ name: 'Bad', requireIfMatch: 'yes' as never, fields: { label: { type: 'string' } } });
    expect(() => buildMetadata({ resources: [Bad] })).toThrow(
      new DeclarationError('Resource "Bad": "requireIfMatch" must be true or false.'),
    );
  });

  it('needs the item GET when the resource has writes, where clients read the ETag', () => {
    const Blind = defineResource({
      name: 'Blind',
      requireIfMatch: true,
      operations: ['getCollection', 'patch'],
      fields: { label: { type: 'string' } },
    });
    expect(() => buildMetadata({ resources: [Blind] })).toThrow(
      new DeclarationError(
        'Resource "Blind": "requireIfMatch" needs the "get" operation, where clients read the ETag to send in If-Match.',
      ),
    );
    const ReadOnly = defineResource({
      name: 'ReadOnly',
      requireIfMatch: true,
      operations: ['getCollection'],
      fields: { label: { type: 'string' } },
    });
    expect(buildMetadata({ resources: [ReadOnly] }).resource('ReadOnly').requireIfMatch).toBe(true);
  });
});
