/**
 * With no OpenTelemetry SDK installed as the plugin starts, the API's routes get no hook of telemetry's (nothing runs
 * per request for traces) and knex's runner is not followed; answers are the same. The plugin looks once: an SDK
 * installed later traces the apps started after it. On SQLite (what is checked is the routes, not the database).
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { isTracerInstalled } from '../../src/telemetry/tracer.js';
import { call } from '../helpers.js';

const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' } } });
const database = testDatabases(undefined)[0]!;
const exporter = new InMemorySpanExporter();

afterAll(() => {
  trace.disable();
  context.disable();
});

const routeHooks = (app: FastifyInstance) => app.printRoutes({ includeHooks: true, commonPrefix: false });
const queryListeners = (app: FastifyInstance) => app.resourceApi.database.knex.client.listenerCount('query');

describe('without an SDK as the plugin starts', () => {
  it('adds no telemetry hook to the routes and no listener to knex; an SDK installed later traces later apps', async () => {
    expect(isTracerInstalled()).toBe(false);
    const untraced = await buildTestApp({ database, resources: [Book] });
    try {
      expect(routeHooks(untraced)).not.toContain('startRequestSpan');
      // knex's own listener, which passes the client's events on to the knex instance.
      const knexOwn = queryListeners(untraced);
      expect((await call(untraced, { method: 'POST', url: '/api/books', payload: { title: 'Dune' } })).status).toBe(
        201,
      );

      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      expect(isTracerInstalled()).toBe(true);
      const response = await call(untraced, { method: 'GET', url: '/api/books' });
      expect(response.body['hydra:totalItems'] ?? response.body.totalItems).toBe(1);
      expect(exporter.getFinishedSpans()).toEqual([]);

      const traced = await buildTestApp({ database, resources: [Book] });
      try {
        expect(routeHooks(traced)).toContain('startRequestSpan');
        expect(queryListeners(traced)).toBe(knexOwn + 1);
        expect((await call(traced, { method: 'GET', url: '/api/books' })).status).toBe(200);
        expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([
          'SELECT book',
          'read Book',
          'serialize Book',
          'GET /api/books',
        ]);
      } finally {
        await traced.close();
      }
    } finally {
      await untraced.close();
    }
  });

  it('still counts requests when metrics are on, with the one hook that counts them', async () => {
    trace.disable();
    expect(isTracerInstalled()).toBe(false);
    const app = await buildTestApp({ database, resources: [Book], telemetry: { metrics: { processMetrics: false } } });
    try {
      expect(routeHooks(app)).not.toContain('startRequestSpan');
      expect(routeHooks(app)).toContain('recordRequest');
      await call(app, { method: 'GET', url: '/api/books' });
      const text = (await call(app, { method: 'GET', url: '/metrics' })).text;
      expect(text).toContain(
        'resource_api_http_requests_total{method="GET",route="/api/books",operation="api_books_get_collection",status_code="200"} 1',
      );
    } finally {
      await app.close();
    }
  });
});
