/**
 * The bench's data set: authors and books made by a seeded PRNG, so every run (and every machine) gets the same rows.
 * The example app creates its own schema (its start-up schema sync); the rows are then bulk inserted with knex, in id
 * order, so book `n` is `books[n - 1]`. The expected answers of the workloads are computed from these arrays, not by
 * asking a server, so a broken target cannot agree with itself.
 */
import knexFactory, { type Knex } from 'knex';
import { mariadbConnection } from './mariadb-connection.js';
import { buildBookshop } from 'bookshop/dist/app.js';

export interface DataSet {
  /** Author names; author `n` is `authors[n - 1]`. */
  readonly authors: readonly string[];
  /** Book titles (unique); book `n` is `books[n - 1]`. */
  readonly titles: readonly string[];
  /** The author id of each book, `authorIds[n - 1]` for book `n`. */
  readonly authorIds: Int32Array;
}

export const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

/** mulberry32: small, fast, good enough to spread words; the same seed gives the same sequence everywhere. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Ada',
  'Alan',
  'Ann',
  'Boris',
  'Chloe',
  'Clara',
  'David',
  'Elena',
  'Emil',
  'Farah',
  'Frank',
  'Grace',
  'Hana',
  'Hugo',
  'Ines',
  'Ivan',
  'Jane',
  'Jorge',
  'Karin',
  'Kenji',
  'Lena',
  'Liam',
  'Maya',
  'Mikhail',
  'Nadia',
  'Noah',
  'Olga',
  'Omar',
  'Paula',
  'Pierre',
  'Quinn',
  'Rosa',
  'Sara',
  'Tomas',
  'Ursula',
  'Victor',
  'Wanda',
  'Xavier',
  'Yuki',
  'Zoe',
];
const LAST = [
  'Abbott',
  'Bauer',
  'Castro',
  'Dumas',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Horvat',
  'Ibsen',
  'Jansen',
  'Kowalski',
  'Larsen',
  'Moreau',
  'Novak',
  'Okafor',
  'Petrov',
  'Quiroga',
  'Rossi',
  'Silva',
  'Tanaka',
  'Ueda',
  'Varga',
  'Weber',
  'Xu',
  'Yilmaz',
  'Zhang',
  'Brennan',
  'Costa',
  'Delgado',
  'Evans',
];
const ADJECTIVES = [
  'Silent',
  'Golden',
  'Broken',
  'Hidden',
  'Last',
  'Burning',
  'Frozen',
  'Distant',
  'Crimson',
  'Quiet',
  'Wild',
  'Lost',
  'Bright',
  'Hollow',
  'Ancient',
  'Restless',
  'Bitter',
  'Gentle',
  'Secret',
  'Endless',
  'Painted',
  'Iron',
  'Glass',
  'Paper',
  'Velvet',
  'Winter',
  'Summer',
  'Northern',
  'Southern',
  'Shining',
  'Sleeping',
  'Wandering',
];
const NOUNS = [
  'River',
  'Garden',
  'Tower',
  'Empire',
  'Harbor',
  'Forest',
  'Mirror',
  'Kingdom',
  'Letter',
  'Voyage',
  'Island',
  'Bridge',
  'Orchard',
  'Machine',
  'Lantern',
  'Station',
  'Archive',
  'Compass',
  'Meadow',
  'Cathedral',
  'Desert',
  'Signal',
  'Theory',
  'Season',
  'Engine',
  'Valley',
  'Promise',
  'Shadow',
  'Market',
  'Country',
  'Storm',
  'Dream',
];
const PLACES = [
  'Avalon',
  'Lisbon',
  'Kyoto',
  'the North',
  'the Sea',
  'Tomorrow',
  'Prague',
  'the Plains',
  'Marrakesh',
  'Oslo',
  'the Moon',
  'Atlantis',
  'Vienna',
  'the Delta',
  'Samarkand',
  'the Hills',
];
const PATTERNS: readonly ((pick: <T>(list: readonly T[]) => T) => string)[] = [
  (pick) => `The ${pick(ADJECTIVES)} ${pick(NOUNS)}`,
  (pick) => `${pick(NOUNS)} of ${pick(PLACES)}`,
  (pick) => `A ${pick(ADJECTIVES)} ${pick(NOUNS)} in ${pick(PLACES)}`,
  (pick) => `${pick(ADJECTIVES)} ${pick(NOUNS)}s`,
];

/** The rows of the data set; the same arguments always give the same rows. */
export function generateData(options: { seed: number; authors: number; books: number }): DataSet {
  const random = createRandom(options.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

  const authors: string[] = [];
  const takenNames = new Set<string>();
  while (authors.length < options.authors) {
    let name = `${pick(FIRST)} ${pick(LAST)}`;
    for (let n = 2; takenNames.has(name); n++) name = `${name.replace(/ [IVX]+$/, '')} ${roman(n)}`;
    takenNames.add(name);
    authors.push(name);
  }

  const titles: string[] = [];
  const authorIds = new Int32Array(options.books);
  const seen = new Map<string, number>();
  for (let i = 0; i < options.books; i++) {
    const base = pick(PATTERNS)(pick);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    // Unique titles, so "first title" checks and `order[title]` never depend on how ties are broken.
    titles.push(count === 1 ? base : `${base}, Volume ${count}`);
    authorIds[i] = 1 + Math.floor(random() * options.authors);
  }
  return { authors, titles, authorIds };
}

function roman(n: number): string {
  const table: [number, string][] = [
    [10, 'X'],
    [9, 'IX'],
    [5, 'V'],
    [4, 'IV'],
    [1, 'I'],
  ];
  let out = '';
  for (const [value, letters] of table)
    while (n >= value) {
      out += letters;
      n -= value;
    }
  return out;
}

/**
 * Where a data set goes: an SQLite file, a schema of a PostgreSQL database, or a database of a MariaDB server (the
 * `schema`, made by the example app when missing; the URL names the server).
 */
export type DataTarget =
  | { readonly kind: 'sqlite'; readonly file: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string }
  | { readonly kind: 'mariadb'; readonly url: string; readonly schema: string };

export function knexFor(target: DataTarget): Knex {
  switch (target.kind) {
    case 'sqlite':
      return knexFactory({ client: 'better-sqlite3', connection: { filename: target.file }, useNullAsDefault: true });
    case 'postgres':
      return knexFactory({
        client: 'pg',
        connection: target.url,
        searchPath: [target.schema],
        pool: { min: 0, max: 2 },
      });
    case 'mariadb':
      return knexFactory({
        client: 'mysql2',
        connection: mariadbConnection(target.url, target.schema),
        pool: { min: 0, max: 2 },
      });
  }
}

/**
 * Lets the example app create its schema (it does at start), then bulk inserts the rows. The SQLite file is left in
 * the default rollback journal (the app switches its files to WAL; the baseline without WAL must not inherit that).
 */
export async function loadData(target: DataTarget, data: DataSet, log: (line: string) => void): Promise<void> {
  const app = await buildBookshop(
    target.kind === 'sqlite'
      ? { database: `sqlite:${target.file}`, jwtSecret: JWT_SECRET }
      : { database: target.url, databaseSchema: target.schema, jwtSecret: JWT_SECRET },
  );
  await app.close();

  const knex = knexFor(target);
  try {
    const started = Date.now();
    // knex writes a multi-row insert on SQLite as a compound SELECT, which SQLite caps at 500 terms.
    const chunk = target.kind === 'sqlite' ? 500 : 4000;
    await knex.transaction(async (trx) => {
      for (let i = 0; i < data.authors.length; i += chunk) {
        await trx('author').insert(data.authors.slice(i, i + chunk).map((name) => ({ name })));
      }
      for (let i = 0; i < data.titles.length; i += chunk) {
        const rows = [];
        for (let j = i; j < Math.min(i + chunk, data.titles.length); j++)
          rows.push({ title: data.titles[j], author_id: data.authorIds[j] });
        await trx('book').insert(rows);
      }
    });
    const [last] = await knex('book').max({ id: 'id' });
    if (Number(last?.id) !== data.titles.length)
      throw new Error(`Expected book ids 1..${data.titles.length}, the last is ${String(last?.id)}.`);
    if (target.kind === 'sqlite') await knex.raw('PRAGMA journal_mode = DELETE');
    else if (target.kind === 'postgres') await knex.raw('ANALYZE author, book');
    else await knex.raw('ANALYZE TABLE author, book');
    log(
      `  ${target.kind}: ${data.authors.length} authors, ${data.titles.length} books inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await knex.destroy();
  }
}
