/**
 * The OpenAPI document exactly as the app serves it at `/api/docs.json` and `/api/docs.yaml`: the plugin is started
 * with the config's options on a throw-away in-memory SQLite database and asked through `inject`, so the login route,
 * `documentation` (`transformOpenApi` included) and the YAML rendering are the server's own, not a second copy of them.
 * What opens connections or is not part of the document (GraphQL; the production plugin's pieces) is left off.
 */
import Fastify from 'fastify';
import { resourceApi } from '@resource-api/core';
import type { ResourceApiConfig } from '../config/config.js';
import { CliError } from '../errors.js';

export type OpenApiFormat = 'json' | 'yaml';

export async function servedOpenApi(config: ResourceApiConfig, format: OpenApiFormat): Promise<string> {
  const { migrations: _migrations, databaseSchema: _schema, databasePoolMax: _poolMax, ...options } = config;
  const app = Fastify({ logger: false });
  try {
    await app.register(resourceApi, {
      ...options,
      database: 'sqlite::memory:',
      schemaSync: true,
      graphql: false,
    });
    const response = await app.inject({ method: 'GET', url: `${config.prefix ?? '/api'}/docs.${format}` });
    if (response.statusCode !== 200)
      throw new CliError(
        `The app answered ${response.statusCode} for its OpenAPI document: ${response.body.slice(0, 200)}`,
      );
    return format === 'json' ? `${JSON.stringify(JSON.parse(response.body), null, 2)}\n` : response.body;
  } finally {
    await app.close();
  }
}
