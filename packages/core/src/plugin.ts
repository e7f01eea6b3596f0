/**
 * The composition root: a Fastify plugin that builds the metadata once, opens the database, syncs the schema,
 * wires the built-in (or declared) providers and processors, and registers the API's routes under the prefix.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Knex } from 'knex';
import { buildMetadata } from './build/build-metadata.js';
import type { ResourceInput } from './build/passes/collect-declarations.js';
import type {
  Entity,
  ItemId,
  MetadataRegistry,
  OperationMetadata,
  PaginationOptions,
  StateProcessor,
  StateProvider,
} from './metadata/types.js';
import { createFirstUseSchemas } from './graphql/first-use-schemas.js';
import type { GraphQLOptions } from './graphql/graphql-routes.js';
import { importIfInstalled, importOptionalPackage } from './optional-package.js';
import type { Runtime, RuntimeSecurity } from './pipeline/operation-context.js';
import { createAuthenticator } from './security/authenticator.js';
import { resolveSecurity, type SecurityOptions } from './security/config.js';
import { createTokenService, type TokenService } from './security/jwt.js';
import { createRefreshTokens, type RefreshTokens } from './security/refresh-tokens.js';
import { createSessions, type Sessions } from './security/sessions.js';
import { type ProvisionedUser, provisionUser, type ProvisionUserOptions } from './security/provision-user.js';
import type { DocumentationOptions } from './openapi/build-openapi.js';
import { registerLingeringClose } from './production/lingering-close.js';
import { registerTrustedHosts, type TrustedHost } from './production/trusted-hosts.js';
import { type ApiScopeSetup, findProductionScopeSetup } from './routing/api-scope.js';
import { warmUpAfterListen } from './production/warm-up.js';
import { loadTelemetry, registerTelemetry } from './telemetry/telemetry.js';
import type { TelemetryOptions } from './telemetry/telemetry-options.js';
import { registerApiRoutes } from './routing/api-routes.js';
import { registerFileRoutes } from './routing/file-routes.js';
import type { FileStorage } from './files/file-storage.js';
import { createLocalStorage } from './files/local-storage.js';
import { createDenormalizer } from './serializer/denormalize.js';
import { createNormalizer } from './serializer/normalize.js';
import { buildChain, knexProcessor, knexProvider, type ProcessorChain, type ProviderChain } from './state/compose.js';
import { type Database, openDatabase } from './state/database.js';
import { createItemReader } from './state/item-reader.js';
import { createKnexState } from './state/knex/knex-state.js';
import { syncSchema } from './state/schema-sync.js';
import { assertSchemaMigrated } from './state/migrations/assert-schema-migrated.js';
import { assertCount, DeclarationError } from './errors.js';
import type { Hub } from './mercure/hub.js';
import { createBuiltinHub } from './mercure/builtin-hub.js';
import { createExternalHub } from './mercure/external-hub.js';
import { toHubKey } from './mercure/hub-tokens.js';
import { assertMercureOptions, type MercureOptions, resolveHubLimits } from './mercure/mercure-options.js';
import { createWritePublisher } from './pipeline/publish-writes.js';
import { createRuntimeHttpCache } from './pipeline/runtime-http-cache.js';
import type { HttpCacheOptions } from './http-cache/http-cache-options.js';
import { createLocalBus, type UpdateBus } from './mercure/update-bus.js';
import { createPostgresUpdateBus } from './state/postgres-update-bus.js';
import { createCascadeLookup } from './state/knex/cascaded-items.js';
import { createRedisUpdateBus } from './mercure/redis-update-bus.js';
import { toBusChannel } from './mercure/bus-channel.js';
import { registerMercureLink } from './routing/mercure-link.js';
import { HUB_PATH, registerMercureRoutes } from './routing/mercure-routes.js';
import type { JWTPayload } from 'jose';

/** The options of the `resourceApi` Fastify plugin: `app.register(resourceApi, { resources, database, … })`. */
export interface ResourceApiOptions {
  /** The resources: `defineResource` objects and `@ApiResource` classes. */
  readonly resources: readonly ResourceInput[];
  /**
   * The database: `sqlite::memory:`, `sqlite:/path/file.db`, `postgres://user@host:5432/db`, or a knex instance.
   * Default `sqlite:var/data.db` (relative to the working directory).
   */
  readonly database?: string | Knex;
  /** PostgreSQL only: the schema to create the tables in (default: the connection's search path). */
  readonly databaseSchema?: string;
  /**
   * PostgreSQL only: the most connections this instance's pool opens (default 10). With N instances the database
   * sees up to N × this many: keep it under `max_connections` (docs/deployment.md). SQLite always uses one.
   */
  readonly databasePoolMax?: number;
  /**
   * Create missing tables, columns and indexes at start. Default: on, except with `NODE_ENV=production`. When off,
   * start never alters the schema and fails if tables or columns are missing: run the migrations (docs/deployment.md).
   */
  readonly schemaSync?: boolean;
  /** The route prefix (default `/api`). */
  readonly prefix?: string;
  /** Global pagination settings; each one defaults as in `DEFAULT_PAGINATION`; resources and operations override. */
  readonly pagination?: Partial<PaginationOptions>;
  /** The order filter's parameter name (default `order`). */
  readonly orderParameterName?: string;
  /** The exists filter's parameter name (default `exists`). */
  readonly existsParameterName?: string;
  /** Leave null values out of responses, as API Platform 3 does (default true). */
  readonly skipNullValues?: boolean;
  /** The largest request body accepted, in bytes (default 1 MiB); larger ones get 413. */
  readonly bodyLimit?: number;
  /**
   * Access control: JWT, the user resource, the role hierarchy, the login route. Without it every caller is anonymous.
   */
  readonly security?: SecurityOptions;
  /**
   * The GraphQL endpoint at `/graphql`, served by mercurius: on by default when the `mercurius` package is installed
   * (off, with a line in the log, when it is not); options turn it on and need mercurius; `false` for none.
   */
  readonly graphql?: GraphQLOptions | false;
  /** Titles of the API documents: `{ title, description, version }` (OpenAPI info, Hydra docs, Swagger UI). */
  readonly documentation?: DocumentationOptions;
  /**
   * The host names the API answers for (strings, compared without letter case, or RegExps matching the whole name), as
   * Symfony's `trusted_hosts`: a request for another host (its `Host`, or `X-Forwarded-Host` under Fastify's
   * `trustProxy`) gets 400 `API_ERR_ROUTING_UNTRUSTED_HOST`, so no absolute IRI ever names a forged host. Default: any
   * host. Only the API's routes check it: the application's own (the health routes among them) answer every host.
   * See docs/plugin-options.md.
   */
  readonly trustedHosts?: readonly TrustedHost[];
  /**
   * Prometheus metrics of the API's requests and database pool, off by default: `{ metrics: true }` serves them at
   * `/metrics` (prom-client, an optional peer dependency). Traces need no option: the API's spans record when the app
   * installed an OpenTelemetry SDK before registering the plugin. See docs/telemetry.md.
   */
  readonly telemetry?: TelemetryOptions;
  /** Uploads of `file` fields: where the files go, where they are served, the limits of multipart bodies. */
  readonly uploads?: UploadOptions;
  /**
   * Real-time updates (Mercure), for resources and operations declaring `mercure`: the built-in hub by default, at
   * `/.well-known/mercure`, or an external one (`{ url, jwtSecret }`); the hub's JWT secret and limits. `false` turns
   * publishing off. See docs/real-time.md.
   */
  readonly mercure?: MercureOptions | false;
  /**
   * HTTP caching: default cache headers of public reads (`defaults`), the cache-tag header (`tagHeader`, default
   * `Cache-Tags`; `xkey` for Varnish) and its size (`maxTagBytes`), and the in-process cache of whole responses
   * (`store: 'memory'`, bounded by `maxBytes`), purged by tag after every write. Off by default. See
   * docs/http-cache.md.
   */
  readonly httpCache?: HttpCacheOptions;
}

