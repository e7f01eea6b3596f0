/**
 * mysql2's connection settings from a URL, in a module of its own: the baseline server imports it, and must not load
 * the example app (as `data.ts` does) — that would count the framework's modules in the baseline's memory and start-up.
 */
import type { Knex } from 'knex';

/** mysql2's connection settings for a database of the server a `mysql://` or `mariadb://` URL names. */
export function mariadbConnection(url: string, database?: string): Knex.MySql2ConnectionConfig {
  const parsed = new URL(url.replace(/^mariadb:/, 'mysql:'));
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username) || 'root',
    password: decodeURIComponent(parsed.password),
    ...(database ? { database } : {}),
    charset: 'utf8mb4',
  };
}
