/**
 * Several instances behind a load balancer behave as one: two compiled servers (`node dist/main.js`, as a deployment
 * runs them, with `NODE_ENV=production`) on one PostgreSQL schema, or one MariaDB database, migrated first by
 * `dist/migrations.js`, with one
 * JWT secret and one Redis rate-limit store. Whatever one instance writes, the other reads; concurrent creates split
 * across both are each stored once; a unique e-mail registered through both at once is stored once; If-Match holds
 * across them; a token of one is good on the other; the login limit counts the attempts made on both; each keeps
 * its pool within `DATABASE_POOL_MAX`.
 *
 * PostgreSQL and MariaDB are each required (SQLite is one file for one machine, see docs/deployment.md); without one,
 * its half is skipped with a loud notice, and under `CI=true` it fails (as the global setup does). Redis
 * (127.0.0.1:6379, `TEST_REDIS_URL`) likewise for the rate-limit check.
 */
import { dropTestSchema } from '@resource-api/core/testing';
import { randomBytes, randomInt } from 'node:crypto';
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, DeclarationError, openDatabase } from '@resource-api/core';
import { buildBookshop } from '../src/app.js';
import { ensureBuilt, freePort, mainJs, root, type Started, startNode } from './compiled.js';
import { TEST_JWT_SECRET } from './support.js';

const POSTGRES_URL = inject('postgresUrl');
const MARIADB_URL = inject('mariadbUrl');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const POOL_MAX = 4;
const LOGIN_MAX = 3;

/** Whether Redis answers PING at `url`, over a bare socket (the bookshop has no Redis client of its own). */
async function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379), timeout: 1000 });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

for (const [name, url] of [
  ['PostgreSQL', POSTGRES_URL],
  ['MariaDB', MARIADB_URL],
] as const) {
  if (url) continue;
  if (process.env.CI === 'true') throw new Error(`${name} is unreachable and CI=true: the scale-out test must run.`);
  console.warn(`\n*** ${name} is unreachable: the scale-out test (two instances on one database) is SKIPPED. ***\n`);
}
const redisAvailable = await redisAnswers(REDIS_URL);
if (!redisAvailable) {
  if (process.env.CI === 'true')
    throw new Error(`Redis is unreachable at ${REDIS_URL} and CI=true: the shared rate-limit store must be tested.`);
  console.warn(
    `\n*** Redis is unreachable at ${REDIS_URL}: the scale-out check of the shared rate limit is SKIPPED. ***\n`,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A made-up client address for `X-Forwarded-For` (the servers trust the proxy), so rate-limit counts start at 0. */
const clientAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

interface Instance {
  readonly name: string;
  readonly server: Started;
  readonly base: string;
}

async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const server = startNode(mainJs, { ...env, PORT: String(port) });
  const deadline = Date.now() + 30_000;
  while (!server.output().includes('Bookshop API listening')) {
    if (server.child.exitCode !== null)
      throw new Error(`Instance ${name} exited with ${server.child.exitCode}:\n${server.output()}`);
    if (Date.now() > deadline) throw new Error(`Instance ${name} did not listen within 30 s:\n${server.output()}`);
    await sleep(50);
  }
  return { name, server, base: `http://127.0.0.1:${port}` };
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.server.child.exitCode !== null || instance.server.child.signalCode !== null) return;
  instance.server.child.kill('SIGTERM');
  expect(await instance.server.exit, instance.server.output()).toBe(0);
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON body, read freely by the assertions
  readonly body: any;
}