/** The `uploads` option: see docs/uploads.md. */
export interface UploadOptions {
  /** Where the files go (default: a folder, `createLocalStorage({ directory: 'var/uploads' })`). */
  readonly storage?: FileStorage;
  /** The path the stored files are served under, outside the prefix (default `/media`); `false` serves none. */
  readonly path?: string | false;
  /** The largest `multipart/form-data` body, in bytes (default 4 MiB); larger ones get 413 and leave no file. */
  readonly bodyLimit?: number;
  /** The most parts (text fields and files) of a multipart body (default 20); more get 413. */
  readonly maxParts?: number;
}

/** What the plugin exposes on the Fastify instance as `app.resourceApi`. */
export interface ResourceApiHandle {
  readonly metadata: MetadataRegistry;
  readonly database: Database;
  /** A token for a stored user (as `POST /api/auth` issues it): for tests, scripts and your own login flows. */
  issueToken(user: Entity): Promise<string>;
  /**
   * Revokes every token of the user with this id: access tokens issued until now are refused (401 `invalid_token`),
   * refresh tokens deleted. For writes of your own that change credentials without the built-in processor (a password
   * reset by SQL, a script), and to log a user out everywhere.
   */
  revokeTokens(userId: ItemId): Promise<void>;
  /**
   * Creates a user the app keeps itself (a first admin from the environment), or brings the one it created before up
   * to date: its password, the roles given added. An account with that identifier that the app did not create is
   * never promoted: `AccountNotProvisionedError` (logged at warn) unless it already holds the roles (left alone).
   */
  provisionUser(options: ProvisionUserOptions): Promise<ProvisionedUser>;
  /**
   * Verifies an access token's signature and expiry and gives its claims (whether it was revoked since, the API's own
   * authentication checks against the user); present when the security options are. For the application's own routes
   * and for the production plugin's per-user rate limit.
   */
  readonly verifyToken?: (token: string) => Promise<JWTPayload>;
}

