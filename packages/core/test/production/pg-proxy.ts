/**
 * A TCP proxy to PostgreSQL that a test can cut (every live connection reset, new ones refused) and restore: the
 * database becoming unreachable and coming back, without stopping the server other tests share.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface PgProxy {
  /** The database URL through the proxy. */
  readonly url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Cuts it for good (a no-op when already cut). */
  close(): Promise<void>;
}

export async function proxyTo(target: URL): Promise<PgProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const cut = async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const url = new URL(target.href);
  url.host = `127.0.0.1:${port}`;
  return { url: url.href, cut, restore: () => listen(port), close: cut };
}
