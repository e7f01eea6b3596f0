/** Settings read from the environment, shared by the server (`main.ts`) and the demo data command. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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

/** The default file of the development JWT secret, generated once and kept: `examples/bookshop/var/jwt-secret`. */
export const DEFAULT_SECRET_FILE = fileURLToPath(new URL('../var/jwt-secret', import.meta.url));

/**
 * `JWT_SECRET` (HS256). In production (`NODE_ENV=production`) it is required. In development, when unset, a random one
 * is generated once, kept in `var/jwt-secret` and reused, with a warning.
 */
export function jwtSecret(env: NodeJS.ProcessEnv = process.env, file = DEFAULT_SECRET_FILE, warn: (message: string) => void = console.warn): string {
  const secret = env.JWT_SECRET?.trim();
  if (secret) {
    if (Buffer.byteLength(secret) < 32) throw new Error('JWT_SECRET must be at least 32 bytes long.');
    return secret;
  }
  if (env.NODE_ENV === 'production') throw new Error('JWT_SECRET is required when NODE_ENV=production: the app refuses to start without it.');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const generated = randomBytes(48).toString('base64url');
  writeFileSync(file, generated, { mode: 0o600 });
  warn(`JWT_SECRET is not set: generated a development secret in ${file}. Set JWT_SECRET in production.`);
  return generated;
}

/** `JWT_TTL`: token lifetime in seconds (default 3600). */
export function jwtTtl(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.JWT_TTL?.trim() || '3600';
  if (!/^[1-9][0-9]*$/.test(raw)) throw new Error(`JWT_TTL "${raw}" must be a positive number of seconds.`);
  return Number(raw);
}

/** `ADMIN_EMAIL` + `ADMIN_PASSWORD`: the first admin, created (or its password updated) at start. */
export function firstAdmin(env: NodeJS.ProcessEnv = process.env): { email: string; password: string } | undefined {
  const email = env.ADMIN_EMAIL?.trim();
  const password = env.ADMIN_PASSWORD;
  if (!email && !password) return undefined;
  if (!email || !password) throw new Error('ADMIN_EMAIL and ADMIN_PASSWORD go together.');
  return { email, password };
}
