/**
 * Stage 11, write. Hashes new passwords (nested items' too), then hands `context.data` to the operation's state
 * processors (its own, its resource's, the built-in one, each reaching the next with `next`), with
 * `context.expected`, the item an If-Match held against; writes the stored item back to `context.data` (null after a
 * DELETE). With a processor or hook of the user's, one transaction holds `beforeWrite`, the processors and
 * `afterWrite`; `afterCommit` runs once it committed, and its failures are logged, never answered. Once committed, a
 * write of an operation with `mercure` is handed to the Mercure publisher (`publish-writes.ts`), and, with HTTP
 * caching on, the cached responses showing what it wrote are purged before it is answered (`purge-written.ts`).
 * Throws 409 on
 * conflicts the database reports, 412 when the item changed since the If-Match was checked, and whatever a hook or
 * processor throws before the commit.
 */
import {
  type Entity,
  type MetadataRegistry,
  NestedWrite,
  type ProcessContext,
  type ResourceMetadata,
  type WriteHook,
} from '../../metadata/types.js';
import type { Knex } from 'knex';
import { hashPassword } from '../../security/password.js';
import type { PreparedWrite } from '../publish-writes.js';
import type { CascadedItem } from '../../state/knex/cascaded-items.js';
import { process } from '../../state/compose.js';
import type { StageContext } from '../operation-context.js';
import { createStateContext } from '../state-context.js';
import { listReleasedFiles, placeUploads, removeFiles } from '../place-uploads.js';

/**
 * Replaces every new password by its hash. A value equal to the stored one is that hash, kept by an update that left
 * the password out: hashing it again would lose the password. Any other value is the client's, hashed even when it
 * looks like a hash (it is the password its owner will type), but for an empty one on an update.
 */
async function hashNewPasswords(
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  data: Entity,
  previous: Entity | null,
): Promise<void> {
  for (const field of resource.fields) {
    const value = data[field.name];
    if (value instanceof NestedWrite)
      await hashNewPasswords(registry, registry.resource(value.resource), value.data, value.previous);
    else if (
      field.kind === 'scalar' &&
      field.type === 'password' &&
      typeof value === 'string' &&
      value !== previous?.[field.name]
    ) {
      // An empty password on an update is none (as API Platform's hashing processor): the stored one stays.
      const stored = previous?.[field.name];
      data[field.name] = value === '' && typeof stored === 'string' ? stored : await hashPassword(value);
    }
  }
}

/**
 * The hooks of one kind, in order. `item`: the new state before the write, the stored item after it (for a DELETE,
 * the item as it was).
 */
async function runHooks(hooks: readonly WriteHook[], item: Entity, context: ProcessContext): Promise<void> {
  for (const hook of hooks) await hook(item, context);
}

