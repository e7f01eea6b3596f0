/** A GraphQL subscription for the tests, through a `graphql-ws` client: its results in order, and a wait for them. */
import type { Client } from 'graphql-ws';

export interface GraphQLSubscription<T> {
  /** Every result so far, in order. */
  readonly received: T[];
  /** Resolves once `count` results arrived in all; rejects on the subscription's error, or after 5 s. */
  next(count: number): Promise<T[]>;
  /** The subscription's error, if it failed. */
  failure(): unknown;
  stop(): void;
}

export function subscribeGraphQL<T>(
  client: Client,
  query: string,
  variables: Record<string, unknown>,
): GraphQLSubscription<T> {
  const received: T[] = [];
  const wakers = new Set<() => void>();
  let failure: unknown;
  const wakeAll = () => {
    for (const wake of wakers) wake();
  };
  const stop = client.subscribe(
    { query, variables },
    {
      next: (result) => {
        received.push(result as T);
        wakeAll();
      },
      error: (error) => {
        failure = error;
        wakeAll();
      },
      complete: () => {},
    },
  );
  const next = (count: number) =>
    new Promise<T[]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Waited for ${count} results: ${JSON.stringify(received)}`)),
        5000,
      );
      const check = () => {
        if (failure !== undefined) reject(failure);
        else if (received.length >= count) resolve(received);
        else return;
        clearTimeout(timer);
        wakers.delete(check);
      };
      wakers.add(check);
      check();
    });
  return { received, next, failure: () => failure, stop };
}
