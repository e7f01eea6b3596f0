/**
 * The messages of one write on the update bus (a JSON list), read from their text and checked: a bus open to other
 * writers (anyone who may `PUBLISH` on the Redis channel) may carry something else, which must not reach the hub
 * half-formed — an id or event type with a line break would end the event early in every subscriber's stream.
 */
import type { BusMessage } from './update-bus.js';

const isText = (value: unknown): value is string => typeof value === 'string';
/** Fit for one SSE field line: no line break. */
const isLine = (value: unknown): value is string => isText(value) && !/[\r\n]/.test(value);

/** The reason `value` is not a message of the bus, or undefined when it is one. */
function findFault(value: unknown): string | undefined {
  const { update, item, rendering } = (value ?? {}) as {
    update?: Record<string, unknown>;
    item?: Record<string, unknown>;
    rendering?: Record<string, unknown>;
  };
  if (typeof update !== 'object' || update === null) return 'no "update" object';
  if (item !== undefined && (typeof item !== 'object' || item === null)) return '"item" is no object';
  if (rendering !== undefined && (typeof rendering !== 'object' || rendering === null))
    return '"rendering" is no object';
  const { topics, data, id, type, retry } = update;
  if (!Array.isArray(topics) || topics.length === 0 || !topics.every(isText))
    return '"update.topics" is no list of topics';
  // Without data, an update is rendered by each instance: it needs its item and the operation rendering it.
  if (!isText(data) && !(data === undefined && item && rendering)) return '"update.data" is no string';
  if (typeof update.private !== 'boolean') return '"update.private" is no boolean';
  if (!isLine(id) || id === '') return '"update.id" is no one-line string';
  if (type !== undefined && !isLine(type)) return '"update.type" is no one-line string';
  if (retry !== undefined && !(Number.isSafeInteger(retry) && (retry as number) >= 0))
    return '"update.retry" is no number of milliseconds';
  if (item) {
    if (!isText(item.resource)) return '"item.resource" is no string';
    if (typeof item.deleted !== 'boolean') return '"item.deleted" is no boolean';
    if (!('id' in item)) return 'no "item.id"';
  }
  if (rendering && !(isText(rendering.resource) && isText(rendering.operation)))
    return '"rendering" names no resource and operation';
  return undefined;
}

/** The messages `text` holds; throws, saying why, when it holds none (or one of them is none). */
export function readBusMessages(text: string): BusMessage[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('not JSON');
  }
  if (!Array.isArray(value)) throw new Error('no list of messages');
  value.forEach((message, index) => {
    const fault = findFault(message);
    if (fault) throw new Error(`message ${index}: ${fault}`);
  });
  return value as BusMessage[];
}
