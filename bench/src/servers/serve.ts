/**
 * What every bench server shares: it reads its settings from the environment the runner gives it, listens on
 * 127.0.0.1 at `BENCH_PORT`, and closes on SIGTERM / SIGINT, or when the runner goes away.
 */
import type { FastifyInstance } from 'fastify';

export function setting(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set (the bench runner sets it).`);
  return value;
}

export async function serve(build: () => Promise<FastifyInstance>): Promise<void> {
  const port = Number(setting('BENCH_PORT'));
  let app: FastifyInstance | undefined;
  const close = () => {
    const closing = app ? app.close() : Promise.resolve();
    closing.then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
  // The runner holds the other end of stdin: when it dies, the server does not stay behind.
  process.stdin.on('end', close).resume();
  try {
    app = await build();
    await app.listen({ host: '127.0.0.1', port });
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
