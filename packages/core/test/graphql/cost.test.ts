/**
 * The cost of a GraphQL query counts the items it may read, as GitHub counts nodes: a connection's page size times the
 * page sizes of the connections around it, with `first`/`last` from the query or its variables and the resolvers'
 * default and maximum page sizes otherwise. The attack of issue 34 (30 aliases of `books(first: 100) { … author {
 * books(first: 100) … } }`) is refused at once and runs no SQL statement; legitimate queries, the W6 bench query
 * among them, pass. Aliases and root mutation fields are capped; a mutation that hashes a password weighs as much as
 * many reads. On both databases.
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { securityOptions, User } from '../security/fixtures.js';

const Author = defineResource({
  name: 'Author',
  fields: { name: { type: 'string' }, books: { toMany: 'Book', mappedBy: 'author' } },
});
const Book = defineResource({
  name: 'Book',
  fields: { title: { type: 'string' }, author: { toOne: 'Author', inversedBy: 'books' } },
});
/** Page-based in GraphQL: `itemsPerPage` asks for the page size. */
const Magazine = defineResource({
  name: 'Magazine',
  paginationType: 'page',
  paginationItemsPerPage: 5,
  paginationMaximumItemsPerPage: 40,
  fields: { title: { type: 'string' } },
});

/** The attack's alias: 100 books, each with its author's 100 books (100 + 100 × 100 = 10,100 items). */
const ATTACK_ALIAS =
  'books(first: 100) { edges { node { author { books(first: 100) { edges { node { title } } } } } } }';
const attack = (aliases: number) =>
  `{ ${Array.from({ length: aliases }, (_, index) => `a${index}: ${ATTACK_ALIAS}`).join(' ')} }`;
const BENCH_W6 = '{ books(first: 50) { totalCount edges { node { id title author { name } } } } }';

interface Answer {
  readonly status: number;
  readonly body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  };
  readonly text: string;
  /** SQL statements the request ran (knex's `query` event). */
  readonly statements: number;
  readonly ms: number;
}