export async function write(context: StageContext<'write'>): Promise<void> {
  const { runtime, operation } = context;
  const data = context.data!;
  // Passwords in the resource's own body are hashed before any processor sees them; an input shape's values are the
  // processor's to handle (it checks a current password against the stored hash, hashes a new one with hashPassword).
  if (operation.writeMode) await hashNewPasswords(runtime.registry, context.resource, data, context.previous);
  const processContext: ProcessContext = {
    ...createStateContext(context),
    previous: context.previous,
    // If-Match held against `previous`: the processor writes only if the item is still unchanged (412 otherwise).
    ...(context.expected ? { expected: context.expected } : {}),
  };
  const { hooks } = operation;
  // Uploads go to their final names before the write (a failed write removes them), so no row names a missing file.
  const placed = operation.writeMode ? await placeUploads(runtime.files, context.resource, data) : [];
  // Real-time updates and the cache purge may need a word from inside the write's transaction: its place in the order
  // of commits, and the items a DELETE takes or changes by cascade (looked up once for both, before it runs). The
  // write then runs in one, and `prepare` runs there first.
  const publisher = operation.mercure ? runtime.mercure : null;
  const purger = runtime.httpCache?.purger ?? null;
  const cascades = (publisher !== null || purger !== null) && runtime.cascades.reaches(context.resource, operation);
  let prepared: PreparedWrite | undefined;
  let cascaded: CascadedItem[] = [];
  const prepare =
    cascades || publisher?.needsTransaction
      ? async (transaction: Knex.Transaction) => {
          // Every item for the cache (its responses may be cached whatever it declares); else the published ones.
          if (cascades)
            cascaded = await runtime.cascades.find(transaction, context.resource, context.id!, (owner) =>
              purger ? true : owner.mercure !== null,
            );
          if (publisher) prepared = await publisher.prepare(transaction, cascaded);
        }
      : undefined;
  let stored: Entity | null;
  try {
    stored = await writeWithProcessors(context, data, processContext, prepare);
  } catch (error) {
    await removeFiles(runtime.files, placed, processContext.logger);
    throw error;
  }
  context.data = stored;
  // Committed: the cached responses that showed what it wrote go now, before it is answered, so that no read starting
  // after the answer can be served the older state.
  const purged = purger?.purge(
    { resource: context.resource, operation, data, stored, previous: context.previous, cascaded },
    processContext.logger,
  );
  // Committed: its place in the line of real-time updates is taken now, before the purge's wait, so that they leave
  // in commit order; they are sent once the purge is done.
  if (publisher)
    publisher.publish({
      resource: context.resource,
      operation,
      origin: context.request.origin,
      data,
      stored,
      previous: context.previous,
      prepared,
      ...(purged === undefined ? {} : { purged }),
      logger: processContext.logger,
    });
  await purged;
  // Committed: the files the item no longer holds (deleted, replaced) go, and a failure to remove one is only logged.
  const released = listFilesLetGo(context, stored);
  if (released.length > 0) await removeFiles(runtime.files, released, processContext.logger);
  if (hooks.afterCommit.length === 0) return;
  // Committed: what follows cannot undo the write, so a failure is logged and the response stays the write's.
  for (const hook of hooks.afterCommit) {
    try {
      await hook(stored ?? context.previous ?? data, processContext);
    } catch (error) {
      processContext.logger.error(
        { err: error, operation: operation.name },
        'An afterCommit hook failed; the write stays committed and is answered as such.',
      );
    }
  }
}

/**
 * The stored files a committed write let go of. A delete: all of the item's, unless it is a soft delete (the row stays
 * and names them; a restore brings the item back with them). Any other write: those the stored item holds no more,
 * when the processors answered with the stored item. One that answered nothing (`output: false`, a processor that
 * does not return `next`'s item) or an output shape says nothing of what the row holds: its files stay, as a file left
 * over is better than a row naming a removed one.
 */
function listFilesLetGo(context: StageContext<'write'>, stored: Entity | null): string[] {
  const { operation, resource, previous } = context;
  if (operation.kind === 'delete') return resource.softDelete ? [] : listReleasedFiles(resource, previous, null);
  if (stored === null || operation.output !== null) return [];
  return listReleasedFiles(resource, previous, stored);
}

/** The processors, and the hooks inside the write; the stored item (null after a DELETE), committed. */
async function writeWithProcessors(
  context: StageContext<'write'>,
  data: Entity,
  processContext: ProcessContext,
  prepare: ((transaction: Knex.Transaction) => Promise<void>) | undefined,
): Promise<Entity | null> {
  const { runtime, operation } = context;
  const chain = runtime.processors.get(operation)!;
  const { hooks } = operation;
  let stored: Entity | null;
  if (
    runtime.builtinProcessor(operation) &&
    hooks.beforeWrite.length === 0 &&
    hooks.afterWrite.length === 0 &&
    prepare === undefined
  ) {
    // Nothing of the user's runs inside the write: the built-in processor chooses (one statement, or its own
    // transaction), and has committed when it returns.
    stored = ((await process(chain, data, processContext)) as Entity | undefined) ?? null;
  } else {
    // A processor or hook of the user's inside the write: one transaction holds their work and the built-in write,
    // so a throw anywhere before the commit undoes it all.
    stored = await runtime.transaction(async (transaction) => {
      // `execute` inside the transaction: the query, built on the transaction, runs there.
      const inside: ProcessContext = {
        ...processContext,
        db: transaction,
        transaction,
        execute: (query) => runtime.execute(query, transaction),
      };
      await prepare?.(transaction);
      await runHooks(hooks.beforeWrite, data, inside);
      const written = ((await process(chain, data, inside)) as Entity | undefined) ?? null;
      await runHooks(hooks.afterWrite, written ?? context.previous ?? data, inside);
      return written;
    });
  }
  return stored;
}
