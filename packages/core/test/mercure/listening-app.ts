/**
 * An app listening on a port of 127.0.0.1 (an `EventSource` needs a real connection), on an isolated database, as
 * `buildTestApp` makes one. Its close ends every connection: a client may open one more while the app closes (undici
 * does, once the subscription it aborted ends), and Node would wait for that one to time out.
 */
import { createTestSchemaName, dropTestSchema } from '@resource-api/core/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { production, resourceApi } from '@resource-api/core';
import type { TestAppOptions } from '@resource-api/core/testing';

export interface ListeningApp {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
}

/** `logged`: where the app's log lines (warn and above), parsed, go. */
export async function listen(
  options: TestAppOptions & {
    readonly logged?: Record<string, unknown>[];
    /** PostgreSQL: the schema of another app, to share its tables (that app drops the schema). */
    readonly sharedSchema?: string;
    /** Called before the plugins are registered: hooks of the application's own. */
    readonly setUp?: (app: FastifyInstance) => void;
  },
): Promise<ListeningApp & { readonly schema: string | undefined }> {
  const { database, production: productionOptions, logged, sharedSchema, setUp, ...rest } = options;
  const app = Fastify({
    forceCloseConnections: true,
    ...(logged
      ? { logger: { level: 'warn', stream: { write: (line: string) => void logged.push(JSON.parse(line)) } } }
      : {}),
  });
  setUp?.(app);
  if (productionOptions) await app.register(production, productionOptions);
  const schema = sharedSchema ?? createTestSchemaName(database);
  await app.register(resourceApi, { ...rest, database: database.url, databaseSchema: schema });
  if (schema && !sharedSchema)
    app.addHook('preClose', async () => {
      await dropTestSchema(app.resourceApi.database.knex, schema);
    });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { app, schema, origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}
