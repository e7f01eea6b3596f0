/**
 * Traces: with an OpenTelemetry SDK installed (a tracer provider exporting to memory, an AsyncLocalStorage context
 * manager, the W3C propagator), each request to the API gets a span named after its method and route, with its
 * operation, resource and status; the stages worth timing and each SQL statement are its descendants, with the
 * statement's text as compiled (placeholders, never the values bound to them). On SQLite and PostgreSQL.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import Fastify from 'fastify';
import { defineResource, Length, resourceApi } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  propagation.disable();
  context.disable();
  await provider.shutdown();
});

/** A title no SQL span may contain: values are bound, never written into the statement's text. */
const SECRET = 'Secret Title 7f3a';

const Shelf = defineResource({ name: 'Shelf', fields: { label: { type: 'string' } } });
const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string', constraints: [Length({ min: 2 })] },
    pages: { type: 'integer', nullable: true },
    shelf: { toOne: 'Shelf', nullable: true },
  },
  filters: [{ type: 'search', properties: { title: 'ipartial' } }],
});

const databases = testDatabases(inject('postgresUrl'), inject('mariadbUrl'));
const system = { sqlite: 'sqlite', postgres: 'postgresql', mariadb: 'mysql' } as const;

/** The spans exported since the last `reset`, found by name. */
function spans(): ReadableSpan[] {
  return exporter.getFinishedSpans();
}
function spanNamed(name: string): ReadableSpan {
  const found = spans().filter((span) => span.name === name);
  expect(
    found.map((span) => span.name),
    `one span named ${name} in ${spans().map((s) => s.name)}`,
  ).toEqual([name]);
  return found[0]!;
}
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
/** The spans below `ancestor`, at any depth. */
function descendantsOf(ancestor: ReadableSpan): ReadableSpan[] {
  const below = new Set([idOf(ancestor)]);
  const found: ReadableSpan[] = [];
  let grew = true;
  while (grew) {
    grew = false;
    for (const span of spans()) {
      const parent = parentOf(span);
      if (parent !== undefined && below.has(parent) && !below.has(idOf(span))) {
        below.add(idOf(span));
        found.push(span);
        grew = true;
      }
    }
  }
  return found;
}
const sqlSpans = () => spans().filter((span) => span.attributes['db.query.text'] !== undefined);

