/**
 * One span per SQL statement, a child of the span that runs it (a stage's, the request's), named as OpenTelemetry's
 * database conventions want (`SELECT books`, `INSERT books`, `BEGIN`), with the statement's text as compiled: its
 * placeholders (`?`, `$1`), never the values bound to them.
 *
 * Statements run two ways (`state/knex/statements.ts`), and both are covered:
 * - the direct paths (`sqlite-path.ts`, `postgres-path.ts`) make their span around the driver's call
 *   (`createStatementSpan`, `completeStatementSpan`);
 * - knex's own runner (transactions, schema work, knex instances handed in) is followed through knex's `query`,
 *   `query-response` and `query-error` events (`attachStatementTracing`). The direct paths announce their statements
 *   with a `query` event too, marked as theirs: those are left to them.
 *
 * A statement run while no span records (at start-up, with no SDK) gets no span.
 */
import { type Attributes, type Span, SpanKind } from '@opentelemetry/api';
import type { Knex } from 'knex';
import { completeSpanWithError } from './span-errors.js';
import { isTracing, tracer } from './tracer.js';

/** `db.system` as OpenTelemetry spells the two databases. */
export type DatabaseSystem = 'sqlite' | 'postgresql' | 'mysql';

/** The statement's first keyword (`SELECT`, `INSERT`, `BEGIN`, `WITH`), upper case. */
const OPERATION = /^\s*\(?\s*([a-z]+)/i;
/** The table the statement is about: the first name after `from`, `into` or `update`, without its schema or quotes. */
const COLLECTION = /\b(?:from|into|update)\s+(?:[`"]?[\w$]+[`"]?\.)?[`"]?([\w$]+)/i;

/** The span of one statement about to run, or undefined when nothing records. End it with `completeStatementSpan`. */
export function createStatementSpan(system: DatabaseSystem, sql: string): Span | undefined {
  if (!isTracing()) return undefined;
  const operation = OPERATION.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const collection =
    operation === 'SELECT' || operation === 'INSERT' || operation === 'UPDATE' || operation === 'DELETE'
      ? COLLECTION.exec(sql)?.[1]
      : undefined;
  const attributes: Attributes = {
    'db.system': system,
    'db.system.name': system,
    'db.operation.name': operation,
    'db.query.text': sql,
  };
  if (collection) attributes['db.collection.name'] = collection;
  return tracer.startSpan(collection ? `${operation} ${collection}` : operation, { kind: SpanKind.CLIENT, attributes });
}

/** Ends a statement's span; `error`, when it failed. */
export function completeStatementSpan(span: Span, error?: unknown): void {
  if (error === undefined) span.end();
  else completeSpanWithError(span, error);
}

/** What knex's `query` events carry (knex's runner sets `__knexQueryUid`; the direct paths mark theirs). */
interface QueryEvent {
  readonly sql?: string;
  readonly __knexUid?: string;
  readonly __knexQueryUid?: string;
}

/**
 * Spans waiting for their statement's end, at most this many (a statement knex never reports the end of is dropped).
 */
const MAX_OPEN = 1000;

/**
 * Follows the statements knex's runner runs for `knex` (transactions included: knex passes their events on), one
 * span each. Returns the function that stops following them.
 */
export function attachStatementTracing(knex: Knex, system: DatabaseSystem): () => void {
  const open = new Map<string, Span>();
  const started = (event: QueryEvent) => {
    // The direct paths make their own spans; a statement knex sends without an id (`BEGIN;`) reports no end.
    if (event.__knexUid === 'statement-runner' || !event.__knexQueryUid || typeof event.sql !== 'string') return;
    const span = createStatementSpan(system, event.sql);
    if (!span) return;
    if (open.size >= MAX_OPEN) open.clear();
    open.set(event.__knexQueryUid, span);
  };
  const ended = (error: unknown, event: QueryEvent | undefined) => {
    const uid = event?.__knexQueryUid;
    const span = uid === undefined ? undefined : open.get(uid);
    if (!span) return;
    open.delete(uid!);
    completeStatementSpan(span, error);
  };
  const answered = (_response: unknown, event: QueryEvent) => ended(undefined, event);
  const failed = (error: unknown, event: QueryEvent) => ended(error ?? new Error('The statement failed.'), event);
  const client = knex.client as Knex.Client;
  client.on('query', started);
  client.on('query-response', answered);
  client.on('query-error', failed);
  return () => {
    client.off('query', started);
    client.off('query-response', answered);
    client.off('query-error', failed);
    open.clear();
  };
}
