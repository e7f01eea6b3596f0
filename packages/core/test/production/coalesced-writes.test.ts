/**
 * Coalesced writes (on by default): the responses finished in one turn of the event loop are written together at its
 * end, at most `maxDelayMs` after the first of them; every response still gets exactly its own bytes.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { type ProductionOptions, production, resourceApi } from '../../src/index.js';
import { Author, Book } from '../fixtures.js';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'many clients at once on $name',
  (database) => {
    it('answers each of 96 concurrent requests over real sockets with its own status and body', async () => {
      const app = await buildTestApp({ database, resources: [Author, Book], production: {} });
      try {
        const address = await app.listen({ host: '127.0.0.1', port: 0 });
        for (let n = 1; n <= 40; n++) {
          const created = await fetch(`${address}/api/authors`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: `Author ${n}` }),
          });
          expect(created.status).toBe(201);
        }
        // Reads of existing and missing items, a collection page and writes, all in flight together.
        const requests = Array.from({ length: 96 }, (_, i) => {
          if (i % 8 === 7)
            return {
              url: `${address}/api/authors`,
              init: {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ name: `New ${i}` }),
              },
              i,
            };
          if (i % 8 === 6) return { url: `${address}/api/authors/${1000 + i}`, init: {}, i };
          if (i % 8 === 5) return { url: `${address}/api/authors?page=2`, init: {}, i };
          return { url: `${address}/api/authors/${1 + (i % 40)}`, init: {}, i };
        });
        const answers = await Promise.all(
          requests.map(async ({ url, init, i }) => {
            const response = await fetch(url, init);
            return { i, status: response.status, body: (await response.json()) as Record<string, unknown> };
          }),
        );
        for (const { i, status, body } of answers) {
          if (i % 8 === 7) {
            expect(status, `request ${i}`).toBe(201);
            expect(body.name, `request ${i}`).toBe(`New ${i}`);
          } else if (i % 8 === 6) {
            expect(status, `request ${i}`).toBe(404);
            expect(body.detail, `request ${i}`).toBe('Not Found');
          } else if (i % 8 === 5) {
            expect(status, `request ${i}`).toBe(200);
            expect((body['hydra:view'] as { '@id': string })['@id'], `request ${i}`).toBe('/api/authors?page=2');
            expect((body['hydra:member'] as unknown[]).length, `request ${i}`).toBe(10);
          } else {
            expect(status, `request ${i}`).toBe(200);
            expect(body, `request ${i}`).toMatchObject({
              '@id': `/api/authors/${1 + (i % 40)}`,
              name: `Author ${1 + (i % 40)}`,
            });
          }
        }
        const total = (await (await fetch(`${address}/api/authors`)).json()) as { 'hydra:totalItems': number };
        expect(total['hydra:totalItems']).toBe(40 + 12);
      } finally {
        await app.close();
      }
    });
  },
);

/**
 * An app with the plugins and routes of its own that tell when their responses were written: the production plugin
 * serves them (`routes: 'all'`).
 */
async function appWith(
  options: Pick<ProductionOptions, 'coalesceWrites'>,
): Promise<{ app: FastifyInstance; seen: Record<string, boolean> }> {
  const app = Fastify({ logger: false });
  await app.register(production, { routes: 'all', ...options });
  await app.register(resourceApi, { resources: [Author, Book], database: 'sqlite::memory:', graphql: false });
  const seen: Record<string, boolean> = {};
  // Whether the response had been written when `send` returned, in the same synchronous step.
  app.get('/written-at-once', (_request, reply) => {
    reply.send('one');
    seen.atOnce = reply.raw.headersSent;
  });
  // `/hold` is answered by `/release`: in one synchronous step, the held response is finished, 20 ms pass, then the
  // release's own response is finished.
  let held: FastifyReply | undefined;
  app.get('/hold', (_request, reply) => void (held = reply));
  app.get('/release', (_request, reply) => {
    held!.send('held');
    const until = performance.now() + 20;
    while (performance.now() < until) {
      // a turn kept busy for 20 ms
    }
    seen.heldBeforeRelease = held!.raw.headersSent;
    reply.send('released');
    seen.heldAfterRelease = held!.raw.headersSent;
  });
  app.decorate('held', () => held !== undefined);
  app.get('/bad-header', async (_request, reply) => reply.header('x-bad', 'a\nb').send('never'));
  await app.ready();
  return { app, seen };
}

/** `/hold` then `/release`, both answered. */
async function holdAndRelease(app: FastifyInstance): Promise<string[]> {
  const holding = app.inject({ method: 'GET', url: '/hold' });
  while (!(app as unknown as { held: () => boolean }).held()) await new Promise((resolve) => setTimeout(resolve, 1));
  const released = await app.inject({ method: 'GET', url: '/release' });
  return [(await holding).body, released.body];
}

describe('when a response is written', () => {
  const WRITTEN_AT_ONCE: [string, Pick<ProductionOptions, 'coalesceWrites'>, boolean][] = [
    ['by default, at the end of the turn in which it was finished, not inside send()', {}, false],
    ['with coalesceWrites: false, inside send()', { coalesceWrites: false }, true],
    ['with maxDelayMs: 0, inside send(): no response waits', { coalesceWrites: { maxDelayMs: 0 } }, true],
  ];
  it.each(WRITTEN_AT_ONCE)('%s', async (_name, options, atOnce) => {
    const { app, seen } = await appWith(options);
    try {
      const response = await app.inject({ method: 'GET', url: '/written-at-once' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('one');
      expect(seen.atOnce).toBe(atOnce);
    } finally {
      await app.close();
    }
  });

  const HELD: [string, number, boolean][] = [
    ['a response that has waited maxDelayMs is written together with the next one finished', 5, true],
    ['a response that has waited less than maxDelayMs waits for the end of the turn', 1000, false],
  ];
  it.each(HELD)('%s', async (_name, maxDelayMs, writtenWithRelease) => {
    const { app, seen } = await appWith({ coalesceWrites: { maxDelayMs } });
    try {
      expect(await holdAndRelease(app)).toEqual(['held', 'released']);
      expect(seen.heldBeforeRelease).toBe(false);
      expect(seen.heldAfterRelease).toBe(writtenWithRelease);
    } finally {
      await app.close();
    }
  });

  it('a header value Node refuses still gives the 500 it gives without coalescing, and the server goes on', async () => {
    for (const coalesceWrites of [true, false]) {
      const { app } = await appWith({ coalesceWrites });
      try {
        const bad = await app.inject({ method: 'GET', url: '/bad-header' });
        expect(bad.statusCode, String(coalesceWrites)).toBe(500);
        expect(bad.json(), String(coalesceWrites)).toMatchObject({ code: 'ERR_INVALID_CHAR' });
        expect(bad.headers['x-bad']).toBeUndefined();
        const next = await app.inject({ method: 'GET', url: '/written-at-once' });
        expect(next.body).toBe('one');
      } finally {
        await app.close();
      }
    }
  });

  it('refuses a maxDelayMs that is not a number of milliseconds from 0 up', async () => {
    for (const maxDelayMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
      const app = Fastify({ logger: false });
      await expect(
        app.register(production, { coalesceWrites: { maxDelayMs } }).ready(),
        String(maxDelayMs),
      ).rejects.toThrow(/coalesceWrites\.maxDelayMs must be a number of milliseconds from 0 up/);
      await app.close().catch(() => {});
    }
  });
});
