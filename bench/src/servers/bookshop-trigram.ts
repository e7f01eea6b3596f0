/**
 * The example app's bodies (no embedding) with a trigram index on Book's title search, for W2-index, on
 * `BENCH_DATABASE`.
 */
import { JWT_SECRET } from '../data.js';
import { buildEmbedApp } from '../embed-app.js';
import { serve, setting } from './serve.js';

await serve(() =>
  buildEmbedApp({ database: setting('BENCH_DATABASE'), jwtSecret: JWT_SECRET, embed: false, substringIndex: true }),
);
