/** Schema sync creates indexes for the columns that equality, range, date and order filters use. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases, type TestDatabase } from '@resource-api/core/testing';

const Writer = defineResource({
  name: 'Writer',
  fields: { name: { type: 'string' }, born: { type: 'date', nullable: true } },
});
const Novel = defineResource({
  name: 'Novel',
  fields: {
    title: { type: 'string' },
    code: { type: 'string' },
    price: { type: 'float' },
    writer: { toOne: 'Writer' },
  },
  filters: [
    { type: 'search', properties: { title: 'ipartial', code: 'exact', 'writer.name': 'exact' } },
    { type: 'range', properties: ['price'] },
    { type: 'order', properties: ['title', 'writer.born'] },
  ],
});

async function indexedColumns(
  app: Awaited<ReturnType<typeof buildTestApp>>,
  table: string,
  database: TestDatabase,
): Promise<string[]> {
  const { knex } = app.resourceApi.database;
  if (database.name === 'mariadb') {
    const [rows] = await knex.raw(
      "select column_name as name from information_schema.statistics where table_schema = database() and table_name = ? and index_name <> 'PRIMARY'",
      [table],
    );
    return (rows as { name: string }[]).map((row) => row.name).sort();
  }
  if (database.name === 'postgres') {
    const result = await knex.raw(
      'select indexdef from pg_indexes where tablename = ? and schemaname = current_schema()',
      [table],
    );
    return result.rows
      .flatMap((r: { indexdef: string }) => [...r.indexdef.matchAll(/\((\w+)\)$/g)].map((m) => m[1]!))
      .sort();
  }
  const indexes: { name: string }[] = await knex.raw(`select name from pragma_index_list(?)`, [table]);
  const columns: string[] = [];
  for (const { name } of indexes)
    columns.push(
      ...((await knex.raw('select name from pragma_index_info(?)', [name])) as { name: string }[]).map((c) => c.name),
    );
  return columns.sort();
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('filter indexes on $name', (database) => {
  it('indexes exact, range and order columns, on the table the path ends in, and not partial-search ones', async () => {
    const app = await buildTestApp({ database, resources: [Writer, Novel] });
    expect(await indexedColumns(app, 'novel', database)).toEqual(
      expect.arrayContaining(['code', 'price', 'title', 'writer_id']),
    );
    expect(await indexedColumns(app, 'writer', database)).toEqual(expect.arrayContaining(['born', 'name']));
    await app.close();
  });
});
