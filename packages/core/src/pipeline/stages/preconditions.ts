/**
 * Stage 7, preconditions (RFC 9110 §13) of PUT, PATCH and DELETE. Runs after the read and its access rule — a missing
 * item stays a 404 and a denied one a 401/403, whatever the headers say — and before the body is read. Reads
 * `If-Match` and `If-None-Match` and compares them with the ETags of the item as this caller would GET it (the GET
 * operation's read groups for this caller; in JSON-LD and in plain JSON, so a tag read in either format is current).
 * Throws 428 when the resource requires If-Match and none was sent, 412 when a condition fails. When If-Match names
 * tags and one holds, writes the item read to `context.expected`: the processor checks again, atomically with the
 * write, that nobody changed it meanwhile (see state/knex/assert-unchanged.ts). GET and HEAD are answered by the
 * routes (ETag, 304) from the bytes they send, without a query of their own.
 */
import { findBuiltinOperation } from '../../metadata/builtin-operation.js';
import { ApiError } from '../../errors.js';
import { computeEntityTag, ifMatchHolds, ifNoneMatchMatches, parseEntityTags } from '../entity-tag.js';
import type { OutputFormat } from '../../serializer/vocabulary.js';
import { resolveActiveGroups } from '../groups.js';
import type { StageContext } from '../operation-context.js';

const CONDITIONAL_KINDS = new Set(['put', 'patch', 'delete']);
const FORMATS: readonly OutputFormat[] = ['jsonld', 'json'];

/** The ETags of the item read, rendered as its GET renders it for this caller, byte for byte, in every format. */
async function currentTags(context: StageContext<'preconditions'>): Promise<string[]> {
  const { runtime, resource, caller } = context;
  const get = findBuiltinOperation(resource, 'get') ?? context.operation;
  const { normalizer } = runtime;
  const plan = normalizer.plan(resource, resolveActiveGroups(get.normalizationGroups, { ...context, operation: get }));
  const item = context.previous!;
  const loaded = await normalizer.load(plan, [item]);
  return FORMATS.map((format) =>
    computeEntityTag(JSON.stringify(normalizer.document(plan, item, format, loaded, caller))),
  );
}

export function checkPreconditions(context: StageContext<'preconditions'>): Promise<void> | void {
  // A restore is not conditional: a deleted item has no ETag a client could have read (its GET is a 404).
  if (CONDITIONAL_KINDS.has(context.operation.kind) && !context.operation.restores)
    return checkConditionalWrite(context);
}

async function checkConditionalWrite(context: StageContext<'preconditions'>): Promise<void> {
  const { resource, request } = context;
  const { ifMatch, ifNoneMatch } = request;
  if (ifMatch === undefined && resource.requireIfMatch) {
    throw new ApiError(
      'PRECONDITION_REQUIRED',
      `Writes to ${resource.name} need an If-Match header with the ETag of the item (GET it first): this protects against lost updates.`,
    );
  }
  if (ifMatch === undefined && ifNoneMatch === undefined) return;

  // `*` needs no rendering: the item exists (the read found it).
  const anyTag = (header: string | undefined) => header !== undefined && parseEntityTags(header) === '*';
  const namesTags = [ifMatch, ifNoneMatch].some((header) => header !== undefined && !anyTag(header));
  const current = namesTags ? await currentTags(context) : [];
  if (ifMatch !== undefined) {
    if (!ifMatchHolds(ifMatch, current)) {
      throw new ApiError(
        'PRECONDITION_FAILED',
        `The ${resource.name} changed since you read it: none of the ETags in If-Match is its current one. GET it again and send its new ETag.`,
      );
    }
    // A copy: later stages build the new state from `previous`, and the processor compares with this one.
    if (!anyTag(ifMatch)) context.expected = structuredClone(context.previous);
  }
  if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, current)) {
    throw new ApiError(
      'PRECONDITION_FAILED',
      `The ${resource.name} exists and If-None-Match names its current ETag (or is "*").`,
    );
  }
}
