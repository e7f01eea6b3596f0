/**
 * The request log's "request completed" line is built by hand (request-log.ts): it must be the line pino writes with
 * Fastify's serializers, byte for byte but for the time, whatever the client sent.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatMilliseconds, OneLineRequestLog } from '../src/request-log.js';

/** A stream that keeps what is written to it, line by line. */
function capture(): { write(chunk: string): void; lines: string[] } {
  const lines: string[] = [];
  return { lines, write: (chunk: string) => void lines.push(...chunk.split('\n').filter((l) => l !== '')) };
}

const timeless = (line: string): string =>
  line.replace(/"time":\d+/, '"time":0').replace(/"responseTime":[0-9.e-]+/, '"responseTime":0');

describe('the request log', () => {
  it("writes a request's line as pino would, whatever its url, version, host and id", async () => {
    const ours = capture();
    const pinos = capture();
    const app = Fastify({
      logger: { level: 'info', stream: pinos },
      logController: new OneLineRequestLog(ours),
      requestIdHeader: 'x-request-id',
    });
    app.addHttpMethod('PROPFIND'); // a method the line's table of common methods does not hold
    app.route({ method: ['GET', 'DELETE', 'PROPFIND'], url: '/*', handler: async () => ({ ok: true }) });
    // pino's own line for the same request, written beside ours (to the logger's stream).
    app.addHook('onResponse', async (request, reply) => {
      reply.log.info({ req: request, res: reply, responseTime: 1 }, 'request completed');
    });
    try {
      const requests = [
        { url: '/books/1' },
        { url: '/books/%22quoted%22?q=caf%C3%A9&x=\\', headers: { 'accept-version': '2"\u2028' } },
        { url: '/a', headers: { host: 'ex"ample.test:80', 'x-request-id': 'id-"\\-é' } },
        { method: 'DELETE' as const, url: '/books/2' },
        { method: 'PROPFIND' as const, url: '/books/3' },
      ];
      for (const request of requests) {
        const response = await app.inject({ method: 'GET', ...request });
        expect(response.statusCode).toBe(200);
      }
      expect(ours.lines).toHaveLength(requests.length);
      const reference = pinos.lines.filter((line) => line.includes('"request completed"'));
      expect(ours.lines.map(timeless)).toEqual(reference.map(timeless));
      expect(JSON.parse(ours.lines[1]!)).toMatchObject({ req: { version: '2"\u2028' }, res: { statusCode: 200 } });
    } finally {
      await app.close();
    }
  });

  it('writes nothing at warn, and a request that failed through pino', async () => {
    const ours = capture();
    const pinos = capture();
    const app = Fastify({ logger: { level: 'warn', stream: pinos }, logController: new OneLineRequestLog(ours) });
    app.get('/ok', async () => ({ ok: true }));
    try {
      expect((await app.inject({ method: 'GET', url: '/ok' })).statusCode).toBe(200);
      expect(ours.lines).toEqual([]);
      expect(pinos.lines).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('writes a response time as JSON writes it, from its microseconds', () => {
    for (const micros of [0, 1, 10, 100, 999, 1000, 1001, 1010, 1100, 12_340, 120_000, 2 ** 40 + 7])
      expect(formatMilliseconds(micros)).toBe(JSON.stringify(micros / 1000));
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (elapsed) => {
        const micros = Math.round(elapsed * 1000);
        expect(formatMilliseconds(micros)).toBe(JSON.stringify(micros / 1000));
      }),
      { numRuns: 20_000 },
    );
  });
});