/** The options that moved to the `production` plugin (docs/production.md, "Moving from the plugin's options"). */
const MOVED_TO_PRODUCTION = ['cors', 'securityHeaders', 'rateLimit', 'health', 'requestIdHeader', 'coalesceWrites'];

/** A start-up error for an option that moved: without it the option would be silently ignored. */
function assertNoProductionOptions(options: ResourceApiOptions): void {
  const moved = MOVED_TO_PRODUCTION.filter((name) => name in options);
  if (moved.length === 0) return;
  throw new DeclarationError(
    `resourceApi: ${moved.join(', ')} ${moved.length === 1 ? 'is an option' : 'are options'} of the production plugin now: ` +
      `register it before resourceApi, app.register(production, { ${moved.map((name) => `${name}: …`).join(', ')} }) (docs/production.md).`,
  );
}

declare module 'fastify' {
  interface FastifyInstance {
    resourceApi: ResourceApiHandle;
  }
}

/**
 * The GraphQL endpoint's module, loaded only when GraphQL may be on: it imports mercurius, an optional package. Not
 * installed: without options GraphQL is off (said once in the log, as API Platform turns GraphQL on when its library
 * is there); with options, the start fails with the package to install.
 */
async function loadGraphQLRoutes(
  app: FastifyInstance,
  option: GraphQLOptions | undefined,
): Promise<typeof import('./graphql/graphql-routes.js') | undefined> {
  const load = () => import('./graphql/graphql-routes.js');
  if (option !== undefined) return importOptionalPackage('mercurius', 'The graphql option (GraphQL at /graphql)', load);
  const routes = await importIfInstalled('mercurius', load);
  if (!routes)
    app.log.info('GraphQL is off: the "mercurius" package is not installed (npm install mercurius turns it on).');
  return routes;
}

