/**
 * The workloads of issue 9, W1 to W7, and of later issues (W2-index, W5-hook, W5-mercure, W8, W1/W3/W5-cached,
 * W7-mariadb): for each, the request each target gets, the target its ratios are taken against, and the check run on
 * every target before it is measured (status, number of items, total, first title), with the expected values computed
 * from the generated data set.
 */
import type { DataSet } from './data.js';
import type { WrkRequest } from './wrk.js';

export type TargetName =
  | 'bookshop'
  | 'bookshop-embed'
  | 'bookshop-cursor'
  | 'bookshop-trigram'
  | 'baseline'
  | 'baseline-wal'
  | 'floor'
  | 'bookshop-pg'
  | 'baseline-pg'
  | 'bookshop-nohook'
  | 'bookshop-hook'
  | 'bookshop-hook-tx'
  | 'bookshop-shipped'
  | 'bookshop-shipped-pg'
  | 'bookshop-mariadb'
  | 'baseline-mariadb'
  | 'bookshop-shipped-mariadb'
  | 'bookshop-cache'
  | 'bookshop-shipped-cache';

/**
 * The example app as `pnpm start` runs it (issue 35): `examples/bookshop/dist/main.js` with its environment settings,
 * request log on at its default level. Measured on the workloads the example app itself serves, beside `bookshop`
 * (the app as `buildBookshop` builds it, no request log, no rate limit); `--no-shipped` leaves it out.
 */
export const SHIPPED_TARGETS: ReadonlySet<TargetName> = new Set([
  'bookshop-shipped',
  'bookshop-shipped-pg',
  'bookshop-shipped-mariadb',
  'bookshop-shipped-cache',
]);

/**
 * The example app with its in-process HTTP cache on (issue 39): `bookshop-cache` is `buildBookshop({ httpCache:
 * 'memory' })`, `bookshop-shipped-cache` the app as shipped with `HTTP_CACHE=memory`; each the same as the target
 * named here but for the cache, in a process and on a database copy of its own.
 */
export const CACHE_TARGETS: ReadonlyMap<TargetName, TargetName> = new Map([
  ['bookshop-cache', 'bookshop'],
  ['bookshop-shipped-cache', 'bookshop-shipped'],
]);

export interface Workload {
  readonly id: string;
  readonly title: string;
  /** The targets measured, in the order of odd rounds (even rounds go the other way). */
  readonly targets: readonly TargetName[];
  /** The measurement every ratio of this workload is taken against (same round). */
  readonly reference: { readonly workload: string; readonly target: TargetName };
  readonly request: (target: TargetName) => WrkRequest;
  /** The floor's route pattern for this workload's request. */
  readonly floorRoute: string;
  /** What is wrong with a response (empty when it is right). */
  readonly check: (status: number, body: string) => string[];
  /** After a write workload: undo its writes on a target (the runner deletes rows past the data set). */
  readonly writes?: boolean;
  /**
   * Each target's ratios are taken against `reference.workload` on that same target, not on `reference.target`:
   * W5-mercure against W5 on the same server in the same round (the same process, with and without subscribers).
   */
  readonly referenceOnSameTarget?: boolean;
  /**
   * The id under which each target is also measured without subscribers, right before or after its measurement with
   * them (the order alternating with the rounds): W5-mercure's reference, `W5-paired`, measured as close in time to it
   * as possible, since the speed of a shared host drifts from one minute to the next.
   */
  readonly pairedWithout?: string;
  /**
   * Mercure subscribers held open on the target's built-in hub while it is measured (warm-up included), with sampled
   * writes timing their events (`mercure-delay.ts`).
   */
  readonly subscribers?: number;
  /**
   * Each target's ratios are taken against `reference.workload` on the target named here (W5-cached: each cached
   * server against the same server without the cache, in the same round).
   */
  readonly referenceTargets?: Partial<Record<TargetName, TargetName>>;
  /**
   * A workload of the in-process HTTP cache (issue 39): `reads`, each check of a cached target asks twice and the
   * second answer must come from the cache (`X-Cache: HIT`) with the same body, both passing the check; `writes`, the
   * check also reads a collection page before and after the write and requires the write to show in it.
   */
  readonly cache?: 'reads' | 'writes';
  /**
   * Requests checked on each cached target right after its measurement, from the cache the load left: the ids
   * the rotation went over (W3-cached), each answer checked like the workload's own.
   */
  readonly checkAfterLoad?: readonly {
    readonly path: string;
    readonly check: (status: number, body: string) => string[];
  }[];
}

