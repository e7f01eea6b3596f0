/**
 * The request flow, for every operation and every transport, top to bottom:
 *
 *   negotiate → parameters → (authorize) → read → (authorize) → deserialize → (authorize) → validate → write
 *   → serialize → respond
 *
 * Which of read / deserialize / validate / write / serialize run was decided when the metadata was built.
 * The authorize steps arrive with access control; they will sit exactly where they are marked.
 */
import type { OperationMetadata } from '../metadata/types.js';
import type { OperationContext, OperationRequest, OperationResponse, Runtime } from './operation-context.js';
import { deserialize } from './stages/deserialize.js';
import { negotiate } from './stages/negotiate.js';
import { parseParameters } from './stages/parameters.js';
import { read } from './stages/read.js';
import { respond } from './stages/respond.js';
import { validate } from './stages/validate.js';
import { write } from './stages/write.js';

export async function runOperation(runtime: Runtime, operation: OperationMetadata, request: OperationRequest): Promise<OperationResponse> {
  const context: OperationContext = {
    runtime,
    resource: runtime.registry.resource(operation.resource),
    operation,
    request,
    user: undefined,
    roles: [],
    format: 'jsonld',
    id: undefined,
    parentIds: [],
    page: null,
    filters: [],
    previous: null,
    collection: null,
    data: null,
    violations: [],
  };
  const { stages } = operation;

  negotiate(context);
  parseParameters(context);
  // authorize: before read
  if (stages.read) await read(context);
  // authorize: after read (object rules)
  if (stages.deserialize) await deserialize(context);
  // authorize: after deserialize (previous object rules)
  if (stages.validate) await validate(context);
  if (stages.write) await write(context);
  return await respond(context);
}
