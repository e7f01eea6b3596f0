/** A Mercure subscriber for the tests: a real `EventSource` (the `eventsource` package) on a listening hub. */
import { EventSource } from 'eventsource';

/** One event as the subscriber received it. */
export interface Received {
  readonly id: string;
  readonly type: string;
  readonly data: string;
}

export interface Subscriber {
  /** Every event so far, in order. */
  readonly received: readonly Received[];
  /** Resolves once `count` events arrived in all (rejects after `timeout` ms, naming what did arrive). */
  next(count: number, timeout?: number): Promise<readonly Received[]>;
  /** Forgets the events received so far: `received` and `next` count from here. */
  clear(): void;
  close(): void;
}

export interface SubscribeOptions {
  /** Sent as `Authorization: Bearer`. */
  readonly token?: string;
  /** Sent as the `Cookie` header. */
  readonly cookie?: string;
  /** Sent as `Last-Event-ID` on the first connection. */
  readonly lastEventId?: string;
  /** Event types listened to beside `message` (an update's `type`). */
  readonly types?: readonly string[];
}

/** Subscribes to `topics` on the hub at `hubUrl`; resolves once the stream is open. */
export async function subscribe(
  hubUrl: string,
  topics: readonly string[],
  options: SubscribeOptions = {},
): Promise<Subscriber> {
  const url = new URL(hubUrl);
  for (const topic of topics) url.searchParams.append('topic', topic);
  const extra: Record<string, string> = {};
  if (options.token) extra.authorization = `Bearer ${options.token}`;
  if (options.cookie) extra.cookie = options.cookie;
  let first = true;
  const source = new EventSource(url, {
    fetch: (input, init) => {
      const headers: Record<string, string> = { ...(init?.headers as Record<string, string>), ...extra };
      if (first && options.lastEventId) headers['last-event-id'] = options.lastEventId;
      first = false;
      return fetch(input, { ...init, headers });
    },
  });
  const received: Received[] = [];
  const waiting = new Set<() => void>();
  const onEvent = (event: MessageEvent) => {
    received.push({ id: event.lastEventId, type: event.type, data: String(event.data) });
    for (const wake of waiting) wake();
  };
  for (const type of ['message', ...(options.types ?? [])]) source.addEventListener(type, onEvent);
  await new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve();
    source.onerror = (error) => {
      source.close();
      reject(
        new Error(
          `The subscription failed: ${String((error as { message?: string }).message ?? error)} (${String((error as { code?: number }).code)})`,
        ),
      );
    };
  });
  source.onerror = null;
  return {
    received,
    next(count, timeout = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return false;
          waiting.delete(wake);
          clearTimeout(timer);
          resolve(received);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiting.delete(wake);
          reject(new Error(`Waited for ${count} events, got ${received.length}: ${JSON.stringify(received)}`));
        }, timeout);
        waiting.add(wake);
        check();
      });
    },
    clear: () => void received.splice(0),
    close: () => source.close(),
  };
}
