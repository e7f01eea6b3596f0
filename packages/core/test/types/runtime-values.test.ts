/**
 * The item types say what processors receive; this checks it against the running pipeline on each database: the JS
 * value of every field type in a processor's `data` (on POST and PATCH), in `context.previous` (read by the built-in
 * provider) and in a post-denormalize rule's `object`, captured into variables of the inferred types.
 */
import { describe, expect, inject, it } from 'vitest';
import {
  defineResource,
  type InferResource,
  type InferWriteData,
  NestedWrite,
  type Unvalidated,
} from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const fields = {
  title: { type: 'string' },
  summary: { type: 'text', nullable: true },
  pages: { type: 'integer' },
  price: { type: 'float', nullable: true },
  available: { type: 'boolean' },
  publishedAt: { type: 'datetime' },
  releasedOn: { type: 'date' },
  extra: { type: 'json' },
  tags: { type: 'string[]' },
  secret: { type: 'password' },
  author: { toOne: 'Person' },
  editor: { toOne: 'Person', nullable: true, cascadePersist: true },
  readers: { toMany: 'Person' },
} as const;
type Item = InferResource<{ fields: typeof fields }>;
type Data = InferWriteData<{ fields: typeof fields }>;

/** What each runtime value is, in the words of the types. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof Date) return 'Date';
  if (value instanceof NestedWrite) return 'NestedWrite';
  if (Array.isArray(value)) return `${[...new Set(value.map(kindOf))].join('|')}[]`;
  return typeof value;
}
const kinds = (item: Item | Data) =>
  Object.fromEntries(Object.entries(item).map(([name, value]) => [name, kindOf(value)]));

/** The kinds the item types promise for the values posted below. */
const EXPECTED = {
  title: 'string',
  summary: 'null',
  pages: 'number',
  price: 'number',
  available: 'boolean',
  publishedAt: 'Date',
  releasedOn: 'string',
  extra: 'object',
  tags: 'string[]',
  secret: 'string',
  author: 'number',
  readers: 'number[]',
};

const BODY = {
  title: 'Dune',
  summary: null,
  pages: 412,
  price: 9.5,
  available: true,
  publishedAt: '1965-08-01T10:00:00+00:00',
  releasedOn: '1965-08-01',
  extra: { printings: [1, 2] },
  tags: ['sf'],
  secret: 'spice must flow',
  author: '/api/people/1',
  readers: ['/api/people/1'],
};

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('typed processors on $name', (database) => {
  it('receive the values their inferred types describe', async () => {
    let created: Data | undefined;
    let patched: { data: Data; previous: Item | null } | undefined;
    const Person = defineResource({ name: 'Person', fields: { name: { type: 'string' } } });
    // Drafts are never stored: their POST processor only looks at the new state.
    const Draft = defineResource({
      name: 'Draft',
      fields,
      operations: [
        {
          kind: 'post',
          processor: {
            async process(data) {
              created = data;
              return { ...data, id: 1, editor: null };
            },
          },
        },
      ],
    });
    // Books are stored by the built-in processor; their PATCH processor looks at the new state and the item read.
    const Book = defineResource({
      name: 'Book',
      fields,
      operations: [
        'get',
        'post',
        {
          kind: 'patch',
          processor: {
            async process(data, { previous }) {
              patched = { data, previous };
              return data;
            },
          },
        },
      ],
    });
    const app = await buildTestApp({ database, resources: [Person, Draft, Book] });
    expect((await call(app, { method: 'POST', url: '/api/people', payload: { name: 'Ann' } })).status).toBe(201);

    const draft = await call(app, { method: 'POST', url: '/api/drafts', payload: { ...BODY, editor: { name: 'Ed' } } });
    expect(draft.status).toBe(201);
    expect(created!.id).toBeUndefined();
    expect(kinds(created!)).toEqual({ ...EXPECTED, editor: 'NestedWrite' });
    expect(created!.publishedAt.toISOString()).toBe('1965-08-01T10:00:00.000Z');
    expect(created!.secret).not.toBe(BODY.secret); // the hash, already
    expect((created!.editor as NestedWrite).data).toMatchObject({ name: 'Ed' });

    const book = await call(app, { method: 'POST', url: '/api/books', payload: { ...BODY, editor: { name: 'Ed' } } });
    expect(book.status).toBe(201);
    const patch = await call(app, {
      method: 'PATCH',
      url: book.body['@id'],
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ title: 'Dune Messiah' }),
    });
    expect(patch.status).toBe(200);
    const { data, previous } = patched!;
    expect(kinds(previous!)).toEqual({ ...EXPECTED, id: 'number', editor: 'number' });
    expect(kinds(data)).toEqual({ ...EXPECTED, id: 'number', editor: 'number' });
    expect(previous).toMatchObject({
      title: 'Dune',
      pages: 412,
      price: 9.5,
      releasedOn: '1965-08-01',
      extra: { printings: [1, 2] },
      author: 1,
      editor: 2,
      readers: [1],
    });
    expect(previous!.publishedAt.getTime()).toBe(Date.parse(BODY.publishedAt));
    expect(data.title).toBe('Dune Messiah');
    await app.close();
  });

  it('give post-denormalize rules the new state before validation: a missing field is null', async () => {
    let seen: Unvalidated<Data> | null = null;
    const Draft = defineResource({
      name: 'Draft',
      fields,
      securityPostDenormalize: ({ object }) => {
        seen = object;
        return true;
      },
    });
    const Person = defineResource({ name: 'Person', fields: { name: { type: 'string' } } });
    const app = await buildTestApp({ database, resources: [Person, Draft] });
    await call(app, { method: 'POST', url: '/api/people', payload: { name: 'Ann' } });
    const { title: _title, ...withoutTitle } = BODY;
    const response = await call(app, { method: 'POST', url: '/api/drafts', payload: withoutTitle });
    expect(response.body.violations).toEqual([
      { propertyPath: 'title', message: 'This value should not be null.', code: expect.any(String) },
    ]);
    // typed `string | null`: the rule ran before validation refused the missing title
    const object = seen as Unvalidated<Data> | null;
    expect(object!.title).toBeNull();
    expect(object!.pages).toBe(412);
    expect(object!.publishedAt).toBeInstanceOf(Date);
    await app.close();
  });
});
