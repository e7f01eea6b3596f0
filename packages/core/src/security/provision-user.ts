/**
 * `app.resourceApi.provisionUser`: a user the app itself keeps, such as a first admin named by the environment. The
 * framework creates it and records so on its row (`resource_api_provisioned_at`, which no request writes), and on a
 * later start brings that same account up to date (its password, the roles asked for). It never hands roles to an
 * account it did not create: anyone may have registered the address first, and promoting their account would give
 * them the roles (and the password they chose would still be theirs until this one replaced it). Such an account is
 * refused (`AccountNotProvisionedError`, logged at warn) unless it already holds every role asked for, in which case
 * it is left as it is (with a warning). A password or roles written anew revoke the account's tokens.
 */
import { buildRowMapper } from '../state/knex/row-mapper.js';
import { makeInsertId, runReturningWrite } from '../state/knex/returning-write.js';
import { readItemId } from '../metadata/identifier.js';
import type { Entity, ItemId, MetadataRegistry } from '../metadata/types.js';
import { resolveInitialValue } from '../schema/initial-values.js';
import { PROVISIONED_AT_COLUMN, TOKENS_VALID_AFTER_COLUMN } from '../state/credentials-stamp.js';
import type { Database } from '../state/database.js';
import type { ResolvedSecurity } from './config.js';
import { findColumn, findAccount } from './find-account.js';
import { hashPassword, verifyPassword } from './password.js';
import { resolveEffectiveRoles, toStoredRoles } from './roles.js';

/** Options of `app.resourceApi.provisionUser`: the account the app keeps. */
export interface ProvisionUserOptions {
  /** The login identifier (the `email`). */
  readonly identifier: string;
  readonly password: string;
  /** The roles the account must hold (added to the ones it has). */
  readonly roles: readonly string[];
  /**
   * An account the framework did not create but that already holds one of these roles (effective, the hierarchy
   * applied) is taken as the app's own: marked, and brought up to date as one it created. For an app that made its
   * admin before `provisionUser` existed (its `ROLE_ADMIN` account has no mark): someone who registered the address
   * holds none of them. Default: none.
   */
  readonly adopt?: readonly string[];
}

/**
 * What `provisionUser` did: created the account, updated it, found nothing to change, or left an account it did not
 * create alone.
 */
export interface ProvisionedUser {
  readonly id: ItemId;
  readonly outcome: 'created' | 'updated' | 'unchanged' | 'left alone';
}

/** The identifier names an account the framework did not create, and that lacks roles asked for: it is not promoted. */
export class AccountNotProvisionedError extends Error {
  readonly code = 'API_ERR_ACCOUNT_NOT_PROVISIONED';
  constructor(message: string) {
    super(message);
    this.name = 'AccountNotProvisionedError';
  }
}

export interface ProvisionDependencies {
  readonly registry: MetadataRegistry;
  readonly database: Database;
  readonly security: ResolvedSecurity;
  /** Where the refusal and the account left alone are reported (the app's logger). */
  readonly log: { warn(details: object, message: string): void };
  /** Revokes the user's refresh tokens (the access tokens are by the instant written with the change). */
  readonly revokeRefreshTokens: (userId: ItemId) => Promise<void>;
}

const parseRoles = (value: unknown): unknown[] => {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? parsed : [];
};

