/**
 * The GraphQL routes' own request schemas (mercurius's querystring and body schemas, compiled on each route's first
 * request: `graphql/first-use-schemas.ts`): a malformed GraphQL request is a 400 naming what is wrong, before any
 * query runs; a well-formed one answers, over POST and GET, and the same request schema answers the same way every
 * time. On both databases.
 */
import { parse } from 'graphql';
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' } } });

const COUNT = '{ books { totalCount } }';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'GraphQL request schemas on $name',
  (database) => {
    it('refuses malformed GraphQL requests with a 400 that names the part, and runs well-formed ones', async () => {
      const app = await buildTestApp({ database, resources: [Book] });
      expect((await call(app, { method: 'POST', url: '/api/books', payload: { title: 'Dune' } })).status).toBe(201);

      const refused = [
        [{ query: COUNT, variables: 'x' }, 'body/variables must be object,null'],
        [{ query: COUNT, extensions: 3 }, 'body/extensions must be object'],
        [[{ query: COUNT }], 'body must be object'],
        // Not GraphQL text: mercurius would read these as a JSON-encoded syntax tree (5 is coerced to "5").
        [{ query: 5 }, 'The query must be a GraphQL document.'],
        [{ query: '[1]' }, 'The query must be a GraphQL document.'],
        [{ query: '{"kind": "Document"}' }, 'The query must be a GraphQL document.'],
        [{ query: JSON.stringify(parse(COUNT, { noLocation: true })) }, 'The query must be a GraphQL document.'],
      ] as const;
      // Twice each: the first request compiles the schema, the second reuses it.
      for (const round of [1, 2]) {
        for (const [payload, message] of refused) {
          const response = await call(app, {
            method: 'POST',
            url: '/graphql',
            payload: payload as unknown as Record<string, unknown>,
          });
          expect(response.status, `${JSON.stringify(payload)}, round ${round}`).toBe(400);
          expect(response.body).toEqual({ data: null, errors: [{ message }] });
        }
        const posted = await call(app, { method: 'POST', url: '/graphql', payload: { query: COUNT } });
        expect(posted.status).toBe(200);
        expect(posted.body).toEqual({ data: { books: { totalCount: 1 } } });
        const got = await call(app, { method: 'GET', url: `/graphql?query=${encodeURIComponent(COUNT)}` });
        expect(got.status).toBe(200);
        expect(got.body).toEqual({ data: { books: { totalCount: 1 } } });
        const notText = await call(app, { method: 'GET', url: `/graphql?query=${encodeURIComponent('"x"')}` });
        expect(notText.status).toBe(400);
        expect(notText.body).toEqual({ data: null, errors: [{ message: 'The query must be a GraphQL document.' }] });
      }
      // The refused requests changed nothing.
      expect((await call(app, { method: 'GET', url: '/api/books' })).body['hydra:totalItems']).toBe(1);
      await app.close();
    });
  },
);
