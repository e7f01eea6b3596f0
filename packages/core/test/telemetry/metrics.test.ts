/**
 * Metrics: off by default; `telemetry: { metrics: true }` serves Prometheus's text format at `/metrics` with the
 * requests, their durations and errors by route and operation, the database pool's gauges and the process's default
 * metrics; the path and the registry are the app's to choose; the application's own routes are not counted; a wrong
 * option stops the start with a message naming it. On SQLite and PostgreSQL.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { describe, expect, inject, it } from 'vitest';
import { defineResource, resourceApi, type TelemetryOptions } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { DeclarationError } from '../../src/errors.js';
import { loadPromClient } from '../../src/telemetry/metrics.js';
import { call } from '../helpers.js';
import { listen } from '../mercure/listening-app.js';

const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' } } });
const databases = testDatabases(inject('postgresUrl'), inject('mariadbUrl'));

/** The value of the sample of `name` whose labels include `labels`, from Prometheus's text format. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe.each(databases)('on $name', (database) => {
  it('serves no metrics unless asked: /metrics is a 404', async () => {
    const app = await buildTestApp({ database, resources: [Book] });
    try {
      expect((await call(app, { method: 'GET', url: '/metrics' })).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('counts requests, durations and errors by route and operation, with the pool gauges and process metrics', async () => {
    const app = await buildTestApp({ database, resources: [Book], telemetry: { metrics: true } });
    try {
      expect((await call(app, { method: 'POST', url: '/api/books', payload: { title: 'Dune' } })).status).toBe(201);
      for (let i = 0; i < 2; i++) expect((await call(app, { method: 'GET', url: '/api/books' })).status).toBe(200);
      expect((await call(app, { method: 'GET', url: '/api/books/999' })).status).toBe(404);
      expect((await call(app, { method: 'POST', url: '/api/books', payload: { title: 7 } })).status).toBe(400);
      const query = { query: '{ books { totalCount } }' };
      expect((await call(app, { method: 'POST', url: '/graphql', payload: query })).status).toBe(200);

      const response = await call(app, { method: 'GET', url: '/metrics' });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = response.text;
      const requests = (labels: Record<string, string>) => sample(text, 'resource_api_http_requests_total', labels);
      const list = { method: 'GET', route: '/api/books', operation: 'api_books_get_collection', status_code: '200' };
      expect(requests(list)).toBe(2);
      expect(requests({ method: 'POST', route: '/api/books', operation: 'api_books_post', status_code: '201' })).toBe(
        1,
      );
      expect(requests({ method: 'POST', route: '/api/books', status_code: '400' })).toBe(1);
      const missing = { method: 'GET', route: '/api/books/{id}', operation: 'api_books_id_get', status_code: '404' };
      expect(requests(missing)).toBe(1);
      expect(requests({ method: 'POST', route: '/graphql', operation: '', status_code: '200' })).toBe(1);
      // The scrape itself is not an API request.
      expect(text).not.toMatch(/route="\/metrics"/);

      expect(sample(text, 'resource_api_http_request_duration_seconds_count', list)).toBe(2);
      expect(sample(text, 'resource_api_http_request_duration_seconds_bucket', { ...list, le: '+Inf' })).toBe(2);
      expect(sample(text, 'resource_api_http_request_duration_seconds_sum', list)).toBeGreaterThan(0);

      const errors = (labels: Record<string, string>) => sample(text, 'resource_api_http_request_errors_total', labels);
      expect(errors({ route: '/api/books/{id}', status_class: '4xx' })).toBe(1);
      expect(errors({ method: 'POST', route: '/api/books', status_class: '4xx' })).toBe(1);
      expect(errors({ route: '/api/books', method: 'GET' })).toBeUndefined();

      // The pool at rest: nothing used, nothing waiting; SQLite's pool is its one connection.
      expect(sample(text, 'resource_api_db_client_connections', { state: 'used' })).toBe(0);
      expect(sample(text, 'resource_api_db_client_connections', { state: 'idle' })).toBeGreaterThanOrEqual(
        database.name === 'sqlite' ? 1 : 0,
      );
      expect(sample(text, 'resource_api_db_client_connections_max')).toBe(database.name === 'sqlite' ? 1 : 10);
      expect(sample(text, 'resource_api_db_client_connections_pending_requests')).toBe(0);
      expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });

  it('counts the in-process cache’s hits, those answered before the app too, with its entries and bytes', async () => {
    const { app, origin } = await listen({
      database,
      resources: [Book],
      telemetry: { metrics: true },
      httpCache: { defaults: { sharedMaxAge: 3600, maxAge: 0 }, store: 'memory' },
    });
    try {
      const created = await fetch(`${origin}/api/books`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ title: 'Dune' }),
      });
      expect(created.status).toBe(201);
      const caches = [];
      for (let i = 0; i < 3; i++) caches.push((await fetch(`${origin}/api/books/1`)).headers.get('x-cache'));
      expect(caches).toEqual(['MISS', 'HIT', 'HIT']);
      const text = await (await fetch(`${origin}/metrics`)).text();
      expect(sample(text, 'resource_api_http_cache_hits_total')).toBe(2);
      expect(sample(text, 'resource_api_http_cache_entries')).toBe(1);
      expect(sample(text, 'resource_api_http_cache_bytes')).toBeGreaterThan(100);
      // The hits were answered before the app: only the miss is a request of the route.
      const item = { method: 'GET', route: '/api/books/{id}', operation: 'api_books_id_get', status_code: '200' };
      expect(sample(text, 'resource_api_http_requests_total', item)).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('shows a connection in use while a transaction holds it', async () => {
    const app = await buildTestApp({ database, resources: [Book], telemetry: { metrics: { processMetrics: false } } });
    try {
      const { knex } = app.resourceApi.database;
      const scraped = await knex.transaction(async (transaction) => {
        await transaction('book').select('id');
        return (await call(app, { method: 'GET', url: '/metrics' })).text;
      });
      expect(sample(scraped, 'resource_api_db_client_connections', { state: 'used' })).toBe(1);
      expect(sample(scraped, 'process_cpu_user_seconds_total')).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});

describe('the metrics route and registry', () => {
  const database = databases[0]!;

  it('serves them at the path given, and only there', async () => {
    const app = await buildTestApp({
      database,
      resources: [Book],
      telemetry: { metrics: { path: '/internal/metrics' } },
    });
    try {
      expect((await call(app, { method: 'GET', url: '/metrics' })).status).toBe(404);
      const served = await call(app, { method: 'GET', url: '/internal/metrics' });
      expect(served.status).toBe(200);
      expect(served.text).toContain('# TYPE resource_api_http_requests_total counter');
    } finally {
      await app.close();
    }
  });

  it("adds them to the app's registry, with no route when the path is false; the app's own routes are not counted", async () => {
    const registry = new Registry();
    const app = Fastify();
    app.get('/own-before', async () => ({ ok: true }));
    await app.register(resourceApi, {
      database: database.url,
      resources: [Book],
      telemetry: { metrics: { registry, path: false } },
    });
    app.get('/own-after', async () => ({ ok: true }));
    await app.ready();
    try {
      for (const url of ['/own-before', '/own-after', '/api/books'])
        expect((await call(app, { method: 'GET', url })).status, url).toBe(200);
      expect((await call(app, { method: 'GET', url: '/metrics' })).status).toBe(404);
      const text = await registry.metrics();
      expect(sample(text, 'resource_api_http_requests_total', { route: '/api/books', status_code: '200' })).toBe(1);
      expect(text).not.toContain('/own-');
      expect(text).toContain('process_cpu_user_seconds_total');
    } finally {
      await app.close();
    }
  });

  it('refuses a wrong option at start, naming it, before opening anything: no database file, no route', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'telemetry-')), 'data', 'api.db');
    const wrong: [unknown, string][] = [
      [{ metrics: { path: 'metrics' } }, 'telemetry.metrics.path must be a path starting with "/"'],
      [{ metrics: { pth: '/m' } }, 'telemetry.metrics: unknown option "pth". Did you mean "path"?'],
      [{ metric: true }, 'telemetry: unknown option "metric". Did you mean "metrics"?'],
      [{ metrics: { durationBuckets: [0.1, 0.05] } }, 'telemetry.metrics.durationBuckets must be a non-empty list'],
      [{ metrics: { registry: {} } }, 'telemetry.metrics.registry must be a prom-client Registry.'],
      [{ metrics: 'yes' }, 'telemetry.metrics must be true, false or an object'],
    ];
    for (const [telemetry, message] of wrong) {
      const app = Fastify();
      const started = app.register(resourceApi, {
        database: `sqlite:${file}`,
        resources: [Book],
        telemetry: telemetry as TelemetryOptions,
      });
      await expect(started.ready(), JSON.stringify(telemetry)).rejects.toThrow(message);
      await expect(started.ready()).rejects.toBeInstanceOf(DeclarationError);
      expect(app.hasRoute({ method: 'GET', url: '/metrics' })).toBe(false);
      await app.close();
      expect(existsSync(file)).toBe(false);
    }
  });

  it('names prom-client and how to install it when it is missing', async () => {
    const missing = Object.assign(new Error("Cannot find package 'prom-client' imported from core"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadPromClient(() => Promise.reject(missing))).rejects.toThrow(
      'telemetry.metrics needs the "prom-client" package, which is not installed: add it to your app (npm install prom-client).',
    );
  });
});
