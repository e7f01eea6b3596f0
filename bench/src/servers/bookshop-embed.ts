/** The example app with Book's collection embedding the author (see `embed-app.ts`), for W4, on `BENCH_DATABASE`. */
import { JWT_SECRET } from '../data.js';
import { buildEmbedApp } from '../embed-app.js';
import { serve, setting } from './serve.js';

await serve(() => buildEmbedApp({ database: setting('BENCH_DATABASE'), jwtSecret: JWT_SECRET }));
