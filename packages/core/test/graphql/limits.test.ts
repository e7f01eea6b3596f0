/**
 * The GraphQL complexity and size limits hold against documents made to defeat them: fragments spreading each other in
 * cycles (whose paths grow factorially), one field repeated under one name (graphql-js's validation compares every
 * pair), fragments no operation uses, deep fragment chains. Each is refused quickly with a 400 and runs nothing; the
 * limits themselves are checked at start-up. On both databases.
 */
import { getIntrospectionQuery } from 'graphql';
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' } } });

const repeat = (count: number, make: (index: number) => string) =>
  Array.from({ length: count }, (_, index) => make(index)).join(' ');

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('GraphQL limits on $name', (database) => {
  const app = useApp(database, { resources: [Book] });
  const gql = async (query: string) => {
    const started = performance.now();
    const response = await call(app(), { method: 'POST', url: '/graphql', payload: { query } });
    return { ...response, ms: performance.now() - started };
  };
  const refused = (response: { status: number; body: { data?: unknown; errors?: { message: string }[] } }) => {
    expect(response.status).toBe(400);
    expect(response.body.data ?? null).toBeNull();
    return response.body.errors![0]!.message;
  };

  it('refuses fragments that spread each other in cycles at once', async () => {
    // 14 fragments each spreading all 14: counting every path through them would take longer than the universe.
    const names = Array.from({ length: 14 }, (_, index) => `F${index}`);
    const fragments = names
      .map((name) => `fragment ${name} on Query { ${names.map((other) => `...${other}`).join(' ')} }`)
      .join('\n');
    const response = await gql(`{ ...F0 }\n${fragments}`);
    expect(refused(response)).toBe('Cannot spread fragment "F0" within itself.');
    expect(response.ms).toBeLessThan(2000);
    // A cycle that does not start at the operation, with a large selection beside it.
    const beside = await gql(
      `{ ...A ${repeat(900, () => 'x: __typename')} } fragment A on Query { ...B } fragment B on Query { ...C } fragment C on Query { ...B }`,
    );
    expect(refused(beside)).toBe('Cannot spread fragment "B" within itself.');
  });

  it('counts a field repeated under one name before validation compares the pairs, and stops parsing long documents', async () => {
    expect(refused(await gql(`{ ${repeat(1500, () => 'x: __typename')} }`))).toBe(
      'The query is too complex: it selects more than 1000 fields.',
    );
    // 60,000 of them (840 kB, under the body limit): the parser stops at 20,000 tokens (20 per allowed field).
    const huge = await gql(`{ ${repeat(60_000, () => 'x: __typename')} }`);
    expect(refused(huge)).toMatch(/^Syntax Error: Document contains more that 20000 tokens/);
    expect(huge.ms).toBeLessThan(2000);
  });

  it('counts a fragment as often as it is spread, and fragments no operation spreads', async () => {
    const fields = repeat(600, (index) => `f${index}: __typename`);
    expect(refused(await gql(`{ ...F ...F } fragment F on Query { ${fields} }`))).toBe(
      'The query is too complex: it selects more than 1000 fields.',
    );
    expect(
      refused(await gql(`{ __typename } fragment Unused on Query { ${fields} ${fields.replaceAll(': __', 'b: __')} }`)),
    ).toBe('The query is too complex: it selects more than 1000 fields.');
    // Within the limit, fragments and aliases run as usual: 1 + 2 × 400 fields (and as many aliases, allowed here).
    const wide = await buildTestApp({ database, resources: [Book], graphql: { maxAliases: 800 } });
    try {
      const query = `{ books { totalCount } ...G ...G } fragment G on Query { ${repeat(400, (index) => `g${index}: __typename`)} }`;
      const within = await call(wide, { method: 'POST', url: '/graphql', payload: { query } });
      expect(within.status).toBe(200);
      expect(within.body.errors).toBeUndefined();
      expect(within.body.data.books).toEqual({ totalCount: 0 });
      expect(within.body.data.g399).toBe('Query');
    } finally {
      await wide.close();
    }
  });

  it('measures each definition of a fragment name given twice, and refuses a JSON syntax tree that carries a loc', async () => {
    const wide = repeat(1500, () => 'x: __typename');
    expect(
      refused(await gql(`{ __typename } fragment F on Query { ${wide} } fragment F on Query { __typename }`)),
    ).toBe('The query is too complex: it selects more than 1000 fields.');
    const tree = JSON.stringify({
      kind: 'Document',
      loc: {},
      definitions: [{ kind: 'OperationDefinition', operation: 'query', selectionSet: { selections: 7 } }],
    });
    expect(refused(await gql(tree))).toBe('The query must be a GraphQL document.');
  });

  it('counts a long chain of fragments, and refuses one with a cycle at its end', async () => {
    const chain = (length: number, last: string) =>
      `{ ...C0 } ${repeat(length, (index) => `fragment C${index} on Query { ${index === length - 1 ? last : `...C${index + 1}`} }`)}`;
    expect(refused(await gql(chain(900, '...C0')))).toBe('Cannot spread fragment "C0" within itself.');
    // Without the cycle it is one field: counted in time linear in its length, and run.
    const long = await gql(chain(900, '__typename'));
    expect(long.status).toBe(200);
    expect(long.body).toEqual({ data: { __typename: 'Query' } });
  });

  it('limits the depth of fields, not of fragments, and leaves introspection to graphql-js', async () => {
    const Writer = defineResource({
      name: 'Writer',
      fields: { name: { type: 'string' }, works: { toMany: 'Work', mappedBy: 'writer' } },
    });
    const Work = defineResource({
      name: 'Work',
      fields: { title: { type: 'string' }, writer: { toOne: 'Writer', nullable: true } },
    });
    const deep = await buildTestApp({ database, resources: [Writer, Work] });
    const ask = (query: string) => call(deep, { method: 'POST', url: '/graphql', payload: { query } });
    try {
      // Depth 10 runs, 11 does not.
      const ten = await ask(
        '{ works { edges { node { writer { works { edges { node { writer { works { totalCount } } } } } } } } } }',
      );
      expect(ten.status, ten.text).toBe(200);
      const eleven = await ask(
        '{ works { edges { node { writer { works { edges { node { writer { works { edges { cursor } } } } } } } } } } }',
      );
      expect(refused(eleven)).toBe('The query is too deep: its depth is 11, more than the limit of 10.');
      // Fragments, named or inline, add no level: this is depth 10 too.
      const viaFragments = await ask(
        '{ ...A } fragment A on Query { works { edges { node { writer { works { ...B } } } } } } fragment B on WorkCursorConnection { edges { ... on WorkEdge { node { writer { works { totalCount } } } } } }',
      );
      expect(viaFragments.status, viaFragments.text).toBe(200);
      expect(viaFragments.body).toEqual({ data: { works: { edges: [] } } });
      // GraphiQL's and client generators' introspection nests 15 levels: it runs at the default limit of 10.
      for (const query of [
        getIntrospectionQuery(),
        getIntrospectionQuery({
          descriptions: true,
          specifiedByUrl: true,
          directiveIsRepeatable: true,
          schemaDescription: true,
          inputValueDeprecation: true,
        }),
      ]) {
        const introspection = await ask(query);
        expect(introspection.status, introspection.text).toBe(200);
        expect(introspection.body.data.__schema.queryType.name).toBe('Query');
      }
      // Introspection that multiplies is refused by graphql-js's MaxIntrospectionDepthRule.
      expect(
        refused(
          await ask(
            '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }',
          ),
        ),
      ).toMatch(/introspection/i);
    } finally {
      await deep.close();
    }
  });

  it('refuses limits that are not whole numbers from 1 up at start-up', async () => {
    for (const graphql of [{ maxDepth: 0 }, { maxDepth: 2.5 }, { maxComplexity: -1 }, { maxComplexity: Number.NaN }]) {
      await expect(buildTestApp({ database, resources: [Book], graphql }), JSON.stringify(graphql)).rejects.toThrow(
        /^graphql\.max(Depth|Complexity) must be a whole number from 1 up/,
      );
    }
    const small = await buildTestApp({ database, resources: [Book], graphql: { maxComplexity: 2, maxDepth: 2 } });
    try {
      expect(
        (await call(small, { method: 'POST', url: '/graphql', payload: { query: '{ books { totalCount } }' } })).body,
      ).toEqual({ data: { books: { totalCount: 0 } } });
      const wide = await call(small, {
        method: 'POST',
        url: '/graphql',
        payload: { query: '{ books { totalCount } __typename }' },
      });
      expect(wide.body.errors[0].message).toBe('The query is too complex: it selects more than 2 fields.');
    } finally {
      await small.close();
    }
  });
});
