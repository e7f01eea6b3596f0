/**
 * The account an identifier names, whatever its letter case: `lower(column) = lower(value)`, as the `iexact` filter
 * matches (A-Z only on SQLite, whose `lower()` knows no other letters). Should rows differ only by case (written before
 * identifiers were unique regardless of case), the one spelled exactly as given wins, else the oldest. Live accounts
 * only, when the user resource is soft-deleted. Used by the login route and by `provisionUser`, so both find the same
 * account.
 */
import type { ResolvedSecurity } from './config.js';
import type { Database } from '../state/database.js';
import { limitToLiveItems } from '../state/knex/live-rows.js';

export const findColumn = (security: ResolvedSecurity, field: string): string =>
  (security.resource.fieldsByName.get(field) as { column: string }).column;

export async function findAccount(
  database: Database,
  security: ResolvedSecurity,
  identifier: string,
  columns: readonly string[],
): Promise<Record<string, unknown> | undefined> {
  const identifierColumn = findColumn(security, security.identifier);
  // A soft-deleted account is no account: it cannot log in, and a new one may have taken its identifier.
  const rows = (await limitToLiveItems(database.knex(security.resource.table), security.resource)
    .whereRaw('lower(??) = lower(?)', [identifierColumn, identifier])
    .orderBy('id')
    .limit(16)
    .select([...new Set(['id', identifierColumn, ...columns])])) as Record<string, unknown>[];
  return rows.find((row) => row[identifierColumn] === identifier) ?? rows[0];
}
