import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleTitle, subscribe } from '../src/mercure-subscribers.js';

const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A stand-in hub: `answer` writes to each connection once its request has arrived. */
async function hub(answer: (socket: Socket) => Promise<void>): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.once('data', () => void answer(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

let open: Server | undefined;
afterEach(() => {
  open?.close();
  open = undefined;
});

describe("the bench's Mercure subscriber", () => {
  it("finds every marker, in the head's last read, whole in a read, or cut between two reads", async () => {
    const events = [1, 2, 3, 4].map((n) => `data: {"title":"${sampleTitle(n)}"}\n\n`).join('');
    const cut = events.indexOf(sampleTitle(3)) + 7;
    const { server, port } = await hub(async (socket) => {
      socket.write(HEAD.slice(0, 20));
      await pause();
      // The rest of the head with the first event in the same read.
      socket.write(HEAD.slice(20) + events.slice(0, events.indexOf(sampleTitle(2))));
      await pause();
      socket.write(events.slice(events.indexOf(sampleTitle(2)), cut));
      await pause();
      socket.write(events.slice(cut));
    });
    open = server;
    const subscriber = await subscribe(port, 'http://example.com/{id}');
    for (let i = 0; i < 50 && subscriber.arrivals.size < 4; i++) await pause();
    expect([...subscriber.arrivals.keys()].sort()).toEqual([1, 2, 3, 4]);
    expect(subscriber.dropped).toBe(false);
    subscriber.close();
  });

  it('refuses an answer that is no event stream, and tells a subscription the hub ended from one it closed', async () => {
    const refused = await hub(async (socket) => {
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    });
    open = refused.server;
    await expect(subscribe(refused.port, 'x')).rejects.toThrow(/answered 401 \(application\/json\)/);
    refused.server.close();

    const ending = await hub(async (socket) => {
      socket.write(HEAD);
      await pause();
      socket.end();
    });
    open = ending.server;
    const subscriber = await subscribe(ending.port, 'x');
    for (let i = 0; i < 50 && !subscriber.dropped; i++) await pause();
    expect(subscriber.dropped).toBe(true);
  });
});
