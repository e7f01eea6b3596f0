/**
 * The contract's "HTTP caching" with everything on, as a deployment runs it: Varnish in front (the VCL the framework
 * ships, purged by tag with xkey: `VARNISH_URL`), two compiled servers (`node dist/main.js`) behind it on one
 * PostgreSQL schema, each with its in-process cache (`HTTP_CACHE=memory`), purging each other's through
 * `LISTEN/NOTIFY`; and the same on one MariaDB database, purging each other's through Redis (`REDIS_URL`). Public
 * reads come from Varnish; a write through either server, or through Varnish, purges Varnish and both in-process
 * caches before it is answered; no read that started after a write's answer shows an older body.
 *
 * Needs PostgreSQL, MariaDB, Redis and Varnish (with varnish-modules): without them the test is skipped with a loud
 * notice, and under `CI=true` it fails (`.ci/run` installs Varnish).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, openDatabase } from '@resource-api/core';
import { runNeverStale } from '../../../packages/core/test/http-cache/never-stale.js';
import { type RunningVarnish, startVarnish, varnishAvailable } from '../../../packages/core/test/http-cache/varnish.js';
import { dropTestSchema } from '@resource-api/core/testing';
import { REDIS_URL, redisAvailable } from '../../../packages/core/test/redis.js';
import { ensureBuilt, freePort, mainJs, type Started, startNode } from './compiled.js';
import { ADMIN, TEST_JWT_SECRET } from './support.js';

const POSTGRES_URL = inject('postgresUrl');
const MARIADB_URL = inject('mariadbUrl');
for (const [name, reachable] of [
  ['PostgreSQL', POSTGRES_URL],
  ['MariaDB', MARIADB_URL],
  ['Redis', redisAvailable],
] as const) {
  if (reachable) continue;
  if (process.env.CI === 'true') throw new Error(`${name} is unreachable and CI=true: the Varnish test must run.`);
  console.warn(`\n*** ${name} is unreachable: the bookshop behind Varnish (two instances) on it is SKIPPED. ***\n`);
}

/** The two ways the instances reach each other: PostgreSQL's LISTEN/NOTIFY, or Redis on MariaDB. */
interface Setup {
  readonly title: string;
  readonly url: string | undefined;
  databaseUrl(schema: string): string;
  readonly env: Record<string, string>;
}
const allSetups: Setup[] = [
  {
    title: 'PostgreSQL',
    url: POSTGRES_URL,
    // A schema of its own, named in the URL's search path.
    databaseUrl: (schema) => `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    env: {},
  },
  {
    title: 'MariaDB',
    url: redisAvailable ? MARIADB_URL : '',
    // A database of its own, named in the URL's path.
    databaseUrl: (schema) => {
      const url = new URL(MARIADB_URL!);
      url.pathname = `/${schema}`;
      return url.toString();
    },
    env: { REDIS_URL },
  },
];
const setups = allSetups.filter((setup) => setup.url);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Whether Varnish answered from its cache: `X-Varnish` then names this request and the one that stored it. */
const fromVarnish = (response: Response) => /^\d+ \d+$/.test(response.headers.get('x-varnish') ?? '');

async function startServer(env: Record<string, string>): Promise<{ server: Started; origin: string }> {
  const port = await freePort();
  const server = startNode(mainJs, { ...env, PORT: String(port) });
  const deadline = Date.now() + 30_000;
  while (!server.output().includes('Bookshop API listening')) {
    if (server.child.exitCode !== null) throw new Error(`The server exited:\n${server.output()}`);
    if (Date.now() > deadline) throw new Error(`The server did not listen within 30 s:\n${server.output()}`);
    await sleep(50);
  }
  return { server, origin: `http://127.0.0.1:${port}` };
}

describe.skipIf(!varnishAvailable).each(setups)('the bookshop behind Varnish, two instances on $title', (setup) => {
  const schema = `varnish_${randomBytes(5).toString('hex')}`;
  let database: Database | undefined;
  const servers: { server: Started; origin: string }[] = [];
  let varnish: RunningVarnish | undefined;
  let token = '';

  beforeAll(async () => {
    await ensureBuilt();
    database = await openDatabase({ url: setup.url!, schema });
    const varnishPort = await freePort();
    const env = {
      HOST: '127.0.0.1',
      DATABASE_URL: setup.databaseUrl(schema),
      ...setup.env,
      JWT_SECRET: TEST_JWT_SECRET,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '0',
      HTTP_CACHE: 'memory',
      VARNISH_URL: `http://127.0.0.1:${varnishPort}`,
    };
    // One after the other: the first creates the schema.
    servers.push(await startServer(env));
    servers.push(await startServer(env));
    varnish = await startVarnish(
      servers.map((server) => server.origin),
      varnishPort,
    );
    const login = await fetch(`${servers[0]!.origin}/api/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    token = ((await login.json()) as { token: string }).token;
  }, 180_000);

  afterAll(async () => {
    try {
      await varnish?.stop();
      for (const { server } of servers) {
        server.child.kill('SIGTERM');
        await server.exit;
      }
    } finally {
      if (database) await dropTestSchema(database.knex, schema);
      await database?.close();
    }
  }, 60_000);

  const admin = () => ({ authorization: `Bearer ${token}` });

  it('serves public reads from Varnish and purges them before a write is answered', async () => {
    const created = await fetch(`${varnish!.origin}/api/authors`, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json', ...admin() },
      body: JSON.stringify({ name: 'Ursula K. Le Guin' }),
    });
    expect(created.status).toBe(201);
    const iri = ((await created.json()) as { '@id': string })['@id'];
    const first = await fetch(`${varnish!.origin}${iri}`);
    expect(first.headers.get('cache-control')).toBe('public, s-maxage=3600, max-age=0');
    expect(first.headers.get('cache-tags')).toContain(iri);
    const again = await fetch(`${varnish!.origin}${iri}`);
    expect(fromVarnish(again)).toBe(true);
    // A caller with credentials goes past Varnish, and gets a private answer.
    const mine = await fetch(`${varnish!.origin}${iri}`, { headers: admin() });
    expect(fromVarnish(mine)).toBe(false);
    expect(mine.headers.get('cache-control')).toBe('private, no-store');

    // A write straight to the second server: Varnish and both in-process caches are purged before its answer.
    for (const { origin } of servers) await fetch(`${origin}${iri}`);
    const renamed = await fetch(`${servers[1]!.origin}${iri}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json', ...admin() },
      body: JSON.stringify({ name: 'Ursula Kroeber Le Guin' }),
    });
    expect(renamed.status).toBe(200);
    const through = await fetch(`${varnish!.origin}${iri}`);
    expect(fromVarnish(through)).toBe(false);
    expect(await through.json()).toMatchObject({ name: 'Ursula Kroeber Le Guin' });
    // Both in-process caches showed the older name: each now shows the new one (from its cache, if the read through
    // Varnish above went to it).
    for (const { origin } of servers)
      expect(await (await fetch(`${origin}${iri}`)).json()).toMatchObject({ name: 'Ursula Kroeber Le Guin' });
  });

  it('never answers a read that started after a write’s answer with an older body', async () => {
    const run = await runNeverStale({
      writeTo: [varnish!.origin, ...servers.map((server) => server.origin)],
      readFrom: [varnish!.origin, ...servers.map((server) => server.origin)],
      writes: 40,
      readers: 4,
      writeHeaders: admin(),
    });
    expect(run.stale).toEqual([]);
    expect(run.hits).toBeGreaterThan(0);
  });
});
