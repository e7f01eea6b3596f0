import { buildApp } from './app.js';

// DATABASE_URL: sqlite:/path/file.db (the default: var/app.db), sqlite::memory: or postgres://user@host:5432/db.
const app = await buildApp({ database: process.env.DATABASE_URL ?? 'sqlite:var/app.db', logger: true });
const port = Number(process.env.PORT ?? 8000);
const host = process.env.HOST ?? '127.0.0.1';
await app.listen({ host, port });
console.log(`API on http://${host}:${port}/api`);
