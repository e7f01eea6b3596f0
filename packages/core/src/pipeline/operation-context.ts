/**
 * The typed operation context: what the transport hands to the pipeline (an `OperationRequest`), what is built once
 * at start-up and shared (`Runtime`), and what each stage adds (`OperationContext`).
 */
import type { CascadeLookup } from '../state/knex/cascaded-items.js';
import type { Knex } from 'knex';
import type { ApiError, ConstraintViolation } from '../errors.js';
import type {
  AppliedFilter,
  CollectionPage,
  Entity,
  ItemId,
  MetadataRegistry,
  OperationMetadata,
  PageRequest,
  ResourceMetadata,
  StateLogger,
  ToOneFieldMetadata,
} from '../metadata/types.js';
import type { FileStorage } from '../files/file-storage.js';
import type { Denormalizer } from '../serializer/denormalize.js';
import type { NormalizationPlan, Normalizer, ReadMany } from '../serializer/normalize.js';
import type { CursorWindow } from '../query/cursor-window.js';
import type { OutputFormat } from '../serializer/vocabulary.js';
import type { ProcessorChain, ProviderChain } from '../state/compose.js';
import type { Database } from '../state/database.js';
import type { Caller } from '../security/access.js';
import type { Authenticator } from '../security/authenticator.js';
import type { ResolvedSecurity } from '../security/config.js';
import type { UniquenessCheck } from '../validation/validate.js';
import type { WritePublisher } from './publish-writes.js';
import type { HttpCacheSettings } from '../http-cache/http-cache-options.js';
import type { MemoryStore } from '../http-cache/memory-store.js';
import type { PurgeClock } from '../http-cache/purge-clock.js';
import type { CachePurger } from './purge-written.js';
import type { ReadsInFlight } from '../http-cache/reads-in-flight.js';

/** A request as the pipeline sees it, whatever the transport. */
export interface OperationRequest {
  /** The raw URI variables: `{id}` of items, and the parents' ids of subresources (`{id}`, `{books}`, …). */
  readonly uriVariables: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw query string without `?`, to rebuild page IRIs in the client's parameter order. */
  readonly rawQuery: string;
  /** The path without query string. */
  readonly path: string;
  /** The parsed body; undefined when none was sent. */
  readonly body: unknown;
  readonly contentType: string | undefined;
  readonly accept: string | undefined;
  /** `http://host:port`, for absolute IRIs. */
  readonly origin: string;
  /** The Authorization header, if any. */
  readonly authorization: string | undefined;
  /** The HTTP method (or `POST` for GraphQL), for access rules that look at the request. */
  readonly method: string;
  /** A page chosen by the transport (GraphQL's first/after), instead of the query's page parameters. */
  readonly page?: PageRequest | null;
  /**
   * A Relay window chosen by the transport (GraphQL's first/after/last/before), read by the parameters stage into the
   * page, with the collection's total when the window counts from the end.
   */
  readonly window?: { readonly window: CursorWindow; readonly total: number | null };
  /** A caller already authenticated by the transport (GraphQL authenticates once per request). */
  readonly caller?: Caller;
  /**
   * Collection reads whose items the transport reads relations of itself (GraphQL's selection): the to-one fields it
   * will ask for, which the read may join to the page (`StateContext.embed`). HTTP takes them from its response plan.
   */
  readonly embed?: readonly ToOneFieldMetadata[];
  /** The `If-Match` header (HTTP only): the ETags a PUT, PATCH or DELETE expects the item to still have. */
  readonly ifMatch?: string;
  /** The `If-None-Match` header (HTTP only), for writes; on GET the routes answer it with 304. */
  readonly ifNoneMatch?: string;
  /**
   * The HTTP request itself (GraphQL: that of the query), read only when a provider, processor or hook asks for its
   * headers, address, id or logger: a Fastify request is one as it is.
   */
  readonly client?: RequestClient;
}

/** What providers, processors and hooks may learn of the HTTP request (`StateContext.request`, `logger`). */
export interface RequestClient {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The client's address. */
  readonly ip: string;
  /** The request id. */
  readonly id: string;
  /** The request's logger (its lines carry the request id). */
  readonly log: StateLogger;
}

/** What the stages return to the transport. */
export interface OperationResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Undefined for an empty body (204). */
  readonly body: unknown;
  /** The body's JSON, when the stage that rendered it made it faster than `JSON.stringify(body)` would. */
  readonly json?: string;
}