/** The measurement a workload's figures on `target` are taken against. */
export function referenceOf(
  workload: Pick<Workload, 'reference' | 'referenceOnSameTarget' | 'referenceTargets'>,
  target: TargetName,
): { readonly workload: string; readonly target: TargetName } {
  if (workload.referenceOnSameTarget) return { workload: workload.reference.workload, target };
  const other = workload.referenceTargets?.[target];
  return other ? { workload: workload.reference.workload, target: other } : workload.reference;
}

const PAGE_SIZE = 10;
export const SEARCH_TERM = 'river';

type Json = Record<string, unknown>;

function parse(body: string): Json | undefined {
  try {
    return JSON.parse(body) as Json;
  } catch {
    return undefined;
  }
}

function expectEqual(problems: string[], what: string, actual: unknown, expected: unknown): void {
  if (actual !== expected)
    problems.push(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/**
 * A Hydra collection page: status 200, the number of members, the total (none: undefined), the first member's title
 * (and author name).
 */
function collectionCheck(expected: {
  count: number;
  total: number | undefined;
  firstTitle: string;
  firstAuthorName?: string;
}) {
  return (status: number, body: string): string[] => {
    const problems: string[] = [];
    expectEqual(problems, 'status', status, 200);
    const json = parse(body);
    if (!json) return [...problems, 'the body is not JSON'];
    const members = json['hydra:member'] as Json[] | undefined;
    expectEqual(problems, 'members', members?.length, expected.count);
    expectEqual(problems, 'hydra:totalItems', json['hydra:totalItems'], expected.total);
    expectEqual(problems, 'first title', members?.[0]?.title, expected.firstTitle);
    if (expected.firstAuthorName !== undefined)
      expectEqual(
        problems,
        'first author name',
        (members?.[0]?.author as Json | undefined)?.name,
        expected.firstAuthorName,
      );
    return problems;
  };
}

export function buildWorkloads(data: DataSet): Workload[] {
  const total = data.titles.length;
  const authorName = (bookIndex: number) => data.authors[(data.authorIds[bookIndex] ?? 0) - 1];
  const page3 = { count: PAGE_SIZE, total, firstTitle: data.titles[2 * PAGE_SIZE] as string };

  const deepPage = Math.floor(total / PAGE_SIZE / 2);
  const matches = data.titles
    .filter((title) => title.toLowerCase().includes(SEARCH_TERM))
    .sort()
    .reverse();
  const itemId = Math.min(1234, total);
  const postBody = { title: 'A Book Written During The Bench', author: '/api/authors/7' };
  const postCheck = (status: number, body: string): string[] => {
    const problems: string[] = [];
    expectEqual(problems, 'status', status, 201);
    const json = parse(body);
    expectEqual(problems, 'title', json?.title, postBody.title);
    expectEqual(problems, 'author', json?.author, postBody.author);
    if (typeof json?.id !== 'number' || json.id <= total)
      problems.push(`id: expected a new id above ${total}, got ${JSON.stringify(json?.id)}`);
    return problems;
  };
  /** W5's request and check, shared by the workloads measuring writes of a book (W5, W5-hook, W5-mercure). */
  const postBook = {
    request: (): WrkRequest => ({
      method: 'POST',
      path: '/api/books',
      body: JSON.stringify(postBody),
      contentType: 'application/ld+json',
    }),
    floorRoute: '/api/books',
    writes: true,
    check: postCheck,
  } as const;
  const itemCheck =
    (id: number) =>
    (status: number, body: string): string[] => {
      const problems: string[] = [];
      expectEqual(problems, 'status', status, 200);
      const json = parse(body);
      expectEqual(problems, 'title', json?.title, data.titles[id - 1]);
      expectEqual(problems, 'author', json?.author, `/api/authors/${String(data.authorIds[id - 1])}`);
      return problems;
    };
  // The ids of wrk's rotation (bench/wrk/report.lua): its n-th request asks (n × 7919) mod MAX + 1. After a cached
  // W3 measurement, some of the first ones and some further on are read back from the cache and checked.
  const rotated = [1, 2, 3, 10, 100, 1000, 2000, 5000, 9000, 9999].map((n) => ((n * 7919) % total) + 1);
  const graphqlQuery = `{ books(first: ${PAGE_SIZE}) { totalCount edges { node { id title author { name } } } } }`;
  // Deep in the table for the cursor: the page after the book in the middle.
  const cursorAfter = Math.floor(total / 2);

  return [
    {
      id: 'W1',
      title: 'collection page 3 with total (`GET /api/books?page=3`)',
      targets: ['bookshop', 'bookshop-shipped', 'baseline', 'floor'],
      reference: { workload: 'W1', target: 'baseline' },
      request: () => ({ method: 'GET', path: '/api/books?page=3' }),
      floorRoute: '/api/books',
      check: collectionCheck(page3),
    },
    {
      id: 'W2',
      title: `partial title search, ordered by title descending (\`GET /api/books?title=${SEARCH_TERM}&order[title]=desc\`)`,
      targets: ['bookshop', 'bookshop-shipped', 'baseline', 'floor'],
      reference: { workload: 'W2', target: 'baseline' },
      request: () => ({ method: 'GET', path: `/api/books?title=${SEARCH_TERM}&order%5Btitle%5D=desc` }),
      floorRoute: '/api/books',
      check: collectionCheck({
        count: Math.min(PAGE_SIZE, matches.length),
        total: matches.length,
        firstTitle: matches[0] as string,
      }),
    },
    {
      id: 'W2-index',
      title: `W2 with a trigram index declared on the title search (\`substringIndex: true\`: SQLite FTS5); ratio to the baseline's W2`,
      targets: ['bookshop-trigram'],
      reference: { workload: 'W2', target: 'baseline' },
      request: () => ({ method: 'GET', path: `/api/books?title=${SEARCH_TERM}&order%5Btitle%5D=desc` }),
      floorRoute: '/api/books',
      check: collectionCheck({
        count: Math.min(PAGE_SIZE, matches.length),
        total: matches.length,
        firstTitle: matches[0] as string,
      }),
    },
    {
      id: 'W3',
      title: 'one item (`GET /api/books/{id}`, ids spread over the whole table)',
      targets: ['bookshop', 'bookshop-shipped', 'baseline', 'floor'],
      reference: { workload: 'W3', target: 'baseline' },
      // Checked on one id; measured over every id (the floor too, so wrk does the same work for each target).
      request: () => ({ method: 'GET', path: `/api/books/${itemId}`, rotate: { prefix: '/api/books/', max: total } }),
      floorRoute: '/api/books/:id',
      check: itemCheck(itemId),
    },
    {
      id: 'W4',
      title: 'a page of books with the author embedded (`GET /api/books?page=3`, author as `{@id, @type, id, name}`)',
      targets: ['bookshop-embed', 'baseline', 'floor'],
      reference: { workload: 'W4', target: 'baseline' },
      request: (target) => ({
        method: 'GET',
        path: target === 'bookshop-embed' ? '/api/books?page=3' : '/api/books-with-authors?page=3',
      }),
      floorRoute: '/api/books-with-authors',
      check: collectionCheck({ ...page3, firstAuthorName: authorName(2 * PAGE_SIZE) as string }),
    },
    {
      id: 'W5',
      title: 'POST a book (`POST /api/books`, author by IRI)',
      targets: ['bookshop', 'bookshop-shipped', 'baseline-wal', 'baseline', 'floor'],
      reference: { workload: 'W5', target: 'baseline-wal' },
      ...postBook,
    },
    {
      id: 'W5-mercure',
      title:
        "W5 with 100 subscribers on the app's built-in Mercure hub (topic `<origin>/api/books/{id}`: every book's update reaches each); ratio to W5 on the same server, measured right before or after it (`W5-paired`)",
      // The servers of W5: Book declares `mercure` in the example app and the hub is built in, so W5 already publishes
      // each write (to no one). Here the same processes are measured with subscribers connected.
      targets: ['bookshop', 'bookshop-shipped'],
      reference: { workload: 'W5-paired', target: 'bookshop' },
      referenceOnSameTarget: true,
      pairedWithout: 'W5-paired',
      subscribers: 100,
      ...postBook,
    },
    {
      id: 'W5-hook',
      title:
        'W5 with a write hook on Book that does nothing (`afterCommit`; `afterWrite`, in the transaction), against Book without hooks',
      targets: ['bookshop-nohook', 'bookshop-hook', 'bookshop-hook-tx'],
      reference: { workload: 'W5-hook', target: 'bookshop-nohook' },
      ...postBook,
    },
    {
      id: 'W6',
      title: `GraphQL: a page of books with their authors (\`POST /graphql\`, \`${graphqlQuery}\`); ratio to the baseline's W4`,
      targets: ['bookshop', 'bookshop-shipped', 'floor'],
      reference: { workload: 'W4', target: 'baseline' },
      request: () => ({
        method: 'POST',
        path: '/graphql',
        body: JSON.stringify({ query: graphqlQuery }),
        contentType: 'application/json',
      }),
      floorRoute: '/graphql',
      check: (status, body) => {
        const problems: string[] = [];
        expectEqual(problems, 'status', status, 200);
        const json = parse(body);
        if (json?.errors) problems.push(`errors: ${JSON.stringify(json.errors)}`);
        const books = (json?.data as Json | undefined)?.books as Json | undefined;
        const edges = books?.edges as { node?: Json }[] | undefined;
        expectEqual(problems, 'edges', edges?.length, PAGE_SIZE);
        expectEqual(problems, 'totalCount', books?.totalCount, total);
        expectEqual(problems, 'first title', edges?.[0]?.node?.title, data.titles[0]);
        expectEqual(problems, 'first author name', (edges?.[0]?.node?.author as Json | undefined)?.name, authorName(0));
        return problems;
      },
    },
    {
      id: 'W1-cached',
      title:
        'W1 with the in-process HTTP cache on (`httpCache: memory`, `HTTP_CACHE=memory` as shipped); ratio to the floor, measured in the same workload with the same wrk script',
      targets: ['bookshop-cache', 'bookshop-shipped-cache', 'floor'],
      reference: { workload: 'W1-cached', target: 'floor' },
      // The same request as W1; wrk counts each response's X-Cache (on the floor too, so wrk does the same work).
      request: () => ({ method: 'GET', path: '/api/books?page=3', countHeader: 'x-cache' }),
      floorRoute: '/api/books',
      check: collectionCheck(page3),
      cache: 'reads',
    },
    {
      id: 'W3-cached',
      title:
        'W3 with the in-process HTTP cache on, the ids going over the whole table as in W3; ratio to the floor, measured in the same workload with the same wrk script',
      targets: ['bookshop-cache', 'bookshop-shipped-cache', 'floor'],
      reference: { workload: 'W3-cached', target: 'floor' },
      request: () => ({
        method: 'GET',
        path: `/api/books/${itemId}`,
        rotate: { prefix: '/api/books/', max: total },
        countHeader: 'x-cache',
      }),
      floorRoute: '/api/books/:id',
      check: itemCheck(itemId),
      cache: 'reads',
      checkAfterLoad: rotated.map((id) => ({ path: `/api/books/${id}`, check: itemCheck(id) })),
    },
    {
      id: 'W5-cached',
      title:
        'W5 with the in-process HTTP cache on (every write purges it); ratio to W5 on the same server without the cache',
      targets: ['bookshop-cache', 'bookshop-shipped-cache'],
      reference: { workload: 'W5', target: 'bookshop' },
      referenceTargets: { 'bookshop-cache': 'bookshop', 'bookshop-shipped-cache': 'bookshop-shipped' },
      cache: 'writes',
      ...postBook,
    },
    ...(total >= 100_000
      ? [
          {
            id: 'W1-deep',
            title: `a deep page with total (\`GET /api/books?page=${deepPage}\`, offset ${((deepPage - 1) * PAGE_SIZE).toLocaleString('en')}); with 1,000,000 books only`,
            targets: ['bookshop', 'baseline', 'floor'],
            reference: { workload: 'W1-deep', target: 'baseline' },
            request: () => ({ method: 'GET', path: `/api/books?page=${deepPage}` }),
            floorRoute: '/api/books',
            check: collectionCheck({
              count: PAGE_SIZE,
              total,
              firstTitle: data.titles[(deepPage - 1) * PAGE_SIZE] as string,
            }),
          } satisfies Workload,
        ]
      : []),
    {
      id: 'W8',
      title:
        'cursor pagination, first page (`GET /api/books`, keyset on the id, no count; Book paged by cursor, author embedded)',
      targets: ['bookshop-cursor'],
      reference: { workload: 'W8', target: 'bookshop-cursor' },
      request: () => ({ method: 'GET', path: '/api/books' }),
      floorRoute: '/api/books',
      check: collectionCheck({
        count: PAGE_SIZE,
        total: undefined,
        firstTitle: data.titles[0] as string,
        firstAuthorName: authorName(0) as string,
      }),
    },
    {
      id: 'W8-deep',
      title: `cursor pagination, a page in the middle of the table (\`GET /api/books?id[gt]=${cursorAfter}\`); ratio to W8, the first page`,
      targets: ['bookshop-cursor'],
      reference: { workload: 'W8', target: 'bookshop-cursor' },
      request: () => ({ method: 'GET', path: `/api/books?id%5Bgt%5D=${cursorAfter}` }),
      floorRoute: '/api/books',
      check: collectionCheck({
        count: PAGE_SIZE,
        total: undefined,
        firstTitle: data.titles[cursorAfter] as string,
        firstAuthorName: authorName(cursorAfter) as string,
      }),
    },
    {
      id: 'W7',
      title: 'W1 on PostgreSQL',
      targets: ['bookshop-pg', 'bookshop-shipped-pg', 'baseline-pg', 'floor'],
      reference: { workload: 'W7', target: 'baseline-pg' },
      request: () => ({ method: 'GET', path: '/api/books?page=3' }),
      floorRoute: '/api/books',
      check: collectionCheck(page3),
    },
    {
      // Issue 40: the same request on MariaDB, against the baseline written by hand for MariaDB (knex's mysql2).
      id: 'W7-mariadb',
      title: 'W1 on MariaDB',
      targets: ['bookshop-mariadb', 'bookshop-shipped-mariadb', 'baseline-mariadb', 'floor'],
      reference: { workload: 'W7-mariadb', target: 'baseline-mariadb' },
      request: () => ({ method: 'GET', path: '/api/books?page=3' }),
      floorRoute: '/api/books',
      check: collectionCheck(page3),
    },
  ];
}
