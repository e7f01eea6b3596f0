/**
 * The example app, as `buildBookshop` builds it (no request log), on the database the runner names:
 * `BENCH_DATABASE` (`sqlite:/file` or `postgres://…`) and, for PostgreSQL, `BENCH_SCHEMA`; `BENCH_HTTP_CACHE=memory`
 * turns the in-process HTTP cache on (`bookshop-cache`).
 */
import { buildBookshop } from 'bookshop/dist/app.js';
import { JWT_SECRET } from '../data.js';
import { serve, setting } from './serve.js';

const schema = process.env.BENCH_SCHEMA;
await serve(() =>
  buildBookshop({
    database: setting('BENCH_DATABASE'),
    ...(schema ? { databaseSchema: schema } : {}),
    jwtSecret: JWT_SECRET,
    ...(process.env.BENCH_HTTP_CACHE === 'memory' ? { httpCache: 'memory' as const } : {}),
  }),
);