/** One JSON request to an instance; the body parsed when there is one. */
async function send(
  instance: Instance,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const type = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  const response = await fetch(`${instance.base}${path}`, {
    method,
    headers: {
      accept: 'application/ld+json',
      ...(options.body === undefined ? {} : { 'content-type': type }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** `POST /api/auth` from an address of its own (logins are rate limited per address); the token. */
async function login(instance: Instance, email: string, password: string): Promise<string> {
  const answer = await send(instance, 'POST', '/api/auth', {
    body: { email, password },
    headers: { 'x-forwarded-for': clientAddress() },
  });
  if (answer.status !== 200)
    throw new Error(`Login on ${instance.name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.token as string;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * How the test reaches each server: the URL an instance gets (its own name on its connections, so the test can count
 * them), the migrations the bookshop has for it, and the instances' open connections by name.
 */
interface Server {
  readonly title: string;
  readonly url: string | undefined;
  readonly migrations: number;
  /** Makes what naming the instances' connections needs; undoes it. */
  prepare(database: Database, schema: string): Promise<() => Promise<void>>;
  instanceUrl(schema: string, name: string): string;
  connections(database: Database, schema: string): Promise<number[]>;
}

const servers: Server[] = [
  {
    title: 'PostgreSQL',
    url: POSTGRES_URL,
    // The initial schema, then Article's published/publishedAt and the audit trail, the framework's refresh tokens and
    // user columns, the unique index on lower(email), Article's timestamps, media objects and soft-deleted comments.
    migrations: 7,
    prepare: async () => async () => {},
    // A schema of its own, named in the URL's search path; each instance names its connections (application_name).
    instanceUrl: (schema, name) =>
      `${POSTGRES_URL}?application_name=${schema}_${name}&options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async connections(database, schema) {
      const { rows } = (await database.knex.raw(
        'SELECT application_name AS name, count(*)::int AS connections FROM pg_stat_activity WHERE application_name IN (?, ?) GROUP BY application_name',
        [`${schema}_a`, `${schema}_b`],
      )) as { rows: { name: string; connections: number }[] };
      return rows.map((row) => row.connections);
    },
  },
  {
    title: 'MariaDB',
    url: MARIADB_URL,
    // MariaDB came after every change of the schema: one migration makes it as it is today.
    migrations: 1,
    // MariaDB names a connection by its user: each instance logs in as a user of its own, granted the database.
    async prepare(database, schema) {
      const users = ['a', 'b', 'migrate'].map((name) => `${schema}_${name}`);
      for (const user of users) {
        await database.knex.raw("CREATE USER ?@'%'", [user]);
        await database.knex.raw("GRANT ALL PRIVILEGES ON ??.* TO ?@'%'", [schema, user]);
      }
      return async () => {
        for (const user of users) await database.knex.raw("DROP USER IF EXISTS ?@'%'", [user]);
      };
    },
    instanceUrl(schema, name) {
      const url = new URL(MARIADB_URL!);
      url.username = `${schema}_${name}`;
      url.password = '';
      url.pathname = `/${schema}`;
      return url.toString();
    },
    async connections(database, schema) {
      const [rows] = (await database.knex.raw(
        'SELECT user AS name, count(*) AS connections FROM information_schema.processlist WHERE user IN (?, ?) GROUP BY user',
        [`${schema}_a`, `${schema}_b`],
      )) as [{ name: string; connections: number }[]];
      return rows.map((row) => Number(row.connections));
    },
  },
];

describe.each(servers.filter((server) => server.url))(
  'two instances of the bookshop on one $title database',
  (server) => {
    const SERVER_URL = server.url!;
    const schema = `scale_out_${randomBytes(5).toString('hex')}`;
    // An admin of this run's own: the login limit counts per e-mail address in Redis, which every run shares.
    const ADMIN = { email: `admin-${schema}@example.com`, password: 'scale-admin-password' };
    let database: Database | undefined;
    let unprepare: () => Promise<void> = async () => {};
    let a: Instance | undefined;
    let b: Instance | undefined;
    const A = () => a!;
    const B = () => b!;

    beforeAll(async () => {
      await ensureBuilt();
      // A schema (database) of its own: the servers and the migration command see only it.
      database = await openDatabase({ url: SERVER_URL, schema });
      unprepare = await server.prepare(database, schema);
      const url = (name: string) => server.instanceUrl(schema, name);
      const DATABASE_URL = url('migrate');
      const migrated = await promisify(execFile)(
        process.execPath,
        [join(root, 'examples/bookshop/dist/migrations.js'), 'run'],
        {
          cwd: root,
          env: { PATH: process.env.PATH ?? '', DATABASE_URL },
          timeout: 60_000,
        },
      );
      expect(migrated.stdout).toContain(`Ran ${server.migrations} migration(s)`);

      const env = {
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        DATABASE_URL,
        DATABASE_POOL_MAX: String(POOL_MAX),
        JWT_SECRET: TEST_JWT_SECRET,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        LOG_LEVEL: 'warn',
        TRUST_PROXY: 'true',
        RATE_LIMIT_MAX: '100000',
        RATE_LIMIT_LOGIN_MAX: String(LOGIN_MAX),
        ...(redisAvailable ? { REDIS_URL } : {}),
      };
      // Both at once, as a deployment of several replicas starts them: each creates the first admin when it finds none.
      [a, b] = await Promise.all([
        startInstance('A', { ...env, DATABASE_URL: url('a') }),
        startInstance('B', { ...env, DATABASE_URL: url('b') }),
      ]);
    }, 180_000);

    afterAll(async () => {
      try {
        await Promise.all([stopInstance(a), stopInstance(b)]);
      } finally {
        if (database) {
          await unprepare();
          await dropTestSchema(database.knex, schema);
        }
        await database?.close();
      }
    }, 60_000);

    it('started together, both find or create the one first admin', async () => {
      expect(await database!.knex('user').where('email', ADMIN.email).count({ count: '*' })).toEqual([{ count: 1 }]);
    });

    it('reads through B what was written through A, and the other way round', async () => {
      const created = await send(A(), 'POST', '/api/authors', { body: { name: 'Ursula K. Le Guin' } });
      expect(created.status).toBe(201);
      const read = await send(B(), 'GET', created.body['@id']);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);

      const changed = await send(B(), 'PATCH', created.body['@id'], { body: { name: 'Ursula Kroeber Le Guin' } });
      expect(changed.status).toBe(200);
      expect((await send(A(), 'GET', created.body['@id'])).body.name).toBe('Ursula Kroeber Le Guin');

      expect((await send(A(), 'DELETE', created.body['@id'])).status).toBe(204);
      expect((await send(B(), 'GET', created.body['@id'])).status).toBe(404);
    });

    it('accepts on B a token issued by A, and on A a token issued by B', async () => {
      const adminToken = await login(A(), ADMIN.email, ADMIN.password);
      const users = await send(B(), 'GET', '/api/users', { headers: bearer(adminToken) });
      expect(users.status).toBe(200);
      expect(users.body['hydra:member']).toContainEqual(expect.objectContaining({ email: ADMIN.email }));

      const registered = await send(B(), 'POST', '/api/users', {
        body: { email: 'reader@example.com', plainPassword: 'a reader password' },
      });
      expect(registered.status).toBe(201);
      const userToken = await login(B(), 'reader@example.com', 'a reader password');
      const self = await send(A(), 'GET', registered.body['@id'], { headers: bearer(userToken) });
      expect(self.status).toBe(200);
      expect(self.body.email).toBe('reader@example.com');
      // And what the token may not do, it may not do on either instance.
      for (const instance of [A(), B()])
        expect((await send(instance, 'GET', '/api/users', { headers: bearer(userToken) })).status).toBe(403);
    });

    it('stores each of 200 concurrent creates, alternating between A and B, exactly once', async () => {
      const author = await send(A(), 'POST', '/api/authors', { body: { name: 'Stanisław Lem' } });
      expect(author.status).toBe(201);
      const titles = Array.from({ length: 200 }, (_, i) => `Concurrent book ${String(i).padStart(3, '0')}`);
      const answers = await Promise.all(
        titles.map((title, i) =>
          send(i % 2 === 0 ? A() : B(), 'POST', '/api/books', { body: { title, author: author.body['@id'] } }),
        ),
      );

      expect(answers.map((answer) => answer.status)).toEqual(titles.map(() => 201));
      expect(answers.map((answer) => answer.body.title)).toEqual(titles);
      expect(new Set(answers.map((answer) => answer.body['@id'])).size).toBe(200);

      const rows = (await database!.knex('book').select('id', 'title').where('author_id', author.body.id)) as {
        id: number;
        title: string;
      }[];
      expect(rows).toHaveLength(200);
      expect(rows.map((row) => row.title).sort()).toEqual(titles);
      expect(rows.map((row) => `/api/books/${row.id}`).sort()).toEqual(
        answers.map((answer) => answer.body['@id']).sort(),
      );
      for (const instance of [A(), B()]) {
        const page = await send(instance, 'GET', `/api/books?author=${encodeURIComponent(author.body['@id'])}`);
        expect(page.body['hydra:totalItems'], instance.name).toBe(200);
      }
    });

    it('keeps each instance within DATABASE_POOL_MAX connections, however many requests wait', async () => {
      // After the 200 concurrent creates, each pool still holds the connections it opened (idle ones stay for 30 s):
      // a hundred requests at once filled it to its maximum, and not beyond.
      const counts = await server.connections(database!, schema);
      expect(counts.length).toBeGreaterThan(0);
      for (const count of counts) expect(count).toBeLessThanOrEqual(POOL_MAX);
      expect(Math.max(...counts)).toBe(POOL_MAX);
    });

    it('registers an e-mail sent to A and B at once exactly once: one 201, one 400', async () => {
      for (let round = 0; round < 5; round++) {
        const email = `race-${round}@example.com`;
        const answers = await Promise.all(
          [A(), B()].map((instance) =>
            send(instance, 'POST', '/api/users', { body: { email, plainPassword: 'a racing password' } }),
          ),
        );
        expect(answers.map((answer) => answer.status).sort(), `round ${round}`).toEqual([201, 400]);
        const refused = answers.find((answer) => answer.status === 400)!;
        expect(refused.body).toMatchObject({
          '@type': 'ConstraintViolationList',
          violations: [{ propertyPath: 'email', message: 'This value is already used.' }],
        });
        expect(await database!.knex('user').where('email', email).count({ count: '*' })).toEqual([{ count: 1 }]);
      }
    });

    it('refuses with 412 on B an update whose If-Match A has made stale, and lets one of two concurrent updates win', async () => {
      const author = await send(A(), 'POST', '/api/authors', { body: { name: 'Octavia E. Butler' } });
      const book = await send(A(), 'POST', '/api/books', { body: { title: 'Kindred', author: author.body['@id'] } });
      const iri = book.body['@id'] as string;
      const [viaA, viaB] = await Promise.all([send(A(), 'GET', iri), send(B(), 'GET', iri)]);
      const etag = viaA.headers.get('etag');
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(viaB.headers.get('etag')).toBe(etag);

      const updated = await send(A(), 'PATCH', iri, {
        body: { title: 'Kindred (1979)' },
        headers: { 'if-match': etag! },
      });
      expect(updated.status).toBe(200);
      const stale = await send(B(), 'PATCH', iri, {
        body: { title: 'Parable of the Sower' },
        headers: { 'if-match': etag! },
      });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ status: 412 });
      const current = await send(B(), 'GET', iri);
      expect(current.body.title).toBe('Kindred (1979)');
      expect(current.headers.get('etag')).toBe(updated.headers.get('etag'));

      // Both instances at once with the same, current ETag: the check is atomic with the write, so one wins.
      const fresh = current.headers.get('etag')!;
      const racing = await Promise.all(
        [A(), B()].map((instance) =>
          send(instance, 'PATCH', iri, {
            body: { title: `Written through ${instance.name}` },
            headers: { 'if-match': fresh },
          }),
        ),
      );
      expect(racing.map((answer) => answer.status).sort()).toEqual([200, 412]);
      const winner = racing.find((answer) => answer.status === 200)!;
      expect((await send(A(), 'GET', iri)).body.title).toBe(winner.body.title);
    });

    it.skipIf(!redisAvailable)('counts login attempts made on A and on B against one limit, in Redis', async () => {
      const address = { 'x-forwarded-for': clientAddress() };
      // An account no other test logs in to: the login is counted per e-mail address too, whatever the client address.
      const email = `guessed-${randomBytes(4).toString('hex')}@example.com`;
      const attempt = (instance: Instance) =>
        send(instance, 'POST', '/api/auth', { body: { email, password: 'a wrong guess' }, headers: address });
      // LOGIN_MAX (3) attempts allowed in the window, whichever instance gets them: A, B, A; then both refuse.
      const statuses = [];
      for (const instance of [A(), B(), A(), B(), A()]) statuses.push((await attempt(instance)).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const limited = await attempt(B());
      expect(limited.status).toBe(429);
      expect(limited.headers.get('x-ratelimit-limit')).toBe(String(LOGIN_MAX));
      // Another address still has its own count, but not for that account: its own count is spent on every instance.
      expect(
        (
          await send(B(), 'POST', '/api/auth', {
            body: { email: ADMIN.email, password: 'a wrong guess' },
            headers: { 'x-forwarded-for': clientAddress() },
          })
        ).status,
      ).toBe(401);
      expect(
        (
          await send(A(), 'POST', '/api/auth', {
            body: { email, password: 'a wrong guess' },
            headers: { 'x-forwarded-for': clientAddress() },
          })
        ).status,
      ).toBe(429);
    });
  },
);

describe('the pool size option', () => {
  it('refuses a databasePoolMax that is not a whole number from 1 up, naming it', async () => {
    for (const databasePoolMax of [0, 2.5, -1]) {
      await expect(
        buildBookshop({ database: 'sqlite::memory:', jwtSecret: TEST_JWT_SECRET, databasePoolMax }),
      ).rejects.toThrow(
        new DeclarationError(
          `databasePoolMax must be a whole number of connections from 1 up, got ${databasePoolMax}.`,
        ),
      );
    }
  });

  it.each(servers.filter((server) => server.url))(
    'gives the $title pool that many connections at most, 10 by default',
    async (server) => {
      for (const [databasePoolMax, expected] of [
        [undefined, 10],
        [3, 3],
      ] as const) {
        const schema = `pool_${randomBytes(5).toString('hex')}`;
        const app = await buildBookshop({
          database: server.url!,
          databaseSchema: schema,
          jwtSecret: TEST_JWT_SECRET,
          ...(databasePoolMax ? { databasePoolMax } : {}),
        });
        try {
          const { knex } = app.resourceApi.database;
          expect((knex.client as { pool: { max: number } }).pool.max).toBe(expected);
          await dropTestSchema(knex, schema);
        } finally {
          await app.close();
        }
      }
    },
  );
});
