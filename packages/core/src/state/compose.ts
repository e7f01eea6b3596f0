/**
 * Providers and processors declared over one another: an operation's over its resource's, a resource's over the
 * built-in one. Each is handed `next`, which calls the one under it, at most once (a second call is a bug in the
 * caller: it would read or write twice, so it throws instead, and the write's transaction rolls back).
 */
import type {
  CollectionPage,
  Entity,
  ProcessContext,
  StateContext,
  StateLogger,
  StateProcessor,
  StateProvider,
} from '../metadata/types.js';

/** Providers from the outermost (the operation's) to the innermost (the built-in one). */
export type ProviderChain = readonly StateProvider[];
/** Processors from the outermost (the operation's) to the innermost (the built-in one). */
export type ProcessorChain = readonly StateProcessor[];

/** A `next` that may be called once; `what` names the component for the error. */
function once<A extends unknown[], R>(what: string, call: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  let called = false;
  return (...args: A) => {
    if (called)
      return Promise.reject(new Error(`${what} called next() twice: it may hand over to the one under it once.`));
    called = true;
    return call(...args);
  };
}

/** The `next` of the last component of a chain (the built-in one): there is none under it. */
const NOTHING_UNDER = (): Promise<never> =>
  Promise.reject(new Error('The built-in provider and processor have nothing under them to call with next().'));

export function provide(
  chain: ProviderChain,
  context: StateContext,
  index = 0,
): Promise<Entity | CollectionPage | null> {
  const provider = chain[index]!;
  // The built-in provider alone (most operations): no `next` to make.
  if (index === chain.length - 1) return provider.provide(context, NOTHING_UNDER);
  const next = once(`The state provider of ${context.operation.name}`, (given?: StateContext) =>
    provide(chain, given ?? context, index + 1),
  );
  return provider.provide(context, next);
}

export function process(
  chain: ProcessorChain,
  data: Entity,
  context: ProcessContext,
  index = 0,
): Promise<Entity | void> {
  const processor = chain[index]!;
  if (index === chain.length - 1) return processor.process(data, context, NOTHING_UNDER);
  const next = once(
    `The state processor of ${context.operation.name}`,
    (given?: Entity, givenContext?: ProcessContext) =>
      process(chain, given ?? data, givenContext ?? context, index + 1),
  );
  return processor.process(data, context, next);
}

/** A logger that drops everything: for state contexts made without a request (embedding reads, hand-made requests). */
export const SILENT_LOGGER: StateLogger = Object.freeze({ error() {}, warn() {}, info() {}, debug() {} });

/** Stands for the built-in provider in declarations; the plugin puts its own in its place. */
export const knexProvider: StateProvider = Object.freeze({
  provide: () =>
    Promise.reject(new Error('knexProvider stands for the built-in provider in declarations; the plugin replaces it.')),
});

/** Stands for the built-in processor in declarations; the plugin puts its own in its place. */
export const knexProcessor: StateProcessor = Object.freeze({
  process: () =>
    Promise.reject(
      new Error('knexProcessor stands for the built-in processor in declarations; the plugin replaces it.'),
    ),
});

/** Whether a resource reads through a provider of its own (not the built-in one). */
export const readsOnItsOwn = (resource: { readonly provider?: StateProvider | undefined }): boolean =>
  resource.provider !== undefined && resource.provider !== knexProvider;

/** Whether a resource writes through a processor of its own. */
export const writesOnItsOwn = (resource: { readonly processor?: StateProcessor | undefined }): boolean =>
  resource.processor !== undefined && resource.processor !== knexProcessor;

/**
 * The chain of an operation: its own component, its resource's if another, then the built-in one. A declared
 * `knexProvider` / `knexProcessor` is the built-in one: the chain ends there.
 */
export function buildChain<C>(own: C | undefined, resources: C | undefined, builtin: C, marker: C): readonly C[] {
  const chain: C[] = [];
  for (const component of [own, resources]) {
    if (component === undefined || chain.includes(component)) continue;
    if (component === marker) break;
    chain.push(component);
  }
  chain.push(builtin);
  return chain;
}
