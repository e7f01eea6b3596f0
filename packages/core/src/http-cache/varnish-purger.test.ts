/**
 * createVarnishPurger against a server standing in for Varnish (the real one: test/http-cache/varnish.test.ts): the
 * requests it sends in each mode, tags beyond the header's size in further requests to every address, a refusal
 * reported, and options it cannot use refused.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createVarnishPurger } from './varnish-purger.js';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

/**
 * A server answering `status` to every request, and what it received. Over a bare socket: Node's HTTP parser knows
 * PURGE but not BAN.
 */
async function standIn(status = 200): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((socket) => {
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      // Purge requests have no body: each ends with its head.
      let end = head.indexOf('\r\n\r\n');
      while (end >= 0) {
        const [line, ...fields] = head.slice(0, end).split('\r\n');
        head = head.slice(end + 4);
        const [method, url] = line!.split(' ');
        const headers: Record<string, string> = {};
        for (const field of fields) {
          const colon = field.indexOf(':');
          headers[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
        }
        received.push({ method: method!, url: url!, headers });
        socket.write(`HTTP/1.1 ${status} Done\r\ncontent-length: 2\r\n\r\nok`);
        end = head.indexOf('\r\n\r\n');
      }
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, received };
}

describe('createVarnishPurger', () => {
  it('sends PURGE / with the tags in xkey, space-separated', async () => {
    const varnish = await standIn();
    await createVarnishPurger({ url: varnish.url }).purge(['/api/books/1', '/api/books']);
    expect(varnish.received).toMatchObject([
      { method: 'PURGE', url: '/', headers: { xkey: '/api/books/1 /api/books' } },
    ]);
  });

  it('sends BAN / with a regular expression without spaces or quotes, special characters in brackets', async () => {
    const varnish = await standIn();
    await createVarnishPurger({ url: varnish.url, mode: 'ban' }).purge(["/api/books/a.b(1)*'", '/api/books']);
    const pattern = varnish.received[0]!.headers['x-ban-tags']!;
    expect(varnish.received[0]!.method).toBe('BAN');
    expect(pattern).not.toMatch(/[\s"]/);
    const matches = (header: string) => new RegExp(pattern.replaceAll('[[:blank:]]', '[ \\t]')).test(header);
    expect(matches("/api/books/a.b(1)*', /api/authors")).toBe(true);
    expect(matches('/api/authors, /api/books')).toBe(true);
    // A tag is matched whole: neither a longer one, nor one whose dot stood for another character.
    expect(matches('/api/books/1')).toBe(false);
    expect(matches("/api/books/aXb(1)*'")).toBe(false);
  });

  it('cuts many tags into requests within the header size, to every Varnish', async () => {
    const [first, second] = [await standIn(), await standIn()];
    const tags = Array.from({ length: 100 }, (_, index) => `/api/books/${1000 + index}`);
    await createVarnishPurger({ url: [first.url, second.url], maxHeaderBytes: 300 }).purge(tags);
    for (const varnish of [first, second]) {
      const sent = varnish.received.map((request) => request.headers.xkey!);
      expect(sent.length).toBeGreaterThan(1);
      for (const header of sent) expect(Buffer.byteLength(header)).toBeLessThanOrEqual(300);
      expect(sent.flatMap((header) => header.split(' ')).sort()).toEqual([...tags].sort());
    }
  });

  it('rejects when Varnish refuses, and sends nothing for no tags', async () => {
    const varnish = await standIn(403);
    const purger = createVarnishPurger({ url: varnish.url });
    await expect(purger.purge(['/api/books/1'])).rejects.toThrow(`Varnish at ${varnish.url} answered 403 to PURGE.`);
    await purger.purge([]);
    expect(varnish.received).toHaveLength(1);
  });

  it('refuses options it cannot use', () => {
    expect(() => createVarnishPurger({ url: 'varnish:6081' })).toThrow('"url" must be http(s):// addresses');
    expect(() => createVarnishPurger({ url: [] })).toThrow('"url" names no Varnish');
    expect(() => createVarnishPurger({ url: 'http://v', mode: 'purge' as never })).toThrow('"mode" must be');
    expect(() => createVarnishPurger({ url: 'http://v', maxHeaderBytes: 10 })).toThrow('"maxHeaderBytes"');
  });
});
