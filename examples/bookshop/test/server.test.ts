/**
 * The compiled server as a person starts it: `node examples/bookshop/dist/main.js` in a child process, reached over
 * real HTTP with fetch, then stopped with SIGTERM. Builds the workspace first (`pnpm -r build`) when the build is
 * missing or older than the sources. Started with `JWT_SECRET`, `JWT_TTL` and the first admin (`ADMIN_EMAIL`,
 * `ADMIN_PASSWORD`) from the environment. Also the settings it reads from the environment.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, databaseUrl, DEFAULT_DATABASE_URL, listenAddress, loadConfig } from '../src/config.js';
import { ensureBuilt, freePort, mainJs, root, type Started, startNode } from './compiled.js';

const ADMIN_EMAIL = 'root@example.com';
const ADMIN_PASSWORD = 'server-admin-password';

describe('the compiled server started with node', () => {
  let server: Started | undefined;
  let port = 0;
  const output = () => server?.output() ?? '';

  beforeAll(async () => {
    await ensureBuilt();
    port = await freePort();
    server = startNode(mainJs, {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: 'sqlite::memory:',
      JWT_SECRET: 'a-server-test-secret-that-is-long-enough-0123456789',
      JWT_TTL: '120',
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
    });
    const { child } = server;

    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`The server exited with ${child.exitCode}:\n${output()}`);
      try {
        await fetch(`http://127.0.0.1:${port}/api`);
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`The server did not answer within 20 s:\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 150_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exit;
    }
  });

  it('prints the URL it listens on', () => {
    expect(output()).toContain(`Bookshop API listening on http://127.0.0.1:${port}/api (database: sqlite::memory:)`);
  });

  it('creates an author over HTTP and serves it back', async () => {
    const base = `http://127.0.0.1:${port}`;
    const created = await fetch(`${base}/api/authors`, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json', accept: 'application/ld+json' },
      body: JSON.stringify({ name: 'Octavia E. Butler' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/authors/1');
    expect(created.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
    expect(created.headers.get('link')).toBe(
      `<${base}/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation", <${base}/.well-known/mercure>; rel="mercure"`,
    );
    const author = {
      '@context': '/api/contexts/Author',
      '@id': '/api/authors/1',
      '@type': 'Author',
      id: 1,
      name: 'Octavia E. Butler',
      books: [],
    };
    expect(await created.json()).toEqual(author);

    const book = await fetch(`${base}/api/books`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Kindred', author: '/api/authors/1' }),
    });
    expect(book.status).toBe(201);

    const read = await fetch(`${base}/api/authors/1`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ ...author, books: ['/api/books/1'] });
  });

  it('creates the admin of ADMIN_EMAIL and ADMIN_PASSWORD, whose token of JWT_TTL seconds writes admin-only resources', async () => {
    const base = `http://127.0.0.1:${port}`;
    const category = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Books' }),
    };
    const anonymous = await fetch(`${base}/api/categories`, category);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');

    const wrong = await fetch(`${base}/api/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: 'not the password' }),
    });
    expect(wrong.status).toBe(401);
    const login = await fetch(`${base}/api/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const { token } = (await login.json()) as { token: string };
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    // iat_ms: when it was issued, to the millisecond (a token older than a password or roles change is refused); sid: its login.
    expect(claims).toEqual({
      sub: '1',
      email: ADMIN_EMAIL,
      iat: expect.any(Number),
      iat_ms: expect.any(Number),
      sid: expect.any(String),
      exp: expect.any(Number),
    });
    expect(claims.exp - claims.iat).toBe(120);

    const created = await fetch(`${base}/api/categories`, {
      ...category,
      headers: { ...category.headers, authorization: `Bearer ${token}` },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({
      '@context': '/api/contexts/Category',
      '@id': '/api/categories/1',
      '@type': 'Category',
      id: 1,
      name: 'Books',
    });
    const admin = await fetch(`${base}/api/users/1`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await admin.json()) as { roles: string[] }).roles).toEqual(['ROLE_USER', 'ROLE_SUPER_ADMIN']);
  });

  it('logs requests with pino as JSON lines', () => {
    const lines = output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    const completed = lines
      .map((line) => JSON.parse(line) as { msg?: string; res?: { statusCode: number } })
      .filter((entry) => entry.msg === 'request completed');
    expect(completed.map((entry) => entry.res?.statusCode)).toEqual(expect.arrayContaining([200, 201, 401]));
  });

  it('closes gracefully on SIGTERM and exits with 0', async () => {
    server!.child.kill('SIGTERM');
    expect(await server!.exit).toBe(0);
    expect(output()).toContain('closing the server');
  });
});

describe('the settings read from the environment', () => {
  it('listens on 127.0.0.1:8000 unless HOST and PORT say otherwise', () => {
    expect(listenAddress({})).toEqual({ host: '127.0.0.1', port: 8000 });
    expect(listenAddress({ HOST: '0.0.0.0', PORT: '8080' })).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(() => listenAddress({ PORT: 'eighty' })).toThrow('PORT "eighty" must be a number from 1 to 65535.');
    expect(() => listenAddress({ PORT: '70000' })).toThrow('PORT "70000" must be a number from 1 to 65535.');
  });

  it('keeps its default SQLite file under examples/bookshop/var whatever the working directory', () => {
    expect(DEFAULT_DATABASE_URL).toBe(`sqlite:${join(root, 'examples/bookshop/var/bookshop.db')}`);
    expect(databaseUrl({})).toBe(DEFAULT_DATABASE_URL);
  });

  it('takes DATABASE_URL for PostgreSQL, MariaDB or MySQL, an SQLite file or an in-memory SQLite, and refuses anything else', () => {
    for (const url of [
      'postgres://user@127.0.0.1:5432/db',
      'mysql://root@127.0.0.1:3306/test',
      'mariadb://root@127.0.0.1:3306/test',
      'sqlite:/tmp/shop.db',
      'sqlite::memory:',
    ])
      expect(databaseUrl({ DATABASE_URL: url })).toBe(url);
    expect(() => databaseUrl({ DATABASE_URL: 'oracle://root@localhost/shop' })).toThrow(/is not supported/);
  });
});

describe('loadConfig: every variable of the server, checked at once', () => {
  const SECRET = 'a-config-test-secret-that-is-long-enough-0123';
  const MERCURE_SECRET = 'a-mercure-config-secret-that-is-long-enough-0123';
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bookshop-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `loadConfig` with a secret file of its own, collecting warnings; or the ConfigError it throws. */
  const load = (env: Record<string, string>) => {
    const warnings: string[] = [];
    const secretFile = join(dir, `secret-${Math.random().toString(36).slice(2)}`);
    try {
      return {
        config: loadConfig(env, { secretFile, warn: (message) => warnings.push(message) }),
        warnings,
        secretFile,
      };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return { error, warnings, secretFile };
    }
  };

  it('has a default for everything but the secrets, and generates the development JWT secret', () => {
    const { config, warnings, secretFile } = load({});
    expect(config).toEqual({
      nodeEnv: 'development',
      host: '127.0.0.1',
      port: 8000,
      database: DEFAULT_DATABASE_URL,
      databasePoolMax: 10,
      workers: 1,
      jwtSecret: expect.any(String),
      jwtTtl: 3600,
      jwtRefreshTtl: 2_592_000,
      admin: undefined,
      logLevel: 'info',
      corsOrigins: undefined,
      rateLimit: { max: 300, timeWindow: 60_000, loginMax: 10, redis: undefined },
      trustProxy: false,
      trustedHosts: undefined,
      requestTimeout: 30_000,
      shutdownTimeout: 10_000,
      httpCache: 'off',
      httpCachePurge: { varnish: undefined, redis: undefined },
      mercure: {},
    });
    expect(warnings).toEqual([
      `JWT_SECRET is not set: generated a development secret in ${secretFile}. Set JWT_SECRET in production.`,
    ]);
  });

  it('reads every variable, trimmed, with numbers and booleans converted and durations in milliseconds', () => {
    const { config, warnings } = load({
      NODE_ENV: 'production',
      HOST: ' 0.0.0.0 ',
      PORT: '8080',
      DATABASE_URL: 'postgres://shop:pw@db:5432/shop',
      DATABASE_POOL_MAX: '20',
      WEB_CONCURRENCY: '4',
      JWT_SECRET: SECRET,
      JWT_TTL: '900',
      JWT_REFRESH_TTL: '86400',
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: ' spaces kept ',
      LOG_LEVEL: 'warn',
      CORS_ORIGIN: 'https://admin.example.com, http://localhost:5173',
      RATE_LIMIT_MAX: '50',
      RATE_LIMIT_WINDOW: '10',
      RATE_LIMIT_LOGIN_MAX: '3',
      REDIS_URL: 'redis://cache:6379/0',
      TRUST_PROXY: 'true',
      TRUSTED_HOSTS: ' api.example.com, example.com ',
      REQUEST_TIMEOUT: '5',
      SHUTDOWN_TIMEOUT: '20',
      HTTP_CACHE: ' memory ',
      VARNISH_URL: 'http://varnish-a:6081, http://varnish-b:6081/',
      MERCURE_URL: ' https://hub.example.com/.well-known/mercure ',
      MERCURE_PUBLIC_URL: 'https://example.com/.well-known/mercure',
      MERCURE_JWT_SECRET: MERCURE_SECRET,
    });
    expect(config).toEqual({
      nodeEnv: 'production',
      host: '0.0.0.0',
      port: 8080,
      database: 'postgres://shop:pw@db:5432/shop',
      databasePoolMax: 20,
      workers: 4,
      jwtSecret: SECRET,
      jwtTtl: 900,
      jwtRefreshTtl: 86_400,
      admin: { email: 'root@example.com', password: ' spaces kept ' },
      logLevel: 'warn',
      corsOrigins: ['https://admin.example.com', 'http://localhost:5173'],
      rateLimit: { max: 50, timeWindow: 10_000, loginMax: 3, redis: 'redis://cache:6379/0' },
      trustProxy: true,
      trustedHosts: ['api.example.com', 'example.com'],
      requestTimeout: 5_000,
      shutdownTimeout: 20_000,
      httpCache: 'memory',
      httpCachePurge: { varnish: ['http://varnish-a:6081', 'http://varnish-b:6081/'], redis: 'redis://cache:6379/0' },
      mercure: {
        url: 'https://hub.example.com/.well-known/mercure',
        publicUrl: 'https://example.com/.well-known/mercure',
        jwtSecret: MERCURE_SECRET,
      },
    });
    expect(warnings).toEqual([]);
  });

  it('turns rate limiting off with RATE_LIMIT_MAX=0, allows any origin with CORS_ORIGIN=*, and takes empty values as unset', () => {
    const { config } = load({ JWT_SECRET: SECRET, RATE_LIMIT_MAX: '0', CORS_ORIGIN: '*', PORT: '', LOG_LEVEL: '  ' });
    expect(config?.rateLimit).toBe(false);
    expect(config?.corsOrigins).toEqual(['*']);
    expect(config?.port).toBe(8000);
    expect(config?.logLevel).toBe('info');
  });

  it('lists every bad variable in one error, repeats no secret, and writes no secret file', () => {
    const { error, secretFile } = load({
      PORT: '70000',
      DATABASE_URL: 'oracle://root:hunter2@localhost/shop',
      JWT_TTL: '0',
      NODE_ENV: 'staging',
      ADMIN_EMAIL: 'root',
      TRUST_PROXY: 'maybe',
      REQUEST_TIMEOUT: 'soon',
      ADMIN_PASSWORD: 'hunter3',
    });
    expect(error?.problems).toEqual([
      'NODE_ENV must be development, production or test (got "staging").',
      'PORT must be a number from 1 to 65535 (got "70000").',
      'DATABASE_URL must be postgres://user@host:5432/db, mysql://user@host:3306/db, sqlite:/path/file.db or sqlite::memory: (got "oracle://root:***@localhost/shop").',
      'JWT_TTL must be a positive number of seconds (got "0").',
      'ADMIN_EMAIL must be an e-mail address (got "root").',
      'TRUST_PROXY must be true or false (got "maybe").',
      'REQUEST_TIMEOUT must be a positive number of seconds (got "soon").',
    ]);
    expect(error?.message).toBe(`Invalid configuration:\n${error!.problems.map((p) => `  - ${p}`).join('\n')}`);
    expect(error?.message).not.toContain('hunter');
    expect(existsSync(secretFile)).toBe(false);
  });

  it("keeps the contract's rules: JWT_SECRET required in production and 32 bytes long, ADMIN_EMAIL with ADMIN_PASSWORD", () => {
    expect(load({ NODE_ENV: 'production' }).error?.problems).toEqual([
      'JWT_SECRET is required when NODE_ENV=production: the app refuses to start without it.',
    ]);
    expect(load({ JWT_SECRET: 'short' }).error?.problems).toEqual(['JWT_SECRET must be at least 32 bytes long.']);
    expect(load({ JWT_SECRET: SECRET, MERCURE_JWT_SECRET: 'short' }).error?.problems).toEqual([
      'MERCURE_JWT_SECRET must be at least 32 bytes long.',
    ]);
    expect(
      load({ JWT_SECRET: SECRET, MERCURE_URL: 'https://hub.example.com/.well-known/mercure' }).error?.problems,
    ).toEqual(['MERCURE_URL (an external Mercure hub) needs MERCURE_JWT_SECRET, the secret its JWTs are signed with.']);
    expect(
      load({ JWT_SECRET: SECRET, MERCURE_URL: 'hub:3000', MERCURE_JWT_SECRET: MERCURE_SECRET }).error?.problems,
    ).toEqual([
      'MERCURE_URL must be the http(s) URL of a Mercure hub, such as https://hub.example.com/.well-known/mercure (got "hub:3000").',
    ]);
    expect(load({ JWT_SECRET: SECRET, ADMIN_EMAIL: 'root@example.com' }).error?.problems).toEqual([
      'ADMIN_EMAIL and ADMIN_PASSWORD go together.',
    ]);
  });

  it('reads MERCURE_REDIS_URL, the Redis the built-in hubs of several processes share their updates through', () => {
    expect(load({ JWT_SECRET: SECRET, MERCURE_REDIS_URL: ' redis://cache:6379 ' }).config?.mercure).toEqual({
      redis: 'redis://cache:6379',
    });
    expect(load({ JWT_SECRET: SECRET, MERCURE_REDIS_URL: 'cache:6379' }).error?.problems).toEqual([
      'MERCURE_REDIS_URL must be a redis:// or rediss:// URL (got "cache:6379").',
    ]);
    expect(
      load({
        JWT_SECRET: SECRET,
        MERCURE_URL: 'https://hub.example.com/.well-known/mercure',
        MERCURE_JWT_SECRET: MERCURE_SECRET,
        MERCURE_REDIS_URL: 'redis://cache:6379',
      }).error?.problems,
    ).toEqual([
      'MERCURE_REDIS_URL fans the built-in hub’s updates out between processes: it does not go with MERCURE_URL (an external hub, which every process sends to).',
    ]);
  });

  it('reads VARNISH_URL, and refuses caches that several SQLite or MariaDB processes could not purge for each other', () => {
    expect(load({ JWT_SECRET: SECRET, VARNISH_URL: 'http://127.0.0.1:6081' }).config?.httpCachePurge).toEqual({
      varnish: ['http://127.0.0.1:6081'],
      redis: undefined,
    });
    expect(load({ JWT_SECRET: SECRET, VARNISH_URL: 'varnish:6081' }).error?.problems).toEqual([
      'VARNISH_URL must be the http(s) URL of Varnish (several: comma-separated) (got "varnish:6081").',
    ]);
    const sqliteFile = 'sqlite:/srv/shop.db';
    expect(
      load({ JWT_SECRET: SECRET, DATABASE_URL: sqliteFile, WEB_CONCURRENCY: '2', HTTP_CACHE: 'memory' }).error
        ?.problems,
    ).toEqual([
      'HTTP_CACHE=memory with WEB_CONCURRENCY above 1 on SQLite or MariaDB needs REDIS_URL: the processes tell each other of their writes and reads through it.',
    ]);
    // Varnish alone too: a read under way on one process at another's write must be waited for before the purge.
    const varnish = 'http://127.0.0.1:6081';
    expect(
      load({ JWT_SECRET: SECRET, DATABASE_URL: 'mysql://root@db/shop', WEB_CONCURRENCY: '2', VARNISH_URL: varnish })
        .error?.problems,
    ).toEqual([
      'VARNISH_URL with WEB_CONCURRENCY above 1 on SQLite or MariaDB needs REDIS_URL: the processes tell each other of their writes and reads through it.',
    ]);
    expect(
      load({
        JWT_SECRET: SECRET,
        DATABASE_URL: sqliteFile,
        WEB_CONCURRENCY: '2',
        VARNISH_URL: varnish,
        REDIS_URL: 'redis://cache:6379',
      }).config?.httpCachePurge,
    ).toEqual({ varnish: [varnish], redis: 'redis://cache:6379' });
    const withRedis = load({
      JWT_SECRET: SECRET,
      DATABASE_URL: sqliteFile,
      WEB_CONCURRENCY: '2',
      HTTP_CACHE: 'memory',
      REDIS_URL: 'redis://cache:6379',
    });
    expect(withRedis.config?.httpCachePurge).toEqual({ varnish: undefined, redis: 'redis://cache:6379' });
    // On PostgreSQL the processes purge each other through LISTEN/NOTIFY.
    expect(
      load({
        JWT_SECRET: SECRET,
        DATABASE_URL: 'postgres://shop@db/shop',
        WEB_CONCURRENCY: '2',
        HTTP_CACHE: 'memory',
      }).config?.httpCachePurge,
    ).toEqual({ varnish: undefined, redis: undefined });
  });
});