async function resourceApiPlugin(app: FastifyInstance, options: ResourceApiOptions): Promise<void> {
  assertNoProductionOptions(options);
  const registry = buildMetadata({
    resources: options.resources,
    prefix: options.prefix,
    pagination: options.pagination,
    orderParameterName: options.orderParameterName,
    existsParameterName: options.existsParameterName,
  });
  const poolMax = options.databasePoolMax;
  assertCount('databasePoolMax', poolMax, 'connections');
  const loadedTelemetry = await loadTelemetry(options.telemetry);
  const database = await openDatabase({
    url: options.database ?? 'sqlite:var/data.db',
    schema: options.databaseSchema,
    poolMax,
    log: app.log,
  });
  app.addHook('onClose', () => database.close());
  const telemetry = registerTelemetry(app, loadedTelemetry, {
    knex: database.knex,
    system: database.dialect.name === 'postgres' ? 'postgresql' : database.dialect.name,
  });
  if (options.schemaSync ?? process.env.NODE_ENV !== 'production') await syncSchema(database, registry);
  else await assertSchemaMigrated(database, registry);

  // Resolved before the state: the state marks the user resource's roles as credentials (a change revokes tokens).
  const settings = options.security ? resolveSecurity(options.security, registry) : undefined;
  const state = createKnexState(
    database,
    registry,
    settings ? { userRoles: { resource: settings.resource, field: settings.roles } } : {},
  );
  const reader = createItemReader(registry, state, database);
  const providers = new Map<OperationMetadata, ProviderChain>();
  const processors = new Map<OperationMetadata, ProcessorChain>();
  for (const resource of registry.resources) {
    for (const operation of resource.operations) {
      providers.set(
        operation,
        buildChain<StateProvider>(operation.provider, resource.provider, state.provider, knexProvider),
      );
      processors.set(
        operation,
        buildChain<StateProcessor>(operation.processor, resource.processor, state.processor, knexProcessor),
      );
    }
  }

  let security: RuntimeSecurity | null = null;
  let tokens: TokenService | undefined;
  let sessions: Sessions | undefined;
  let refreshTokens: RefreshTokens | undefined;
  if (settings) {
    tokens = createTokenService(settings);
    security = { settings, authenticate: createAuthenticator(settings, tokens, reader) };
    refreshTokens = createRefreshTokens({
      database,
      transaction: state.transaction,
      ttlSeconds: settings.jwt.refreshTtl,
      userIdentifier: settings.resource.identifier,
    });
    sessions = createSessions({ security: settings, tokens, refreshTokens, reader, database });
  }

  const normalizer = createNormalizer(registry, {
    skipNullValues: options.skipNullValues ?? true,
    readMany: reader.readMany,
  });
  const mercure = openMercureHub(options.mercure, registry);
  const bus = await openUpdateBus(mercure, database, options.databaseSchema, app.log);
  // The publisher dispatches what the bus delivers (every instance's updates) to this hub, even when no resource of
  // this app publishes (other publishers may, through the built-in hub's publish endpoint).
  const publisher = mercure
    ? createWritePublisher({
        registry,
        normalizer,
        readMany: reader.readMany,
        hub: mercure.hub,
        bus,
        log: app.log,
        readInTransaction: (transaction, resource, ids) => state.readMany(resource, ids, [], transaction),
      })
    : null;
  const runtime: Runtime = {
    registry,
    cascades: createCascadeLookup(registry),
    database,
    normalizer,
    denormalizer: createDenormalizer(registry, reader),
    providers,
    processors,
    builtinProcessor: (operation) => processors.get(operation)!.length === 1,
    isUnique: reader.isUnique,
    execute: state.execute,
    toRow: state.toRow,
    // An SQLite file opened here: the write stage's transactions share their commits, as its single-statement writes
    // do; the reads before them go to the read-only connection meanwhile.
    transaction: state.transaction,
    readMany: reader.readMany,
    security,
    files: options.uploads?.storage ?? createLocalStorage({ directory: 'var/uploads' }),
    mercure: mercure?.publishes === true ? publisher : null,
    httpCache: await createRuntimeHttpCache(options.httpCache, {
      registry,
      database,
      schema: options.databaseSchema,
      log: app.log,
    }),
  };
  // The updates of writes answered before the close still leave; then the hub ends its subscriptions (open ones would
  // hold the close until their clients leave) and its pending sends.
  if (mercure)
    app.addHook('preClose', async () => {
      await publisher?.drain();
      await mercure.hub.close();
      await bus.close();
    });
  if (runtime.httpCache?.store) telemetry.addCacheMetrics(runtime.httpCache.store);
  // The other instances stop waiting for this one's acknowledgements; the channel closes before the database does.
  if (runtime.httpCache) {
    const { httpCache } = runtime;
    app.addHook('preClose', () => httpCache.close());
  }

  const graphqlSchemas = createFirstUseSchemas();
  warmUpAfterListen(app, () => [...runtime.denormalizer.pendingValidators(), ...graphqlSchemas.pending()]);

  app.decorate('resourceApi', {
    metadata: registry,
    database,
    issueToken: async (user) => {
      if (!security || !tokens) throw new Error('issueToken needs the security options.');
      return tokens.sign({ sub: String(user.id), [security.settings.identifier]: user[security.settings.identifier] });
    },
    revokeTokens: async (userId) => {
      if (!sessions) throw new Error('revokeTokens needs the security options.');
      await sessions.revokeUser(userId);
    },
    provisionUser: (provision) => {
      if (!settings || !refreshTokens) throw new Error('provisionUser needs the security options.');
      return provisionUser(
        { registry, database, security: settings, log: app.log, revokeRefreshTokens: refreshTokens.revokeUser },
        provision,
      );
    },
    ...(tokens ? { verifyToken: tokens.verify } : {}),
  });
  const setUpScope = createScopeSetup(app, options.trustedHosts, registry.prefix, mercure?.link);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const graphqlOption = options.graphql;
  const graphqlRoutes = graphqlOption === false ? undefined : await loadGraphQLRoutes(app, graphqlOption);
  if (graphqlRoutes)
    await app.register(graphqlRoutes.registerGraphQLRoutes, {
      runtime,
      graphql: graphqlOption || {},
      bodyLimit,
      schemas: graphqlSchemas,
      setUpScope,
      telemetry,
    });
  const uploads = options.uploads ?? {};
  assertCount('uploads.bodyLimit', uploads.bodyLimit, 'bytes');
  assertCount('uploads.maxParts', uploads.maxParts, 'parts');
  await app.register(registerApiRoutes, {
    prefix: registry.prefix,
    runtime,
    bodyLimit,
    sessions: settings?.jwt.secret ? sessions : undefined,
    documentation: options.documentation,
    setUpScope,
    telemetry,
    uploads: {
      storage: runtime.files,
      limits: { bodyLimit: uploads.bodyLimit ?? 4 * 1024 * 1024, maxParts: uploads.maxParts ?? 20 },
    },
  });
  if (mercure?.builtin)
    await app.register(registerMercureRoutes, {
      prefix: HUB_PATH,
      hub: mercure.builtin,
      relay: publisher!.relay,
      jwtKey: mercure.settings.jwtSecret ? toHubKey(mercure.settings.jwtSecret) : null,
      anonymous: mercure.settings.anonymous ?? true,
      bodyLimit,
      apiPrefix: registry.prefix,
      setUpScope,
    });
  const filesPath = uploads.path ?? '/media';
  if (filesPath !== false && hasFileFields(registry))
    await app.register(registerFileRoutes, {
      prefix: filesPath,
      storage: runtime.files,
      path: filesPath,
      apiPrefix: registry.prefix,
      setUpScope,
    });
}

