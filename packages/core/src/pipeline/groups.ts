/**
 * The serialization groups in force for one request: the operation's fixed list, or what its groups function
 * returns for this request (user, roles). Null when the operation declares none.
 */
import type { GroupsDeclaration } from '../metadata/declared.js';
import { toFixedGroups } from '../metadata/groups.js';
import type { OperationMetadata } from '../metadata/types.js';
import type { Caller } from '../security/access.js';

/** What the groups depend on: the operation and the caller (REST's operation context, GraphQL's request scope). */
export interface GroupsScope {
  readonly operation: OperationMetadata;
  readonly caller: Caller;
}

export function resolveActiveGroups(
  declaration: GroupsDeclaration | null,
  context: GroupsScope,
): ReadonlySet<string> | null {
  if (declaration === null) return null;
  if (typeof declaration !== 'function') return toFixedGroups(declaration);
  const { operation } = context;
  return new Set(
    declaration({
      operation: { kind: operation.kind as never, resource: operation.resource, name: operation.name },
      user: context.caller.user,
      roles: context.caller.roles,
    }),
  );
}
