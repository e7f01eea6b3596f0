/**
 * Request ids: `genRequestId` keeps a plausible incoming `X-Request-Id` and makes a UUID otherwise; the plugin echoes
 * the id in the response; Fastify's pino logger writes it as `reqId` on the request's JSON log lines, errors included.
 */
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { genRequestId, production, resourceApi } from '@resource-api/core';
import { Author, Book } from '../fixtures.js';
import { call } from '../helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An app logging JSON lines into `lines`, with `genRequestId`. */
async function logged(
  options: { requestIdHeader?: string | false } = {},
): Promise<{ app: FastifyInstance; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  app = Fastify({ logger: { level: 'info', stream }, genReqId: genRequestId });
  await app.register(production, options);
  await app.register(resourceApi, { resources: [Author, Book], database: 'sqlite::memory:' });
  await app.ready();
  return { app, lines };
}

describe('request ids', () => {
  it('keeps the X-Request-Id a proxy sent, echoes it, and logs every line of the request with it', async () => {
    const { app, lines } = await logged();
    const response = await call(app, {
      method: 'GET',
      url: '/api/authors/42',
      headers: { 'x-request-id': 'edge-7f3a:42' },
    });
    expect(response.status).toBe(404);
    expect(response.headers['x-request-id']).toBe('edge-7f3a:42');
    const ofRequest = lines.filter((line) => line.reqId === 'edge-7f3a:42');
    expect(ofRequest.map((line) => line.msg)).toEqual(['incoming request', 'Not Found', 'request completed']);
    expect(ofRequest[1]).toMatchObject({ level: 30, code: 'API_ERR_STATE_NOT_FOUND', status: 404 });
    expect(ofRequest[2]).toMatchObject({ res: { statusCode: 404 } });
  });

  it('makes a UUID for a request without one, or with an implausible one', async () => {
    const { app, lines } = await logged();
    const ids: string[] = [];
    for (const headers of [
      {},
      { 'x-request-id': 'x'.repeat(129) },
      { 'x-request-id': 'two\nlines' },
      { 'x-request-id': '' },
    ]) {
      const response = await call(app, { method: 'GET', url: '/api/authors', headers });
      expect(response.status).toBe(200);
      const id = String(response.headers['x-request-id']);
      expect(id).toMatch(UUID);
      ids.push(id);
    }
    expect(new Set(ids).size).toBe(4);
    for (const id of ids)
      expect(lines.filter((line) => line.reqId === id).map((line) => line.msg)).toEqual([
        'incoming request',
        'request completed',
      ]);
  });

  it('echoes the id in another header, or in none', async () => {
    const renamed = await logged({ requestIdHeader: 'request-id' });
    const response = await call(renamed.app, {
      method: 'GET',
      url: '/api/authors',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(response.headers['request-id']).toBe('abc-123');
    expect(response.headers['x-request-id']).toBeUndefined();
    await renamed.app.close();

    const silent = await logged({ requestIdHeader: false });
    const quiet = await call(silent.app, {
      method: 'GET',
      url: '/api/authors',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(quiet.status).toBe(200);
    expect(quiet.headers['x-request-id']).toBeUndefined();
  });
});