export async function provisionUser(
  deps: ProvisionDependencies,
  options: ProvisionUserOptions,
  retried = false,
): Promise<ProvisionedUser> {
  const { database, security, log } = deps;
  const { knex, dialect } = database;
  const table = security.resource.table;
  const passwordColumn = findColumn(security, security.password);
  const rolesColumn = findColumn(security, security.roles);
  const existing = await findAccount(database, security, options.identifier, [
    passwordColumn,
    rolesColumn,
    PROVISIONED_AT_COLUMN,
  ]);
  const rolesField = security.resource.fieldsByName.get(security.roles)!;

  if (!existing) {
    const mapper = buildRowMapper(security.resource, deps.registry, dialect);
    const entity: Entity = {};
    for (const field of security.resource.fields)
      if (field.kind !== 'toMany') entity[field.name] = resolveInitialValue(field);
    entity[security.identifier] = options.identifier;
    entity[security.password] = await hashPassword(options.password);
    entity[security.roles] = toStoredRoles(options.roles);
    const now = Date.now();
    const row = mapper.toRow(entity);
    const madeId = makeInsertId(dialect, security.resource.identifier);
    if (madeId !== undefined) row.id = madeId;
    // Made by the app, not by a caller: its timestamps are set, its blame relations null.
    mapper.stampRow(row, { creating: true, at: new Date(now), by: null });
    try {
      const [inserted] = await runReturningWrite<{ id: unknown }>(dialect, {
        query: knex(table).insert({ ...row, [TOKENS_VALID_AFTER_COLUMN]: now, [PROVISIONED_AT_COLUMN]: now }),
        kind: 'insert',
        table,
        key: row.id === undefined ? undefined : { id: row.id },
        columns: ['id'],
        run: async (query) => query,
        db: knex,
      });
      return {
        id: readItemId(security.resource.identifier, typeof inserted === 'object' ? inserted.id : inserted),
        outcome: 'created',
      };
    } catch (error) {
      // Instances started together: the one whose insert lost to the unique identifier finds the winner's account.
      if (retried || !dialect.isUniqueViolation(error)) throw error;
      return provisionUser(deps, options, true);
    }
  }

  const id = readItemId(security.resource.identifier, existing.id);
  const stored = parseRoles(existing[rolesColumn]);
  const row: Record<string, unknown> = {};
  const effective = resolveEffectiveRoles(stored, security.roleHierarchy);
  const unmarked = existing[PROVISIONED_AT_COLUMN] === null || existing[PROVISIONED_AT_COLUMN] === undefined;
  if (unmarked && options.adopt?.some((role) => effective.includes(role))) {
    log.warn(
      { userId: id },
      `The account "${String(existing[findColumn(security, security.identifier)])}" holds ${options.adopt.join(' or ')}: it is taken as the app's own from now on.`,
    );
    row[PROVISIONED_AT_COLUMN] = Date.now();
  } else if (unmarked) {
    const lacking = options.roles.filter((role) => !effective.includes(role));
    if (lacking.length === 0) {
      log.warn(
        { userId: id },
        `The account "${String(existing[findColumn(security, security.identifier)])}" was not created by the app but already holds ${options.roles.join(', ')}: it is left as it is (its password is not changed).`,
      );
      return { id, outcome: 'left alone' };
    }
    const message =
      `The account "${String(existing[findColumn(security, security.identifier)])}" (user ${id}) was not created by the app and lacks ${lacking.join(', ')}: ` +
      'it is not promoted, since whoever registered that address would get the roles. Choose another address, or delete or rename that account if it is not yours.';
    log.warn({ userId: id }, message);
    throw new AccountNotProvisionedError(message);
  }

  const current = existing[passwordColumn];
  if (typeof current !== 'string' || !(await verifyPassword(options.password, current)))
    row[passwordColumn] = await hashPassword(options.password);
  if (options.roles.some((role) => !stored.includes(role)))
    row[rolesColumn] = dialect.toDb(
      rolesField.kind === 'scalar' ? rolesField.type : 'string[]',
      toStoredRoles([...stored, ...options.roles]),
    );
  if (Object.keys(row).length === 0) return { id, outcome: 'unchanged' };
  const credentials = passwordColumn in row || rolesColumn in row;
  buildRowMapper(security.resource, deps.registry, dialect).stampRow(row, {
    creating: false,
    at: new Date(),
    by: null,
  });
  // A new password or new roles: the tokens issued before are refused, as after any such write.
  await knex(table)
    .where('id', id)
    .update(credentials ? { ...row, [TOKENS_VALID_AFTER_COLUMN]: Date.now() } : row);
  if (credentials) await deps.revokeRefreshTokens(id);
  return { id, outcome: 'updated' };
}
