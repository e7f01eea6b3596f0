/**
 * Lingering close after a 413: over a real connection, a client still sending a body over the limit reads its 413,
 * because the server reads and throws away the rest of the body before closing (instead of closing under the client,
 * which then gets EPIPE or a reset); a body far over the limit is cut after a bounded amount, never read forever —
 * on REST, `/api/auth` and `/graphql`, on SQLite and PostgreSQL, and nothing is stored.
 */
import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { LINGER_BYTES, LINGER_MS } from '../../src/production/lingering-close.js';
import { useApp } from '../helpers.js';
import { Note, securityOptions, User } from '../security/fixtures.js';

const LIMIT = 1024 * 1024;
const CHUNK = 64 * 1024;

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as net.AddressInfo).port;
}

interface RawOutcome {
  /** What the server sent (the response, as text). */
  readonly response: string;
  /** Bytes of the body the client could send before the connection ended. */
  readonly sent: number;
  /** Whether the server ended (FIN) or reset the connection before the client sent its whole body. */
  readonly closedEarly: boolean;
  /** A write or socket error the client saw (EPIPE, ECONNRESET), if any. */
  readonly error: string | undefined;
  readonly elapsed: number;
}

/**
 * Sends `size` bytes of body in chunks, a first part with the headers and the rest after the server answered, on a
 * half-open socket (it keeps sending after the server's FIN, as a client busy writing does).
 */
function sendRaw(port: number, path: string, size: number, pause: number): Promise<RawOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let response = '';
    let sent = 0;
    let ended = false;
    let error: string | undefined;
    const finish = () =>
      resolve({ response, sent, closedEarly: ended && sent < size, error, elapsed: Date.now() - started });
    socket.on('data', (data: Buffer) => (response += data.toString('latin1')));
    socket.on('end', () => (ended = ended || sent < size));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', finish);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    );
    const next = () => {
      if (socket.destroyed || !socket.writable) return;
      const length = Math.min(CHUNK, size - sent);
      sent += length;
      const flushed = socket.write(Buffer.alloc(length, 0x61));
      if (sent >= size) return void socket.end();
      if (pause > 0) setTimeout(next, pause);
      else if (flushed) setImmediate(next);
      else socket.once('drain', next);
    };
    next();
  });
}

/** A Node `http` client writing the body in chunks: the status it read, or the error it got instead. */
function sendWithHttp(port: number, path: string, size: number): Promise<number | string> {
  return new Promise((resolve) => {
    const request = http.request({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'content-length': size },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    let sent = 0;
    const next = () => {
      while (sent < size && !request.destroyed) {
        const length = Math.min(CHUNK, size - sent);
        sent += length;
        if (!request.write(Buffer.alloc(length, 0x61))) return void request.once('drain', next);
      }
      if (!request.destroyed) request.end();
    };
    next();
  });
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'lingering close after a 413 on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Note], security: securityOptions() });

    it('reads the rest of a body just over the limit before closing: the client sends it all and reads its 413', async () => {
      const port = await listen(app());
      for (const path of ['/api/notes', '/api/auth', '/graphql']) {
        const outcome = await sendRaw(port, path, LIMIT + 1, 5);
        expect(outcome.response, path).toMatch(/^HTTP\/1\.1 413 /);
        expect(outcome.response, path).toMatch(/\r\nconnection: close\r\n/i);
        expect(outcome.closedEarly, path).toBe(false);
        expect(outcome.error, path).toBeUndefined();
        expect(outcome.sent, path).toBe(LIMIT + 1);
      }
      expect(Number((await app().resourceApi.database.knex('note').count({ n: '*' }))[0]!.n)).toBe(0);
    });

    it('cuts a body far over the limit after a bounded amount, in bounded time', async () => {
      const port = await listen(app());
      const outcome = await sendRaw(port, '/api/notes', 256 * 1024 * 1024, 0);
      expect(outcome.response).toMatch(/^HTTP\/1\.1 413 /);
      expect(outcome.closedEarly || outcome.error !== undefined).toBe(true);
      // What the server read after the 413, plus what socket buffers hold: far from the 256 MiB sent.
      expect(outcome.sent).toBeLessThan(LIMIT + LINGER_BYTES + 16 * 1024 * 1024);
      expect(outcome.elapsed).toBeLessThan(LINGER_MS + 2000);
    });

    it('answers a Node http client writing a body over the limit in chunks with the 413', async () => {
      const port = await listen(app());
      for (const size of [LIMIT + 1, 3 * LIMIT]) {
        for (const path of ['/api/notes', '/api/auth', '/graphql'])
          expect(await sendWithHttp(port, path, size), `${path} ${size}`).toBe(413);
      }
    });
  },
);
