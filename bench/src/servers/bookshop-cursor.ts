/**
 * The W4 variant of the example app with Book's collection paged by cursor (keyset on the id), for W8, on
 * `BENCH_DATABASE`.
 */
import { JWT_SECRET } from '../data.js';
import { buildEmbedApp } from '../embed-app.js';
import { serve, setting } from './serve.js';

await serve(() => buildEmbedApp({ database: setting('BENCH_DATABASE'), jwtSecret: JWT_SECRET, paging: 'cursor' }));
