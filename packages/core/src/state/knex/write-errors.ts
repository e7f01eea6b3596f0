/**
 * A write the database refused, as the client should read it: the 400 a Unique constraint's check gives (its path and
 * its message) when that check lost a race, a 400 on the field whose value is too large for its index (PostgreSQL), a
 * 409 for a related item gone or an item still referred to. The item written and the nested items it writes with it
 * (cascadePersist, nested updates) are all searched, so a nested item's path reads `author.name`.
 */
import { ApiError } from '../../errors.js';
import { type Entity, type MetadataRegistry, NestedWrite, type ResourceMetadata } from '../../metadata/types.js';
import { MESSAGES } from '../../validation/messages.js';
import {
  buildLowerUniqueIndexName,
  toLiveUniqueIndexName,
  collectUniqueConstraints,
  formatUniqueMessage,
  resolveUniquePath,
} from '../../validation/unique.js';
import { createViolation } from '../../validation/violation.js';
import type { Dialect } from '../dialects/dialect.js';
import { buildUniqueIndexName } from '../schema-sync.js';

const TOO_LONG_TO_INDEX = 'This value is too long.';

/** An item of a write: the top-level one, or one written through a relation (`prefix` is its path, `author.`). */
interface WrittenItem {
  readonly resource: ResourceMetadata;
  readonly data: Entity;
  readonly prefix: string;
}

function* writtenItems(
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  data: Entity,
  prefix = '',
): Generator<WrittenItem> {
  yield { resource, data, prefix };
  for (const field of resource.fields) {
    const value = data[field.name];
    if (value instanceof NestedWrite)
      yield* writtenItems(registry, registry.resource(value.resource), value.data, `${prefix}${field.name}.`);
  }
}

const columnOf = (resource: ResourceMetadata, name: string): string =>
  (resource.fieldsByName.get(name) as { column: string }).column;

/**
 * Whether a unique violation is the one of this index: PostgreSQL names the index, SQLite lists `table.column` pairs,
 * or names an index on expressions (`index 'user_email_lower_unique'`, a case-insensitive Unique's).
 */
function violates(error: unknown, table: string, columns: readonly string[], lowerCase: boolean): boolean {
  const { constraint, message = '' } = error as { constraint?: string; message?: string };
  // A case-insensitive Unique may also still have the exact index a schema made before it ignored case: either one
  // refusing the row is this constraint's violation.
  const exact = lowerCase
    ? [buildLowerUniqueIndexName(table, columns), buildUniqueIndexName(table, [...columns])]
    : [buildUniqueIndexName(table, [...columns])];
  // A soft-deleted resource's indexes hold its live items only (`desired-schema.ts`).
  const indexes = [...exact, ...exact.map(toLiveUniqueIndexName)];
  if (indexes.some((index) => constraint === index || message.includes(`"${index}"`) || message.includes(`'${index}'`)))
    return true;
  return /UNIQUE constraint failed: (.+)$/.exec(message)?.[1] === columns.map((c) => `${table}.${c}`).join(', ');
}

/** The Unique constraint of the write a unique-index violation belongs to, as its check reports it. */
function uniqueViolation(error: unknown, items: readonly WrittenItem[]): ApiError | undefined {
  for (const { resource, prefix } of items) {
    for (const { fields, constraint, lowerCase } of collectUniqueConstraints(resource)) {
      if (
        !violates(
          error,
          resource.table,
          fields.map((name) => columnOf(resource, name)),
          lowerCase.length > 0,
        )
      )
        continue;
      const path = prefix + resolveUniquePath(constraint, fields);
      const message = formatUniqueMessage(constraint);
      return new ApiError('VALIDATION_FAILED', `${path}: ${message}`, {
        violations: [createViolation(path, message, MESSAGES.unique.code)],
        cause: error,
      });
    }
  }
  return undefined;
}

/**
 * The path of the field whose filter or unique index (named as schema sync names them) a too-large index row belongs
 * to. When PostgreSQL does not name the index ("index row requires 10016 bytes"), the indexed field holding the longest
 * text in the write.
 */
function tooLargePath(error: unknown, items: readonly WrittenItem[]): string {
  const { message, constraint } = error as { message?: string; constraint?: string };
  const index = constraint ?? /for index "([^"]+)"/.exec(message ?? '')?.[1];
  let longest: { path: string; length: number } | undefined;
  for (const { resource, data, prefix } of items) {
    const indexed = new Set([
      ...resource.filters.flatMap((filter) => filter.indexedPaths ?? []),
      ...collectUniqueConstraints(resource).flatMap((u) => u.fields),
    ]);
    for (const field of resource.fields) {
      if (field.kind !== 'scalar' || !indexed.has(field.name)) continue;
      if (
        index === `${resource.table}_${field.column}_index` ||
        index === buildUniqueIndexName(resource.table, [field.column])
      )
        return prefix + field.name;
      const value = data[field.name];
      if (typeof value === 'string' && (!longest || value.length > longest.length))
        longest = { path: prefix + field.name, length: value.length };
    }
  }
  return longest?.path ?? '';
}

/** The error to answer for a write the database refused; the error itself when it is none of these. */
export function translateWriteError(
  error: unknown,
  options: {
    registry: MetadataRegistry;
    dialect: Dialect;
    resource: ResourceMetadata;
    data: Entity;
    deleting: boolean;
  },
): unknown {
  const { dialect, resource } = options;
  if (dialect.isForeignKeyViolation(error)) {
    return options.deleting
      ? new ApiError('STILL_REFERENCED', `This ${resource.name} cannot be deleted: other items still refer to it.`, {
          cause: error,
        })
      : new ApiError('CONFLICT', 'A related item does not exist (any more).', { cause: error });
  }
  if (dialect.isUniqueViolation(error)) {
    // A Unique constraint lost a race: the same 400 as its check would have given.
    const items = [...writtenItems(options.registry, resource, options.data)];
    return (
      uniqueViolation(error, items) ??
      new ApiError('CONFLICT', 'The write conflicts with an existing item (a unique value is already used).', {
        cause: error,
      })
    );
  }
  if (dialect.isIndexRowTooLarge(error)) {
    // A hostile or careless value too long for the index of a filtered or unique column: a 400, not a 500.
    const path = tooLargePath(error, [...writtenItems(options.registry, resource, options.data)]);
    return new ApiError('VALIDATION_FAILED', `${path}: ${TOO_LONG_TO_INDEX}`, {
      violations: [createViolation(path, TOO_LONG_TO_INDEX, MESSAGES.tooLong.code)],
      cause: error,
    });
  }
  return error;
}
