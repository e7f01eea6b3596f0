/**
 * The request flow, for every operation and every transport, top to bottom:
 *
 *   1 negotiate → 2 authenticate → 3 parameters → 4 authorize before the read → 5 read → 6 authorize after the read
 *   → 7 preconditions → 8 deserialize → 9 authorize after the body → 10 validate → 11 write → 12 serialize and respond
 *
 * (the stages' names and numbers of docs/lifecycle.md; 12 runs in the transport: `routing/send-response.ts` for REST)
 * (for an anonymous caller, 4 comes before 3: a protected operation is a 401 before anything else)
 * (a read of a soft-deleted resource's deleted items, `?deleted=true`, meets its `list` rule right after 4)
 *
 * Which of read / deserialize / validate / write / serialize run was decided when the metadata was built. Those five
 * each run in a span of their own when the request is traced (an OpenTelemetry SDK records its span): decided once
 * per request, not per stage (`telemetry/stage-spans.ts`).
 */
import type { OperationMetadata } from '../metadata/types.js';
import type { OperationContext, OperationRequest, OperationResponse, Runtime } from './operation-context.js';
import { ApiError } from '../errors.js';
import { ANONYMOUS } from '../security/access.js';
import { runStage } from '../telemetry/stage-spans.js';
import { isTracing } from '../telemetry/tracer.js';
import { authenticate } from './stages/authenticate.js';
import {
  authorizeAfterDeserialize,
  authorizeAfterRead,
  authorizeBeforeRead,
  authorizeDeletedListing,
} from './stages/authorize.js';
import { deserialize } from './stages/deserialize.js';
import { negotiate } from './stages/negotiate.js';
import { parseParameters } from './stages/parameters.js';
import { checkPreconditions } from './stages/preconditions.js';
import { read } from './stages/read.js';
import { respond } from './stages/respond.js';
import { validate } from './stages/validate.js';
import { write } from './stages/write.js';

/**
 * Runs every stage up to the write, and returns the context (GraphQL resolves fields from it). `serializes`: the
 * respond stage follows (HTTP), so the read may fetch what the response embeds.
 */
export async function executeOperation(
  runtime: Runtime,
  operation: OperationMetadata,
  request: OperationRequest,
  serializes = false,
): Promise<OperationContext> {
  const context: OperationContext = {
    runtime,
    resource: runtime.registry.resource(operation.resource),
    operation,
    request,
    serializes,
    plan: null,
    caller: ANONYMOUS,
    format: 'jsonld',
    id: undefined,
    parentIds: [],
    page: null,
    filters: [],
    previous: null,
    collection: null,
    data: null,
    violations: [],
    expected: null,
    missingItem: null,
  };
  const { stages } = operation;
  const traced = isTracing();
  // The stages that often have nothing to wait for (no token, no rule, no condition) return a promise only when they
  // do: awaiting one that did not would still cost a turn of the microtask queue, several times a request.
  let waiting: Promise<void> | void;

  negotiate(context);
  if ((waiting = authenticate(context))) await waiting;
  if (context.caller.user === null) {
    // Anonymous: the rule that can be decided without the item comes before the parameters, so a protected operation
    // is a 401 whatever its query string or id (an anonymous caller learns nothing of what it would accept). A rule
    // reads no parameter (only the method, the path, the item): running it first changes no other answer.
    if ((waiting = authorizeBeforeRead(context))) await waiting;
    try {
      parseParameters(context);
    } catch (error) {
      // An id that cannot exist is a missing item: the same 401 as one that is not stored, when the rule waits for it.
      throw context.missingItem && error instanceof ApiError && error.status === 404 ? context.missingItem : error;
    }
  } else {
    // Logged in: the parameters first, as API Platform reads (and checks the page) before its `security` rule.
    parseParameters(context);
    if ((waiting = authorizeBeforeRead(context))) await waiting;
  }
  if ((waiting = authorizeDeletedListing(context))) await waiting;
  if (stages.read) await runStage(traced, 'read', read, context);
  if ((waiting = authorizeAfterRead(context))) await waiting;
  if ((waiting = checkPreconditions(context))) await waiting;
  if (stages.deserialize) await runStage(traced, 'deserialize', deserialize, context);
  if ((waiting = authorizeAfterDeserialize(context))) await waiting;
  if (stages.validate) await runStage(traced, 'validate', validate, context);
  if (stages.write) await runStage(traced, 'write', write, context);
  return context;
}

/** The whole flow for HTTP: every stage, then serialize and respond. */
export async function runOperation(
  runtime: Runtime,
  operation: OperationMetadata,
  request: OperationRequest,
): Promise<OperationResponse> {
  const context = await executeOperation(runtime, operation, request, true);
  return runStage(isTracing(), 'serialize', respond, context);
}
