/**
 * Graceful close over real HTTP: `app.close()` while a request is in flight stops accepting connections, lets the
 * request finish and answers it with `Connection: close`, so the keep-alive connection does not hold the close up.
 */
import { type IncomingMessage, request as httpRequest, Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';

// SQLite only: the test kit drops a PostgreSQL test schema in a preClose hook, which would race the request in flight.
const [database] = testDatabases(undefined);

describe('closing the app', () => {
  it('finishes the request in flight, answers it with Connection: close, and closes without waiting for the client', async () => {
    const app = await buildTestApp({ database: database!, resources: [Author, Book], production: {} });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    // A keep-alive agent, as load balancers and browsers use: it would keep the connection open after the answer.
    const agent = new Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
    const body = JSON.stringify({ name: 'Octavia E. Butler' });
    let received = false;
    app.server.once('request', () => (received = true));
    const inFlight = httpRequest({
      agent,
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/authors',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answered = new Promise<{ response: IncomingMessage; text: string }>((resolve, reject) => {
      inFlight.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ response, text }));
      });
      inFlight.on('error', reject);
    });
    try {
      inFlight.write(body.slice(0, 10));
      while (!received) await new Promise((resolve) => setTimeout(resolve, 10));

      const closed = app.close();
      await expect(fetch(`${address}/api/authors`)).rejects.toThrow();
      inFlight.end(body.slice(10));
      const { response, text } = await answered;
      expect(response.statusCode).toBe(201);
      expect(response.headers.connection).toBe('close');
      expect(JSON.parse(text)).toMatchObject({ '@id': '/api/authors/1', name: 'Octavia E. Butler' });
      // Resolves although the agent would keep the connection for a minute.
      await closed;
      expect(app.server.listening).toBe(false);
    } finally {
      agent.destroy();
      await app.close().catch(() => {});
    }
  });
});