async function seed(app: FastifyInstance): Promise<void> {
  const { knex } = app.resourceApi.database;
  await knex('author').insert(Array.from({ length: 3 }, (_, index) => ({ name: `Author ${index + 1}` })));
  await knex('book').insert(
    Array.from({ length: 60 }, (_, index) => ({ title: `Book ${index + 1}`, author_id: (index % 3) + 1 })),
  );
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('GraphQL cost on $name', (database) => {
  const app = useApp(database, { resources: [Author, Book, Magazine] });

  async function ask(
    target: FastifyInstance,
    query: string,
    variables?: Record<string, unknown>,
    method: 'GET' | 'POST' = 'POST',
  ): Promise<Answer> {
    const { knex } = target.resourceApi.database;
    let statements = 0;
    const count = () => statements++;
    knex.on('query', count);
    const started = performance.now();
    try {
      const response =
        method === 'POST'
          ? await call(target, { method, url: '/graphql', payload: variables ? { query, variables } : { query } })
          : await call(target, {
              method,
              url: '/graphql',
              query: variables ? { query, variables: JSON.stringify(variables) } : { query },
            });
      return { ...response, statements, ms: performance.now() - started };
    } finally {
      knex.off('query', count);
    }
  }
  const refused = (answer: Answer): string => {
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.data ?? null).toBeNull();
    expect(answer.statements, 'SQL statements run').toBe(0);
    return answer.body.errors![0]!.message;
  };
  const passed = (answer: Answer): Record<string, unknown> => {
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errors, answer.text).toBeUndefined();
    return answer.body.data!;
  };
  const tooCostly = (items: number, limit = 10_000) =>
    `The query is too costly: it may read up to ${items} items, more than the limit of ${limit} (graphql.maxNodes). Ask for smaller pages (first, last or itemsPerPage), fewer nested connections or fewer password changes.`;

  it('refuses the attack of issue 34 at once, running no SQL statement, and one alias of it by the node budget', async () => {
    await seed(app());
    const answer = await ask(app(), attack(30));
    // 30 aliases: over the alias cap, checked before graphql-js validates the document.
    expect(refused(answer)).toBe(
      'The query uses too many aliases: 30, more than the limit of 15 (graphql.maxAliases). Send the fields in several requests.',
    );
    expect(answer.ms).toBeLessThan(1000);
    // With the aliases allowed, the items it may read refuse it: 30 × 10,100.
    const wide = await buildTestApp({ database, resources: [Author, Book, Magazine], graphql: { maxAliases: 100 } });
    try {
      await seed(wide);
      const costly = await ask(wide, attack(30));
      expect(refused(costly)).toBe(tooCostly(303_000));
      expect(costly.body.errors![0]!.extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost: 303_000, maxNodes: 10_000 });
      expect(costly.ms).toBeLessThan(1000);
    } finally {
      await wide.close();
    }
    // A single alias of it is over the default budget too: 100 + 100 × 100.
    expect(refused(await ask(app(), `{ ${ATTACK_ALIAS} }`))).toBe(tooCostly(10_100));
  });

  it('lets legitimate queries through: the W6 bench query, nested pages within the budget, introspection', async () => {
    await seed(app());
    const bench = await ask(app(), BENCH_W6);
    const books = passed(bench).books as {
      totalCount: number;
      edges: { node: { title: string; author: { name: string } } }[];
    };
    expect(books.totalCount).toBe(60);
    expect(books.edges).toHaveLength(50);
    expect(books.edges[0]!.node.author.name).toBe('Author 1');
    expect(bench.statements).toBeGreaterThan(0);
    // Exactly at the budget: 100 + 100 × 99 = 10,000.
    const atBudget = passed(
      await ask(app(), '{ books(first: 100) { edges { node { author { books(first: 99) { totalCount } } } } } }'),
    );
    expect((atBudget.books as { edges: unknown[] }).edges).toHaveLength(60);
    // Default page sizes: 10 authors, each with 10 books (the defaults the resolvers use).
    passed(
      await ask(app(), '{ authors { edges { node { name books { edges { node { title author { name } } } } } } } }'),
    );
    passed(await ask(app(), '{ __schema { queryType { name } } __typename }'));
  });

  it('counts default page sizes, `last`, clamped sizes and page-based `itemsPerPage` as the resolvers page', async () => {
    const small = await buildTestApp({ database, resources: [Author, Book, Magazine], graphql: { maxNodes: 109 } });
    try {
      // No `first`: the default page of 10, each with a default page of 10 = 110.
      expect(refused(await ask(small, '{ authors { edges { node { books { totalCount } } } } }'))).toBe(
        tooCostly(110, 109),
      );
      // `last` counts as `first` does; a size above the maximum (100) is clamped as the resolver clamps it.
      expect(
        refused(await ask(small, '{ authors(last: 2) { edges { node { books(first: 1000) { totalCount } } } } }')),
      ).toBe(tooCostly(202, 109));
      passed(await ask(small, '{ authors(last: 9) { edges { node { books(first: 10) { totalCount } } } } }'));
      // Page-based: `itemsPerPage` (clamped to the maximum of 40), else the resource's 5.
      expect(
        refused(
          await ask(
            small,
            '{ a: magazines(itemsPerPage: 1000) { paginationInfo { totalCount } } b: magazines(itemsPerPage: 70) { collection { title } } c: magazines(itemsPerPage: 40) { collection { title } } }',
          ),
        ),
      ).toBe(tooCostly(120, 109));
      passed(
        await ask(
          small,
          '{ magazines { collection { title } } other: magazines(itemsPerPage: 40) { collection { title } } }',
        ),
      );
      // Fragments count where they are spread, as often as they are: 2 × (10 + 10 × 10) = 220.
      expect(
        refused(
          await ask(
            small,
            '{ ...A x: authors { ...C } } fragment A on Query { authors { ...C } } fragment C on AuthorCursorConnection { edges { node { books { totalCount } } } }',
          ),
        ),
      ).toBe(tooCostly(220, 109));
    } finally {
      await small.close();
    }
  });

  it('counts `first` from the request’s variables, their defaults included, on POST and GET, cached documents too', async () => {
    await seed(app());
    const query =
      'query Nested($n: Int, $m: Int = 100) { books(first: $n) { edges { node { author { books(first: $m) { totalCount } } } } } }';
    // $n = 10 and $m's default of 100: 10 + 10 × 100 = 1,010.
    passed(await ask(app(), query, { n: 10 }));
    // Run again (mercurius caches the document, then compiles it): the variables are still counted each time.
    passed(await ask(app(), query, { n: 10 }));
    passed(await ask(app(), query, { n: 10, m: 5 }));
    expect(refused(await ask(app(), query, { n: 100 }))).toBe(tooCostly(10_100));
    expect(refused(await ask(app(), query, { n: 100, m: 100 }, 'GET'))).toBe(tooCostly(10_100));
    passed(await ask(app(), query, { n: 100, m: 99 }, 'GET'));
    // Without $n: the default page of 10.
    passed(await ask(app(), query));
  });

  it('caps root mutation fields per document, and writes nothing for a document over the cap', async () => {
    const { knex } = app().resourceApi.database;
    const creates = (count: number) =>
      `mutation { ${Array.from({ length: count }, (_, index) => `c${index}: createAuthor(input: { name: "Writer ${index}" }) { author { id } }`).join(' ')} }`;
    expect(refused(await ask(app(), creates(11)))).toBe(
      'The document holds too many mutations: 11 root mutation fields, more than the limit of 10 (graphql.maxRootMutations). Send them in several requests.',
    );
    expect(await knex('author').count({ n: '*' })).toEqual([{ n: 0 }]);
    // Through a fragment on the mutation type too.
    const viaFragment = `mutation { ...M } fragment M on Mutation { ${Array.from({ length: 11 }, (_, index) => `c${index}: createAuthor(input: { name: "W" }) { clientMutationId }`).join(' ')} }`;
    expect(refused(await ask(app(), viaFragment))).toMatch(
      /^The document holds too many mutations: 11 root mutation fields/,
    );
    passed(await ask(app(), creates(10)));
    expect(Number((await knex('author').count({ n: '*' }))[0]!.n)).toBe(10);
  });

  it('weighs a mutation that hashes a password as many reads, and refuses too many of them before hashing any', async () => {
    const secured = await buildTestApp({ database, resources: [User, Author, Book], security: securityOptions() });
    try {
      const { knex } = secured.resourceApi.database;
      const register = (count: number, from = 0) =>
        `mutation { ${Array.from({ length: count }, (_, index) => `u${index}: createUser(input: { email: "user${from + index}@example.com", plainPassword: "password-${index}" }) { clientMutationId }`).join(' ')} }`;
      // 2,500 items each: five are 12,500, over the budget of 10,000; none is created.
      expect(refused(await ask(secured, register(5)))).toBe(tooCostly(12_500));
      expect(await knex('user').count({ n: '*' })).toEqual([{ n: 0 }]);
      passed(await ask(secured, register(4)));
      expect(Number((await knex('user').count({ n: '*' }))[0]!.n)).toBe(4);
      // A mutation that writes no password weighs nothing more.
      passed(
        await ask(
          secured,
          `mutation { ${Array.from({ length: 10 }, (_, index) => `a${index}: createAuthor(input: { name: "A${index}" }) { clientMutationId }`).join(' ')} }`,
        ),
      );
      // Updates that may carry a password weigh the same, whatever the document's other reads.
      const updates = `mutation { ${Array.from({ length: 5 }, (_, index) => `p${index}: updateUser(input: { id: "/api/users/1", nickname: "n${index}" }) { clientMutationId }`).join(' ')} }`;
      expect(refused(await ask(secured, updates))).toBe(tooCostly(12_500));
    } finally {
      await secured.close();
    }
  });

  it('refuses budgets that are not whole numbers at start-up', async () => {
    for (const graphql of [{ maxNodes: 0 }, { maxAliases: 1.5 }, { maxRootMutations: -1 }]) {
      await expect(
        buildTestApp({ database, resources: [Book, Author], graphql }),
        JSON.stringify(graphql),
      ).rejects.toThrow(/^graphql\.max(Nodes|Aliases|RootMutations) must be a whole number from 1 up/);
    }
    await expect(
      buildTestApp({ database, resources: [Book, Author], graphql: { passwordWriteCost: -1 } }),
    ).rejects.toThrow('graphql.passwordWriteCost must be a whole number from 0 up, got -1.');
  });
});
