/**
 * Resources and helpers of the hostile-input tests: a `Note` with a field of every type and a filter of every kind
 * (so each filter can be attacked), its `Shelf`, and a recorder of the SQL a request runs (to check that hostile
 * values travel as bindings and never change the SQL text).
 */
import type { FastifyInstance } from 'fastify';
import { defineResource, Unique } from '@resource-api/core';

export const Shelf = defineResource({
  name: 'Shelf',
  fields: {
    label: { type: 'string' },
    code: { type: 'string', nullable: true, constraints: [Unique()] },
    notes: { toMany: 'Note', mappedBy: 'shelf' },
  },
  filters: [{ type: 'search', properties: { label: 'exact' } }],
});

const STRATEGIES = [
  'exact',
  'partial',
  'start',
  'end',
  'word_start',
  'iexact',
  'ipartial',
  'istart',
  'iend',
  'iword_start',
] as const;

export const Note = defineResource({
  name: 'Note',
  fields: {
    title: { type: 'string' },
    // One text field per search strategy, so every strategy meets every hostile value.
    ...Object.fromEntries(STRATEGIES.map((s) => [`by_${s}`, { type: 'string' as const, nullable: true }])),
    body: { type: 'text', nullable: true },
    pages: { type: 'integer', nullable: true },
    rank: { type: 'integer', nullable: true },
    price: { type: 'float', nullable: true },
    done: { type: 'boolean', default: false },
    writtenAt: { type: 'datetime', nullable: true },
    dueOn: { type: 'date', nullable: true },
    extra: { type: 'json', nullable: true },
    tags: { type: 'string[]', default: [] },
    shelf: { toOne: 'Shelf', inversedBy: 'notes', nullable: true },
  },
  filters: [
    {
      type: 'search',
      properties: {
        title: 'partial',
        ...Object.fromEntries(STRATEGIES.map((s) => [`by_${s}`, s])),
        body: 'ipartial',
        rank: 'exact',
        shelf: 'exact',
        'shelf.label': 'iexact',
      },
    },
    { type: 'range', properties: ['pages', 'price', 'writtenAt'] },
    { type: 'date', properties: { writtenAt: 'exclude_null', dueOn: 'include_null_before' } },
    { type: 'boolean', properties: ['done'] },
    { type: 'numeric', properties: ['pages', 'price'] },
    { type: 'exists', properties: ['body', 'shelf'] },
    { type: 'order', properties: ['title', 'pages', 'writtenAt', 'shelf.label'] },
  ],
});

export const SEARCH_FIELDS = ['title', 'body', 'shelf.label', ...STRATEGIES.map((s) => `by_${s}`)] as const;

/** The same strategies through a substring index (FTS5 trigrams on SQLite, pg_trgm on PostgreSQL). */
export const IndexedNote = defineResource({
  name: 'IndexedNote',
  fields: Object.fromEntries(STRATEGIES.map((s) => [`by_${s}`, { type: 'string' as const, nullable: true }])),
  filters: [
    { type: 'search', properties: Object.fromEntries(STRATEGIES.map((s) => [`by_${s}`, s])), substringIndex: true },
  ],
});

export const INDEXED_SEARCH_FIELDS = STRATEGIES.map((s) => `by_${s}`);

export interface RecordedQuery {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

/** Runs `action` and returns it with the SQL statements it made, as knex's `query` event reports them. */
export async function recordSql<T>(
  app: FastifyInstance,
  action: () => Promise<T>,
): Promise<{ result: T; queries: RecordedQuery[] }> {
  const queries: RecordedQuery[] = [];
  const { knex } = app.resourceApi.database;
  const listener = (query: { sql: string; bindings?: readonly unknown[] }) =>
    queries.push({ sql: query.sql, bindings: query.bindings ?? [] });
  knex.on('query', listener);
  try {
    return { result: await action(), queries };
  } finally {
    knex.off('query', listener);
  }
}

/** Every row of a table, ordered by id: what is really stored, read without the API. */
export async function rows(app: FastifyInstance, table: string): Promise<Record<string, unknown>[]> {
  return app.resourceApi.database.knex(table).select('*').orderBy('id');
}
