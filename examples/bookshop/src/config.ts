/** Settings read from the environment, shared by the server (`main.ts`) and the demo data command. */
import { fileURLToPath } from 'node:url';

/** The default database: an SQLite file under `examples/bookshop/var/`, whatever the working directory. */
export const DEFAULT_DATABASE_URL = `sqlite:${fileURLToPath(new URL('../var/bookshop.db', import.meta.url))}`;

/** `DATABASE_URL` (`postgres://…`, `sqlite:/path/file.db`, `sqlite::memory:`), or the default SQLite file. */
export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL?.trim();
  if (!url) return DEFAULT_DATABASE_URL;
  if (!/^(postgres(ql)?:\/\/|sqlite:)/.test(url)) {
    throw new Error(`DATABASE_URL "${url}" is not supported: use postgres://user@host:5432/db, sqlite:/path/file.db or sqlite::memory:.`);
  }
  return url;
}

/** `HOST` (default 127.0.0.1) and `PORT` (default 8000). */
export function listenAddress(env: NodeJS.ProcessEnv = process.env): { host: string; port: number } {
  const host = env.HOST?.trim() || '127.0.0.1';
  const raw = env.PORT?.trim() || '8000';
  const port = Number(raw);
  if (!/^[0-9]+$/.test(raw) || port < 1 || port > 65535) throw new Error(`PORT "${raw}" must be a number from 1 to 65535.`);
  return { host, port };
}

/** A database URL without its password, for logs. */
export const redact = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
