/**
 * Hostile input on the GraphQL endpoint: bodies that are not UTF-8, variables nested without end or holding unpaired
 * surrogates, absurd cursors and page sizes, metacharacters in filter arguments. A clear error each (never one with
 * status 500), nothing stored from a refused request, exactly what was sent from an accepted one — on both databases.
 */
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { Note, Shelf, rows } from './fixtures.js';

const JSON_TYPE = { 'content-type': 'application/json' } as const;
const CREATE = 'mutation ($title: String!) { createNote(input: { title: $title }) { note { id title } } }';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'hostile GraphQL requests on $name',
  (database) => {
    const app = useApp(database, { resources: [Note, Shelf] });
    const gql = (payload: string | Buffer | object) =>
      call(app(), { method: 'POST', url: '/graphql', headers: JSON_TYPE, payload: payload as string });
    /** No error of the answer is an internal one. */
    const expectNoInternalError = (response: {
      status: number;
      body: { errors?: { extensions?: { status?: number } }[] };
    }) => {
      expect(response.status).toBeLessThan(500);
      for (const error of response.body?.errors ?? []) expect(error.extensions?.status ?? 400).toBeLessThan(500);
    };

    it('answers 400 for a body that is not UTF-8, nested too deeply or holding unpaired surrogates, and stores nothing', async () => {
      const bodies = [
        Buffer.concat([
          Buffer.from(`{"query":${JSON.stringify(CREATE)},"variables":{"title":"caf`),
          Buffer.from([0xe9]),
          Buffer.from('"}}'),
        ]),
        `{"query":${JSON.stringify(CREATE)},"variables":{"title":"x","deep":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
        `{"query":${JSON.stringify(CREATE)},"variables":{"title":"a\\ud800b"}}`,
        `{"query":${JSON.stringify(CREATE)},"variables":{"title":"T"},"__proto__":{"polluted":"yes"}}`,
      ];
      for (const payload of bodies) {
        const response = await gql(payload);
        expect(response.status, String(payload).slice(0, 80)).toBe(400);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await rows(app(), 'note')).toEqual([]);
    });

    it('stores the text of accepted mutations exactly', async () => {
      for (const title of ['😀 Zoë 日本語', "%_\\' OR 1=1 --", '\u202e\u200b\ufeff']) {
        const response = await gql({ query: CREATE, variables: { title } });
        expect(response.body.data.createNote.note.title).toBe(title);
      }
      expect((await rows(app(), 'note')).map((row) => row.title)).toEqual([
        '😀 Zoë 日本語',
        "%_\\' OR 1=1 --",
        '\u202e\u200b\ufeff',
      ]);
    });

    it('answers absurd cursors, page sizes and filter values with an error that is not internal', async () => {
      await gql({ query: CREATE, variables: { title: 'T' } });
      const huge = Buffer.from('100000000000000000000').toString('base64');
      const queries = [
        `{ notes(after: "${huge}") { totalCount } }`,
        `{ notes(before: "${huge}", last: 5) { totalCount } }`,
        '{ notes(after: "garbage") { totalCount } }',
        '{ notes(first: 2147483648) { totalCount } }',
        '{ notes(first: -5) { totalCount } }',
        '{ notes(pages: 100000000000) { totalCount } }',
        '{ notes(title: "%_\\\\") { totalCount } }',
        '{ notes(title: "a\\u0000b") { totalCount } }',
        `{ notes(title: "${'x'.repeat(20_000)}") { totalCount } }`,
        '{ note(id: "/api/notes/99999999999999999999") { id } }',
      ];
      for (const query of queries) {
        const response = await gql({ query });
        expectNoInternalError(response);
      }
      const literal = await gql({ query: '{ notes(title: "%_\\\\") { totalCount } }' });
      expect(literal.body.data.notes.totalCount).toBe(0);
    });
  },
);
