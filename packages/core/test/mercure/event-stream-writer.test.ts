/**
 * How the built-in hub writes to its subscribers' connections (`routing/event-stream-writer.ts`): once a response's head
 * is out, its chunks go straight on the socket, framed as HTTP/1.1 chunks once for every subscriber of a group. Read
 * here as raw bytes from plain TCP connections, so a wrong chunk size or a chunk out of place fails; and through an
 * `onSend` hook that puts a stream of its own in the body's place, which must see every event.
 */
import { connect, type Socket } from 'node:net';
import { Transform } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { mercureHub, signHubToken } from '@resource-api/core';
import { subscribe, type Subscriber } from './subscriber.js';

const SECRET = 'the-hub-secret-of-these-tests-0123456789';
const TOPIC = 'https://example.com/books/1';

/** A subscription read as raw bytes: the response's head and its body, each chunk checked as it is taken apart. */
class RawSubscriber {
  private bytes = Buffer.alloc(0);
  private readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.bytes = Buffer.concat([this.bytes, chunk]);
    });
    this.socket.write(`GET /.well-known/mercure?topic=*&x=raw HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  }

  /** The head, and the body decoded from its chunks; throws on a malformed chunk. */
  read(): { head: string; body: string; chunks: number } {
    const end = this.bytes.indexOf('\r\n\r\n');
    if (end < 0) return { head: '', body: '', chunks: 0 };
    const head = this.bytes.subarray(0, end).toString('latin1');
    let at = end + 4;
    const parts: Buffer[] = [];
    while (at < this.bytes.length) {
      const lineEnd = this.bytes.indexOf('\r\n', at);
      if (lineEnd < 0) break;
      const sizeText = this.bytes.subarray(at, lineEnd).toString('latin1');
      if (!/^[0-9a-f]+$/.test(sizeText)) throw new Error(`not a chunk size at byte ${at}: ${JSON.stringify(sizeText)}`);
      const size = Number.parseInt(sizeText, 16);
      const dataEnd = lineEnd + 2 + size;
      if (dataEnd + 2 > this.bytes.length) break;
      if (this.bytes.subarray(dataEnd, dataEnd + 2).toString('latin1') !== '\r\n')
        throw new Error(`chunk of ${size} bytes at byte ${at} does not end its line`);
      parts.push(this.bytes.subarray(lineEnd + 2, dataEnd));
      at = dataEnd + 2;
    }
    return { head, body: Buffer.concat(parts).toString('utf8'), chunks: parts.length };
  }

  close(): void {
    this.socket.destroy();
  }
}

const dataOf = (body: string): string[] =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length));

describe("the hub's writes to its subscribers' connections", () => {
  let hub: FastifyInstance | undefined;
  const closing: { close(): void }[] = [];
  afterEach(async () => {
    for (const one of closing.splice(0)) one.close();
    await hub?.close();
    hub = undefined;
  });

  async function start(setUp?: (app: FastifyInstance) => void): Promise<{ port: number; url: string }> {
    hub = Fastify({ forceCloseConnections: true });
    setUp?.(hub);
    await hub.register(mercureHub, { jwtSecret: SECRET, heartbeat: 0 });
    await hub.listen({ port: 0, host: '127.0.0.1' });
    const address = hub.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return { port, url: `http://127.0.0.1:${port}/.well-known/mercure` };
  }

  async function publishMany(url: string, count: number): Promise<string[]> {
    const token = await signHubToken({ publish: ['*'] }, SECRET);
    const sent = Array.from({ length: count }, (_, index) => `update ${index} ${'x'.repeat(index * 7)}`);
    // Sent together: several land in one turn of the hub's event loop and leave in one chunk per subscriber.
    const statuses = await Promise.all(
      sent.map(async (data) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
          body: new URLSearchParams({ topic: TOPIC, data }).toString(),
        });
        await response.text();
        return response.status;
      }),
    );
    expect(statuses).toEqual(sent.map(() => 200));
    return sent;
  }

  const waitFor = async (check: () => boolean, what: string): Promise<void> => {
    const until = Date.now() + 10_000;
    while (!check()) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('frames every chunk as HTTP/1.1 chunks, the same bytes for each subscriber, in the order published', async () => {
    const { port, url } = await start();
    const raws = [new RawSubscriber(port), new RawSubscriber(port), new RawSubscriber(port)];
    closing.push(...raws);
    await waitFor(() => raws.every((raw) => raw.read().body.startsWith(':')), 'the subscriptions to open');
    const reader: Subscriber = await subscribe(url, ['*']);
    closing.push(reader);

    const sent = await publishMany(url, 60);
    const heard = (await reader.next(sent.length)).map((event) => event.data);
    expect([...heard].sort()).toEqual([...sent].sort());
    await waitFor(() => raws.every((raw) => dataOf(raw.read().body).length === sent.length), 'every raw event');
    for (const raw of raws) {
      const { head, body, chunks } = raw.read();
      expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(head.toLowerCase()).toContain('transfer-encoding: chunked');
      expect(head.toLowerCase()).toContain('content-type: text/event-stream');
      // The order the hub sent them in, which the EventSource client saw too.
      expect(dataOf(body)).toEqual(heard);
      expect(chunks).toBeGreaterThan(1);
    }
    expect(new Set(raws.map((raw) => raw.read().body)).size).toBe(1);
  });

  it('leaves a body that an onSend hook replaced to that hook: every event goes through it', async () => {
    const { url } = await start((app) => {
      // Registered before the hub: its routes have it. It marks each data line, as a compressing hook would change
      // every byte: an event written around it would arrive unmarked.
      app.addHook('onSend', (_request, reply, payload, done) => {
        const type = String(reply.getHeader('content-type') ?? '');
        if (!type.startsWith('text/event-stream') || payload === null || typeof payload !== 'object')
          return done(null, payload);
        const marking = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            callback(null, Buffer.from(chunk.toString('utf8').replaceAll('data: ', 'data: >')));
          },
        });
        done(null, (payload as NodeJS.ReadableStream).pipe(marking));
      });
    });
    const reader = await subscribe(url, ['*']);
    closing.push(reader);
    const sent = await publishMany(url, 40);
    const heard = (await reader.next(sent.length)).map((event) => event.data);
    expect(heard.every((data) => data.startsWith('>'))).toBe(true);
    expect(heard.map((data) => data.slice(1)).sort()).toEqual([...sent].sort());
  });
});
