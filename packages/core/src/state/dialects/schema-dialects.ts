/** The schema dialect of each database, by its name (what one is: `schema-dialect.ts`). */
import type { DialectName } from './dialect.js';
import { mysqlSchema } from './mysql-schema.js';
import { postgresSchema } from './postgres-schema.js';
import type { SchemaDialect } from './schema-dialect.js';
import { sqliteSchema } from './sqlite-schema.js';

export const schemaDialects: Readonly<Record<DialectName, SchemaDialect>> = {
  sqlite: sqliteSchema,
  postgres: postgresSchema,
  mysql: mysqlSchema,
};