describe.each(databases)('on $name', (database) => {
  let app: FastifyInstance;
  beforeEach(async () => {
    app = await buildTestApp({ database, resources: [Shelf, Book] });
    exporter.reset();
    return () => app.close();
  });

  it('traces a GET: the request span, its read and serialize stages, and the SELECT under the read', async () => {
    const created = await call(app, { method: 'POST', url: '/api/books', payload: { title: SECRET, pages: 412 } });
    expect(created.status).toBe(201);
    exporter.reset();

    const response = await call(app, { method: 'GET', url: `/api/books/${created.body['@id'].split('/').pop()}` });
    expect(response.status).toBe(200);

    const request = spanNamed('GET /api/books/{id}');
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(parentOf(request)).toBeUndefined();
    expect(request.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/api/books/{id}',
      'http.response.status_code': 200,
      'url.path': response.body['@id'],
      'resource_api.operation': 'api_books_id_get',
      'resource_api.resource': 'Book',
    });
    expect(request.status.code).toBe(SpanStatusCode.UNSET);
    const read = spanNamed('read Book');
    const serialize = spanNamed('serialize Book');
    expect(parentOf(read)).toBe(idOf(request));
    expect(parentOf(serialize)).toBe(idOf(request));
    expect(read.attributes).toMatchObject({ 'resource_api.stage': 'read', 'resource_api.resource': 'Book' });

    const [select, ...others] = sqlSpans();
    expect(others).toEqual([]);
    expect(select!.name).toBe('SELECT book');
    expect(select!.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(select!)).toBe(idOf(read));
    expect(select!.attributes).toMatchObject({
      'db.system': system[database.name],
      'db.system.name': system[database.name],
      'db.operation.name': 'SELECT',
      'db.collection.name': 'book',
    });
    // PostgreSQL's placeholders are numbered; SQLite's and MariaDB's are `?`.
    expect(String(select!.attributes['db.query.text'])).toMatch(database.name === 'postgres' ? /= \$1/ : /= \?/);
    // Every span of the request is in its trace, and the request's span is the last to end.
    expect(new Set(spans().map((span) => span.spanContext().traceId))).toEqual(
      new Set([request.spanContext().traceId]),
    );
    expect(descendantsOf(request)).toHaveLength(spans().length - 1);
  });

  it('traces a POST: deserialize, validate, write with its INSERT, serialize; the values never in the SQL', async () => {
    const response = await call(app, { method: 'POST', url: '/api/books', payload: { title: SECRET, pages: 412 } });
    expect(response.status).toBe(201);

    const request = spanNamed('POST /api/books');
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/books',
      'http.response.status_code': 201,
      'resource_api.operation': 'api_books_post',
      'resource_api.resource': 'Book',
    });
    const stages = spans().filter((span) => span.attributes['resource_api.stage'] !== undefined);
    expect(stages.map((span) => span.name).sort()).toEqual(
      ['deserialize Book', 'serialize Book', 'validate Book', 'write Book'].sort(),
    );
    for (const stage of stages) expect(parentOf(stage), stage.name).toBe(idOf(request));
    const write = spanNamed('write Book');
    const insert = sqlSpans().find((span) => span.attributes['db.operation.name'] === 'INSERT');
    expect(insert?.name).toBe('INSERT book');
    expect(descendantsOf(write)).toContain(insert);
    for (const span of sqlSpans()) {
      expect(JSON.stringify(span.attributes)).not.toContain(SECRET);
      expect(JSON.stringify(span.attributes)).not.toContain('412');
    }
  });

  it('traces a search without the searched value in any statement', async () => {
    await call(app, { method: 'POST', url: '/api/books', payload: { title: SECRET } });
    exporter.reset();
    const response = await call(app, { method: 'GET', url: `/api/books?title=${encodeURIComponent(SECRET)}` });
    expect(response.body.totalItems ?? response.body['hydra:totalItems']).toBe(1);
    const request = spanNamed('GET /api/books');
    expect(request.attributes['resource_api.operation']).toBe('api_books_get_collection');
    expect(sqlSpans().length).toBeGreaterThan(0);
    for (const span of sqlSpans()) {
      expect(descendantsOf(request)).toContain(span);
      expect(JSON.stringify(span.attributes).toLowerCase()).not.toContain('secret');
    }
  });

  it('keeps a 404 an answer, not a failure: the status on the request span, the error as an event of the read', async () => {
    const response = await call(app, { method: 'GET', url: '/api/books/999' });
    expect(response.status).toBe(404);
    const request = spanNamed('GET /api/books/{id}');
    expect(request.attributes['http.response.status_code']).toBe(404);
    expect(request.status.code).toBe(SpanStatusCode.UNSET);
    const read = spanNamed('read Book');
    expect(read.status.code).toBe(SpanStatusCode.UNSET);
    expect(read.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('traces a refused POST (400) that writes nothing: no write stage, no INSERT, the table unchanged', async () => {
    const response = await call(app, { method: 'POST', url: '/api/books', payload: { title: 'x' } });
    expect(response.status).toBe(400);
    const request = spanNamed('POST /api/books');
    expect(request.attributes['http.response.status_code']).toBe(response.status);
    expect(spans().map((span) => span.name)).not.toContain('write Book');
    expect(sqlSpans().filter((span) => span.attributes['db.operation.name'] === 'INSERT')).toEqual([]);
    expect(Number((await app.resourceApi.database.knex('book').count({ n: '*' }))[0]!.n)).toBe(0);
  });

  it('marks a 5xx as failed, with the exception recorded', async () => {
    const Broken = defineResource({
      name: 'Broken',
      fields: { name: { type: 'string' } },
      operations: ['get'],
      provider: {
        provide: async () => {
          throw new Error('The provider broke.');
        },
      },
    });
    const broken = await buildTestApp({ database, resources: [Broken] });
    try {
      exporter.reset();
      expect((await call(broken, { method: 'GET', url: '/api/brokens/1' })).status).toBe(500);
      const request = spanNamed('GET /api/brokens/{id}');
      expect(request.status.code).toBe(SpanStatusCode.ERROR);
      expect(request.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });
      expect(request.events[0]?.attributes?.['exception.message']).toBe('The provider broke.');
      expect(spanNamed('read Broken').status.code).toBe(SpanStatusCode.ERROR);
    } finally {
      await broken.close();
    }
  });

  it('continues the trace the client sent in `traceparent`', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    await call(app, { method: 'GET', url: '/api/books', headers: { traceparent: `00-${traceId}-${parentId}-01` } });
    const request = spanNamed('GET /api/books');
    expect(request.spanContext().traceId).toBe(traceId);
    expect(parentOf(request)).toBe(parentId);
    expect(request.kind).toBe(SpanKind.SERVER);
  });

  it('traces a GraphQL query: the request span, a span per operation run, its read and statements', async () => {
    const created = await call(app, { method: 'POST', url: '/api/books', payload: { title: SECRET } });
    exporter.reset();
    const query = `{ book(id: "${created.body['@id']}") { title } }`;
    const response = await call(app, { method: 'POST', url: '/graphql', payload: { query } });
    expect(response.body).toEqual({ data: { book: { title: SECRET } } });

    const request = spanNamed('POST /graphql');
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'http.response.status_code': 200,
    });
    const operation = spans().find(
      (span) => span.attributes['resource_api.operation'] !== undefined && span !== request,
    );
    expect(operation?.attributes['resource_api.resource']).toBe('Book');
    expect(descendantsOf(request)).toContain(operation);
    const read = spanNamed('read Book');
    expect(parentOf(read)).toBe(idOf(operation!));
    expect(sqlSpans().length).toBeGreaterThan(0);
    for (const span of sqlSpans()) {
      expect(descendantsOf(read)).toContain(span);
      expect(JSON.stringify(span.attributes)).not.toContain(SECRET);
    }
  });

  it("traces the API's routes only: a route of the application's own gets no span", async () => {
    if (database.name === 'postgres') return; // the plugin's own tables in the shared schema: SQLite is enough here
    const mixed = Fastify();
    mixed.get('/own', async () => ({ ok: true }));
    await mixed.register(resourceApi, { database: database.url, resources: [Shelf, Book], schemaSync: true });
    mixed.get('/own-after', async () => ({ ok: true }));
    await mixed.ready();
    try {
      exporter.reset();
      expect((await call(mixed, { method: 'GET', url: '/own' })).status).toBe(200);
      expect((await call(mixed, { method: 'GET', url: '/own-after' })).status).toBe(200);
      expect(spans()).toEqual([]);
      expect((await call(mixed, { method: 'GET', url: '/api/shelves' })).status).toBe(200);
      expect(spans().map((span) => span.name)).toContain('GET /api/shelves');
    } finally {
      await mixed.close();
    }
  });
});
