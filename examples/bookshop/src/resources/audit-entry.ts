/**
 * AuditEntry — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/audit_entries`, read-only and `ROLE_ADMIN`: one entry per successful write of a Book or an Article (POST, PUT,
 * PATCH, DELETE, publish). The entries are written by `auditTrail`, an `afterCommit` write hook that Book and Article
 * declare in their `hooks`: it runs once the item's own write has committed, so a refused or failed write (400, 401,
 * 403, 404, 412, 500) adds none.
 */
import { type ProcessContext, type Entity, type WriteHooks, defineResource } from '@resource-api/core';

const ADMIN = "is_granted('ROLE_ADMIN')";

export const AuditEntry = defineResource({
  name: 'AuditEntry',
  description: 'A write of a book or an article: what was done, to which item, by whom, when.',
  operations: [
    { kind: 'getCollection', security: ADMIN },
    { kind: 'get', security: ADMIN },
  ],
  filters: [
    { type: 'search', properties: { resource: 'exact', action: 'exact' } },
    { type: 'order', properties: ['id'] },
  ],
  fields: {
    action: { type: 'string', writable: false, description: 'What was done: create, update, delete or publish.' },
    resource: { type: 'string', writable: false, description: 'The IRI of the item written.' },
    // The caller's IRI as a string, not a relation: the trail outlives the users it names (a user may be deleted).
    user: {
      type: 'string',
      nullable: true,
      column: 'user_iri',
      writable: false,
      description: 'The IRI of the user who wrote, or null for an anonymous write.',
    },
    at: { type: 'datetime', writable: false, description: 'When the write was committed.' },
  },
});

/** `create`, `update`, `delete`, or a custom operation's name (`publish`). */
function actionOf(context: ProcessContext): string {
  const { operation } = context;
  if (operation.customName !== null) return operation.customName;
  if (operation.kind === 'post') return 'create';
  if (operation.kind === 'delete') return 'delete';
  return 'update';
}

/**
 * The write hooks of an audited resource: `afterCommit` adds the entry. It runs after the commit (its own insert, on
 * `context.db`, outside the write's transaction); a failure there is logged by the framework and leaves the response.
 */
export const auditTrail: WriteHooks = {
  afterCommit: async (item: Entity, context: ProcessContext) => {
    const caller = context.caller.user;
    // `execute`: on SQLite the insert shares its commit with the other writes of the moment (one disk sync for all).
    // `toRow`: the entry's table row on this database (the column `user_iri`, the date as each database stores it).
    const row = context.toRow('AuditEntry', {
      action: actionOf(context),
      resource: `${context.resource.collectionPath}/${String(item.id)}`,
      user: caller ? `/api/users/${String(caller.id)}` : null,
      at: new Date(),
    });
    await context.execute(context.db('audit_entry').insert(row));
  },
};