/** The Mercure hub of the app, when it has one: where updates go, and what the `Link` header announces. */
interface MercureSetup {
  readonly hub: Hub;
  /** The built-in hub, to serve; null when updates go to an external one. */
  readonly builtin: ReturnType<typeof createBuiltinHub> | null;
  /** The hub's public URL for the `Link` header; null: the built-in hub on each request's origin. */
  readonly link: string | null;
  /** Some resource or operation publishes its writes. */
  readonly publishes: boolean;
  readonly settings: MercureOptions;
}

/**
 * The hub, when some resource or operation declares `mercure` or the `mercure` option is given (an app may be the hub
 * of others without resources of its own publishing); none with `mercure: false`, or when nothing asks for one.
 */
function openMercureHub(option: MercureOptions | false | undefined, registry: MetadataRegistry): MercureSetup | null {
  if (option === false) return null;
  if (option !== undefined) assertMercureOptions(option);
  const publishes = registry.resources.some(
    (resource) => resource.mercure !== null || resource.operations.some((operation) => operation.mercure !== null),
  );
  if (!publishes && option === undefined) return null;
  const settings = option ?? {};
  if (settings.url !== undefined) {
    const hub = createExternalHub({ url: settings.url, jwtSecret: settings.jwtSecret! });
    return { hub, builtin: null, link: settings.publicUrl ?? settings.url, publishes, settings };
  }
  const builtin = createBuiltinHub(resolveHubLimits(settings, 'resourceApi: mercure'));
  return { hub: builtin, builtin, link: settings.publicUrl ?? null, publishes, settings };
}

