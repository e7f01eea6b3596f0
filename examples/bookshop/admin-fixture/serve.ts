/**
 * Test fixture: builds API Platform Admin (unmodified, `main.js`) with Vite, and serves it on 127.0.0.1 together with
 * an API, on one origin: `/api…` is passed through to the API as it is (Host header included, so the API's absolute
 * URLs name this origin), everything else is a file of the build. Not shipped with the framework.
 */
import { readFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Builds the admin into a fresh temporary directory; returns it. */
export async function buildAdmin(): Promise<string> {
  const { build } = await import('vite');
  const outDir = await mkdtemp(join(tmpdir(), 'bookshop-admin-'));
  await build({
    root,
    logLevel: 'error',
    configFile: false,
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 4096 },
  });
  return outDir;
}

export interface AdminServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the built admin and passes `/api…` and `/.well-known/mercure` to the API listening at `apiPort`. */
export async function serveAdmin(options: { readonly dir: string; readonly apiPort: number }): Promise<AdminServer> {
  const server: Server = createServer((incoming, outgoing) => {
    const url = incoming.url ?? '/';
    // The API, and its Mercure hub (the Link header names it on this origin): the admin's lists follow it.
    if (
      url === '/api' ||
      url.startsWith('/api/') ||
      url.startsWith('/api?') ||
      url.startsWith('/.well-known/mercure')
    ) {
      const forward = request(
        { host: '127.0.0.1', port: options.apiPort, method: incoming.method, path: url, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on('error', () => outgoing.writeHead(502).end());
      incoming.pipe(forward);
      return;
    }
    const path = normalize(url.split('?')[0]!).replace(/^(\.\.[/\\])+/, '');
    const file = join(options.dir, path === '/' ? 'index.html' : path);
    readFile(file).then(
      (body) =>
        outgoing.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => outgoing.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(options.dir, { recursive: true, force: true });
    },
  };
}