/** Built once when the plugin starts; shared by every request. */
export interface Runtime {
  readonly registry: MetadataRegistry;
  readonly database: Database;
  readonly normalizer: Normalizer;
  readonly denormalizer: Denormalizer;
  /**
   * The providers and processors of each operation, outermost first: the operation's own, its resource's, the
   * built-in one (each reaches the next with `next`).
   */
  readonly providers: ReadonlyMap<OperationMetadata, ProviderChain>;
  readonly processors: ReadonlyMap<OperationMetadata, ProcessorChain>;
  /**
   * Whether the processors of an operation are the built-in one alone (then a write needs no transaction of its own).
   */
  readonly builtinProcessor: (operation: OperationMetadata) => boolean;
  /**
   * Runs the write stage's transaction (processors and hooks of the user's): knex's, or on an SQLite file one that
   * shares its commit with the others waiting for the connection (`group-transactions.ts`).
   */
  readonly transaction: <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>;
  /**
   * One write statement (`StateContext.execute`): outside a transaction, with the built-in writes' group commit on
   * SQLite; in one of `transaction`'s (`db`), there.
   */
  readonly execute: <T = Record<string, unknown>>(query: Knex.QueryBuilder, db?: Knex) => Promise<T[]>;
  /** `StateContext.toRow`: a resource's values as its table's row on this database. */
  readonly toRow: (resource: string, values: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /** Unique constraints: whether no other stored item has these values. */
  readonly isUnique: UniquenessCheck;
  /** Items by id (batched reads for embedding and GraphQL relations). */
  readonly readMany: ReadMany;
  /** Access control, when the plugin has `security` options; null: every caller is anonymous and rules see no user. */
  readonly security: RuntimeSecurity | null;
  /** Where the uploads of file fields go (the `uploads.storage` option, a local folder by default). */
  readonly files: FileStorage;
  /** The items a DELETE writes through the database's cascades (real-time updates and the cache purge need them). */
  readonly cascades: CascadeLookup;
  /** Publishes committed writes to the Mercure hub, when some resource or operation declares `mercure`; else null. */
  readonly mercure: WritePublisher | null;
  /** HTTP caching, when the plugin has `httpCache` or an operation declares `cacheHeaders`; else null. */
  readonly httpCache: RuntimeHttpCache | null;
}

export interface RuntimeSecurity {
  readonly settings: ResolvedSecurity;
  readonly authenticate: Authenticator;
}

/**
 * What is fixed for the request: given before the first stage (runtime, operation, request), or set by the first two
 * (negotiate: the format; authenticate: the caller) and never changed after.
 */
export interface RequestScope {
  readonly runtime: Runtime;
  readonly resource: ResourceMetadata;
  readonly operation: OperationMetadata;
  readonly request: OperationRequest;
  /** Whether the respond stage serializes the result (HTTP); GraphQL resolves its fields itself. */
  readonly serializes: boolean;
  /** negotiate: the output format. */
  format: OutputFormat;
  /** authenticate: who is calling. */
  caller: Caller;
  /** The response's normalization plan (read groups of this request), once a stage needed it (`response-plan.ts`). */
  plan: NormalizationPlan | null;
}

/** What each stage produces, by stage, in the order they run. */
export interface StageResults {
  parameters: {
    /** The item id, when the path has `{id}`. */
    id: ItemId | undefined;
    /** Subresources: the parents' ids, outermost first. */
    parentIds: ItemId[];
    page: PageRequest | null;
    filters: AppliedFilter[];
  };
  authorize: {
    /**
     * The answer to a missing item when it is not a 404 — the 401 of an anonymous caller whose rule waits for the
     * item (an anonymous caller cannot tell whether a protected item exists). Null: a 404.
     */
    missingItem: ApiError | null;
  };
  read: {
    /** The item as stored (item operations; a custom operation's provider result). */
    previous: Entity | null;
    /** The page (collection operations). */
    collection: CollectionPage | null;
    /** The item read, on its way to become the new state. */
    data: Entity | null;
  };
  preconditions: {
    /**
     * The stored item an `If-Match` was checked against; the write must find it unchanged (lost-update protection,
     * checked again atomically with the write). Null: the request set no such condition.
     */
    expected: Entity | null;
  };
  deserialize: {
    /** The new state (or an input shape's values). */
    data: Entity | null;
    /** Violations found while reading the body (types, IRIs), reported by validate. */
    violations: ConstraintViolation[];
  };
  write: {
    /** The stored item (null after a DELETE). */
    data: Entity | null;
  };
}

export type StageName = keyof StageResults;

/** The stages that run before `S`. */
type Earlier<S extends StageName> = {
  parameters: never;
  authorize: 'parameters';
  read: 'parameters' | 'authorize';
  preconditions: 'parameters' | 'authorize' | 'read';
  deserialize: 'parameters' | 'authorize' | 'read' | 'preconditions';
  write: 'parameters' | 'authorize' | 'read' | 'preconditions' | 'deserialize';
}[S];

type Intersect<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/**
 * The context as stage `S` sees it: the request's scope, what the earlier stages produced (read-only), and what `S`
 * itself produces. A stage cannot read a result that is not there yet: `StageContext<'read'>` has no `violations`.
 */
export type StageContext<S extends StageName> = RequestScope &
  Intersect<Readonly<StageResults[Earlier<S>]>> &
  StageResults[S];

/** The context once stage `S` ran: the scope and every result up to `S`'s, read-only. */
export type After<S extends StageName> = RequestScope & Intersect<Readonly<StageResults[Earlier<S> | S]>>;

/** The whole context, once every stage ran: what the transport reads (GraphQL's resolvers, the respond stage). */
export type OperationContext = RequestScope & Intersect<StageResults[StageName]>;

/** HTTP caching at run time: its settings, the purge after each write, the in-process cache when it is on. */
export interface RuntimeHttpCache {
  readonly settings: HttpCacheSettings;
  /** Purges after each commit; null when nothing keeps responses (no `store`, no `purgers`). */
  readonly purger: CachePurger | null;
  readonly store: MemoryStore | null;
  /** Counts the purges: a read across which it moved is kept by no cache (`http-cache/purge-clock.ts`). */
  readonly clock: PurgeClock;
  /** The cacheable reads under way, counted when shared caches are purged (their second purge waits for them). */
  readonly reads: ReadsInFlight | null;
  /** Says goodbye to the other instances and closes their channel. */
  close(): Promise<void>;
}
