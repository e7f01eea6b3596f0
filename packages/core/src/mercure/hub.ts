/**
 * What the framework publishes, and where to: a Mercure update (its topics, data and SSE fields) and the `Hub` that
 * takes it — the built-in hub (`builtin-hub.ts`) or an external one (`external-hub.ts`).
 */

/** One update, as the Mercure protocol defines it. */
export interface MercureUpdate {
  /** The topics: the first is the canonical one (the item's IRI), the others alternates; one at least. */
  readonly topics: readonly string[];
  /** The new version of the topic (the item's JSON-LD). */
  readonly data: string;
  /** Dispatched only to subscribers whose JWT allows one of the topics. */
  readonly private: boolean;
  /** The SSE `id`; the hub makes one when it is absent. */
  readonly id?: string;
  /** The SSE `event` field. */
  readonly type?: string;
  /** The SSE `retry` field, in milliseconds. */
  readonly retry?: number;
}

/** Where updates go. `publish` is called in commit order; a hub keeps that order. */
export interface Hub {
  /** Dispatches (built-in) or sends (external) one update; resolves with its id once the hub has it. */
  publish(update: MercureUpdate): Promise<string>;
  /** Ends what the hub holds open (subscriptions, pending sends). */
  close(): Promise<void>;
}