/**
 * How the built-in hubs of the app's instances hand each other their updates: through Redis when `mercure.redis` is
 * given (on any database), else through PostgreSQL, else not at all (SQLite, fan-out off, or an external hub, which
 * every instance sends to).
 */
async function openUpdateBus(
  mercure: MercureSetup | null,
  database: Database,
  schema: string | undefined,
  log: FastifyInstance['log'],
): Promise<UpdateBus> {
  if (!mercure?.builtin || mercure.settings.fanOut === false) return createLocalBus();
  const { redis, redisChannel } = mercure.settings;
  if (redis !== undefined) return createRedisUpdateBus({ redis, channel: redisChannel ?? toBusChannel(schema), log });
  if (database.dialect.name === 'postgres') return createPostgresUpdateBus({ database, schema, log });
  return createLocalBus();
}

/** Whether some resource has a file field (then its files are served). */
const hasFileFields = (registry: MetadataRegistry): boolean =>
  registry.resources.some((resource) =>
    resource.fields.some((field) => field.kind === 'scalar' && field.type === 'file'),
  );

/**
 * The hooks of the API's Fastify contexts (the REST routes, the GraphQL endpoint), in the order they run: the trusted
 * hosts first (a request for another host is refused before anything reads its host), the lingering close of refused
 * bodies, then the production plugin's pieces when it is registered (`routing/api-scope.ts`), then the Mercure `Link`.
 */
function createScopeSetup(
  app: FastifyInstance,
  trustedHosts: readonly TrustedHost[] | undefined,
  prefix: string,
  mercureLink: string | null | undefined,
): ApiScopeSetup {
  const production = findProductionScopeSetup(app);
  return (scope, info) => {
    if (trustedHosts) registerTrustedHosts(scope, trustedHosts, prefix);
    registerLingeringClose(scope);
    production?.(scope, info);
    // Mercure discovery on every response of the API (undefined: no hub).
    if (mercureLink !== undefined) registerMercureLink(scope, mercureLink);
  };
}

/**
 * The Fastify plugin.
 *
 * @example
 * const app = Fastify();
 * await app.register(resourceApi, { resources: [Book, Author], database: 'sqlite:var/bookshop.db' });
 * await app.listen({ port: 8000 });
 */
export const resourceApi: (app: FastifyInstance, options: ResourceApiOptions) => Promise<void> = fp(resourceApiPlugin, {
  name: '@resource-api/core',
  fastify: '5.x',
});
