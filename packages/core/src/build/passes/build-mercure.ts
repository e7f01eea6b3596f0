/**
 * The `mercure` option of resources and operations: checked, and resolved into `MercureMetadata` (an operation's own
 * over its resource's). Only write operations publish: a read's `mercure` resolves to null. Nothing is published
 * unless a resource or an operation asks for it.
 */
import type { MercureDeclaration } from '../../declare/types.js';
import { DeclarationError } from '../../errors.js';
import type { OperationKind } from '../../metadata/declared.js';
import type { MercureMetadata } from '../../metadata/types.js';
import { formatDidYouMean } from '../../metadata/did-you-mean.js';

const KEYS = ['private', 'topics', 'type', 'retry'];

/** `mercure` as declared at one level: true, false, undefined (not said), or the options. */
export type MercureOption = boolean | MercureDeclaration | undefined;

/** One level's `mercure`, checked; undefined when the level does not say. */
function resolveLevel(option: MercureOption, where: string): MercureMetadata | null | undefined {
  if (option === undefined) return undefined;
  if (option === false) return null;
  if (option === true) return { private: false, topics: [], type: undefined, retry: undefined };
  if (typeof option !== 'object' || option === null || Array.isArray(option))
    throw new DeclarationError(`${where}: "mercure" must be true, false or { private, topics, type, retry }.`);
  for (const key of Object.keys(option))
    if (!KEYS.includes(key))
      throw new DeclarationError(`${where}: "mercure" has an unknown option "${key}".${formatDidYouMean(key, KEYS)}`);
  const { private: isPrivate = false, topics = [], type, retry } = option;
  if (typeof isPrivate !== 'boolean') throw new DeclarationError(`${where}: "mercure.private" must be true or false.`);
  if (
    typeof topics !== 'function' &&
    (!Array.isArray(topics) || topics.some((topic) => typeof topic !== 'string' || topic === ''))
  )
    throw new DeclarationError(`${where}: "mercure.topics" must be a list of IRIs or a function of the item.`);
  // The SSE fields are written on lines of their own: a line break would end the field.
  if (type !== undefined && (typeof type !== 'string' || type === '' || /[\r\n]/.test(type)))
    throw new DeclarationError(`${where}: "mercure.type" must be an event type on one line.`);
  if (retry !== undefined && (!Number.isSafeInteger(retry) || retry < 0))
    throw new DeclarationError(`${where}: "mercure.retry" must be a whole number of milliseconds.`);
  return {
    private: isPrivate,
    topics: typeof topics === 'function' ? (topics as MercureMetadata['topics']) : [...topics],
    type,
    retry,
  };
}

/** The resource's own `mercure`, for the items of it written through a relation. */
export function buildResourceMercure(option: MercureOption, where: string): MercureMetadata | null {
  return resolveLevel(option, where) ?? null;
}

/** An operation's `mercure`: its own, else its resource's; null for reads (they write nothing to publish). */
export function buildOperationMercure(
  kind: OperationKind,
  levels: { readonly resource: MercureOption; readonly operation: MercureOption },
  where: string,
): MercureMetadata | null {
  const own = resolveLevel(levels.operation, where);
  if (kind === 'get' || kind === 'getCollection') {
    if (own) throw new DeclarationError(`${where}: a ${kind} writes nothing, so it publishes nothing ("mercure").`);
    return null;
  }
  return own !== undefined ? own : buildResourceMercure(levels.resource, where);
}
