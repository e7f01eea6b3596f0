/**
 * The example app with Book declared as in the W4 variant but with the bookshop's own bodies, and, by `BENCH_HOOK`, a
 * write hook that does nothing (`afterCommit` or `afterWrite`; `none`: no hook): W5-hook measures what a hook costs a
 * write, on `BENCH_DATABASE`.
 */
import { JWT_SECRET } from '../data.js';
import { buildEmbedApp, type WriteHookKind } from '../embed-app.js';
import { serve, setting } from './serve.js';

await serve(() =>
  buildEmbedApp({
    database: setting('BENCH_DATABASE'),
    jwtSecret: JWT_SECRET,
    embed: false,
    hook: setting('BENCH_HOOK') as WriteHookKind,
  }),
);
