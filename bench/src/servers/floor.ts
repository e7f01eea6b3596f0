/**
 * The floor: bare Fastify sending precomputed bytes — the bodies the baseline (or, for GraphQL, the example app)
 * answered during the checks, so each response has the same size and type. `BENCH_RESPONSES` names a JSON file of
 * `{ method, route, url, status, body }`; a route answers the body recorded for the exact URL, else its first one.
 */
import { readFileSync } from 'node:fs';
import Fastify, { type HTTPMethods } from 'fastify';
import { serve, setting } from './serve.js';

interface Recorded {
  method: HTTPMethods;
  route: string;
  url: string;
  status: number;
  contentType: string;
  body: string;
}

await serve(async () => {
  const recorded = JSON.parse(readFileSync(setting('BENCH_RESPONSES'), 'utf8')) as Recorded[];
  const app = Fastify({ logger: false });
  // Request bodies are read, not parsed.
  app.addContentTypeParser('application/ld+json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  const routes = new Map<string, Map<string, { status: number; contentType: string; bytes: Buffer }>>();
  for (const response of recorded) {
    const key = `${response.method} ${response.route}`;
    if (!routes.has(key)) {
      const byUrl = new Map<string, { status: number; contentType: string; bytes: Buffer }>();
      routes.set(key, byUrl);
      const first = { status: response.status, contentType: response.contentType, bytes: Buffer.from(response.body) };
      app.route({
        method: response.method,
        url: response.route,
        handler: (request, reply) => {
          const answer = byUrl.get(request.url) ?? first;
          reply.code(answer.status).header('content-type', answer.contentType).send(answer.bytes);
        },
      });
    }
    routes.get(key)?.set(response.url, {
      status: response.status,
      contentType: response.contentType,
      bytes: Buffer.from(response.body),
    });
  }
  // What the runner polls to time the start-up (the recorded routes may all be POSTs).
  app.get('/ready', (_request, reply) => reply.send('ready'));
  return app;
});
