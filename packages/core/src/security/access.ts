/**
 * Access rules at work: who is calling (`Caller`), whether a rule grants the call, and the denial — 401 with
 * `WWW-Authenticate: Bearer` for anonymous callers (they may log in), 403 with the rule's message for users.
 */
import { ApiError } from '../errors.js';
import type { AccessRule, AccessRuleContext } from '../metadata/declared.js';
import type { AccessRuleMetadata, Entity } from '../metadata/types.js';
import { type CompiledExpression, compileExpression, expressionReadsObject } from './expression.js';

/** The caller of an operation: a user with effective roles, or anonymous (null, no roles). */
export interface Caller {
  readonly user: Entity | null;
  readonly roles: readonly string[];
}

export const ANONYMOUS: Caller = Object.freeze({ user: null, roles: Object.freeze([]) as readonly string[] });

const compiled = new Map<string, CompiledExpression>();

/**
 * `is_granted(attribute)` for a caller: a role the caller has (their roles hold the ones the hierarchy grants), or one
 * of Symfony's authentication attributes: `IS_AUTHENTICATED_FULLY`, `IS_AUTHENTICATED_REMEMBERED` and
 * `IS_AUTHENTICATED` (a user is logged in), `PUBLIC_ACCESS` (everyone), `IS_ANONYMOUS` (nobody is logged in).
 */
const grantedTo =
  (caller: Caller) =>
  (attribute: string): boolean => {
    switch (attribute) {
      case 'IS_AUTHENTICATED_FULLY':
      case 'IS_AUTHENTICATED_REMEMBERED':
      case 'IS_AUTHENTICATED':
        return caller.user !== null;
      case 'PUBLIC_ACCESS':
        return true;
      case 'IS_ANONYMOUS':
        return caller.user === null;
      default:
        return caller.roles.includes(attribute);
    }
  };

export interface RuleScope {
  readonly object: Record<string, unknown> | null;
  readonly previousObject: Record<string, unknown> | null;
  readonly request: { readonly method: string; readonly path: string };
}

/**
 * Whether the rule grants the call: a boolean at once for an expression (compiled once and cached; they are
 * synchronous), a promise for a function rule (it may ask the database).
 */
export function grants(rule: AccessRule, caller: Caller, scope: RuleScope): boolean | Promise<boolean> {
  const context: AccessRuleContext = {
    user: caller.user,
    roles: caller.roles,
    isGranted: grantedTo(caller),
    ...scope,
  };
  if (typeof rule === 'function') return Promise.resolve(rule(context)).then(Boolean);
  let check = compiled.get(rule);
  if (!check) compiled.set(rule, (check = compileExpression(rule)));
  return check(context);
}

/** Whether a rule may depend on the item: a function, or an expression naming `object` or `previous_object`. */
export const mayReadObject = (rule: AccessRule): boolean => typeof rule === 'function' || expressionReadsObject(rule);

/** A field rule, for reading or writing one field: synchronous (expressions, or functions that return a boolean). */
export function grantsField(rule: AccessRule, caller: Caller, object: Record<string, unknown> | null): boolean {
  if (typeof rule === 'function') {
    const result = rule({
      user: caller.user,
      roles: caller.roles,
      isGranted: grantedTo(caller),
      object,
      previousObject: null,
      request: { method: '', path: '' },
    });
    return result === true;
  }
  let check = compiled.get(rule);
  if (!check) compiled.set(rule, (check = compileExpression(rule)));
  return check({
    user: caller.user,
    roles: caller.roles,
    isGranted: grantedTo(caller),
    object,
    previousObject: null,
    request: { method: '', path: '' },
  });
}

export const createUnauthenticatedError = (): ApiError =>
  new ApiError('UNAUTHENTICATED', 'Full authentication is required to access this resource.', {
    headers: { 'www-authenticate': 'Bearer' },
  });

/** The denial of a rule: 401 for anonymous callers, 403 with the rule's message for users. */
export const createDenialError = (rule: AccessRuleMetadata, caller: Caller): ApiError =>
  caller.user === null ? createUnauthenticatedError() : new ApiError('FORBIDDEN', rule.message);

/**
 * Throws the denial unless the rule grants the call. Without a rule, or with an expression, it decides at once and
 * returns nothing to wait for (see `run-operation.ts`); a function rule gives a promise.
 */
export function enforce(rule: AccessRuleMetadata | null, caller: Caller, scope: RuleScope): Promise<void> | void {
  if (!rule) return;
  const granted = grants(rule.rule, caller, scope);
  if (granted instanceof Promise) {
    return granted.then((yes) => {
      if (!yes) throw createDenialError(rule, caller);
    });
  }
  if (!granted) throw createDenialError(rule, caller);
}
