/**
 * The health routes: `GET /health` answers while the process runs; `GET /health/ready` answers 200 while the database
 * answers `select 1`, and a 503 problem when it is closed, unreachable, or too busy to answer within the timeout.
 */
import { proxyTo } from './pg-proxy.js';
import { inject, describe, expect, it } from 'vitest';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call } from '../helpers.js';

const databases = testDatabases(inject('postgresUrl'), inject('mariadbUrl'));
const PROBLEM = {
  type: '/errors/503',
  title: 'An error occurred',
  detail: 'The database does not answer.',
  status: 503,
};

describe.each(databases)('on $name', (database) => {
  it('answers GET /health and GET /health/ready with 200 {"status":"ok"}, never cached', async () => {
    const app = await buildTestApp({ database, resources: [Author, Book], production: {} });
    try {
      for (const url of ['/health', '/health/ready']) {
        const response = await call(app, { method: 'GET', url });
        expect(response.status, url).toBe(200);
        expect(response.body).toEqual({ status: 'ok' });
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.headers['cache-control']).toBe('no-store');
      }
    } finally {
      await app.close();
    }
  });

  it('answers readiness with a 503 problem once the database pool is closed, while liveness stays 200', async () => {
    const app = await buildTestApp({ database, resources: [Author, Book], production: {} });
    try {
      await app.resourceApi.database.knex.destroy();
      const problem = await call(app, {
        method: 'GET',
        url: '/health/ready',
        headers: { accept: 'application/problem+json' },
      });
      expect(problem.status).toBe(503);
      expect(problem.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(problem.headers['cache-control']).toBe('no-store');
      expect(problem.body).toEqual(PROBLEM);

      const jsonld = await call(app, { method: 'GET', url: '/health/ready' });
      expect(jsonld.status).toBe(503);
      expect(jsonld.body).toEqual({
        '@context': '/api/contexts/Error',
        '@type': 'hydra:Error',
        'hydra:title': 'An error occurred',
        'hydra:description': 'The database does not answer.',
        ...PROBLEM,
      });
      expect((await call(app, { method: 'GET', url: '/health' })).status).toBe(200);
    } finally {
      await app.close().catch(() => {});
    }
  });

  it('answers readiness with 503 when no connection frees up within the timeout, and 200 again once one does', async () => {
    const app = await buildTestApp({ database, resources: [Author, Book], production: { health: { timeout: 200 } } });
    const { knex } = app.resourceApi.database;
    // Hold every connection of the pool (one on SQLite, ten on PostgreSQL) in an open transaction.
    const size = database.name === 'sqlite' ? 1 : 10;
    const held = await Promise.all(Array.from({ length: size }, () => knex.transaction()));
    try {
      const busy = await call(app, { method: 'GET', url: '/health/ready', headers: { accept: 'application/json' } });
      expect(busy.status).toBe(503);
      expect(busy.body).toEqual(PROBLEM);
    } finally {
      await Promise.all(held.map((trx) => trx.rollback()));
    }
    try {
      expect((await call(app, { method: 'GET', url: '/health/ready' })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe.each(databases.filter((d) => d.name === 'postgres'))(
  'on $name behind a connection that is cut',
  (database) => {
    it('answers readiness with 503 while PostgreSQL is unreachable, liveness with 200, and readiness with 200 once it is back', async () => {
      const proxy = await proxyTo(new URL(database.url));
      const app = await buildTestApp({
        database: { ...database, url: proxy.url },
        resources: [Author, Book],
        production: {},
      });
      try {
        expect((await call(app, { method: 'GET', url: '/health/ready' })).status).toBe(200);
        await proxy.cut();
        // The pooled connection is dead and no new one can be made.
        for (let i = 0; i < 2; i++) {
          const ready = await call(app, {
            method: 'GET',
            url: '/health/ready',
            headers: { accept: 'application/json' },
          });
          expect(ready.status).toBe(503);
          expect(ready.body).toEqual(PROBLEM);
        }
        expect((await call(app, { method: 'GET', url: '/health' })).status).toBe(200);
        await proxy.restore();
        expect((await call(app, { method: 'GET', url: '/health/ready' })).status).toBe(200);
      } finally {
        await app.close();
        await proxy.cut();
      }
    });
  },
);

describe('the health option', () => {
  it('moves the routes with path and readyPath', async () => {
    const app = await buildTestApp({
      database: databases[0]!,
      resources: [Author, Book],
      production: { health: { path: '/livez', readyPath: '/readyz' } },
    });
    try {
      expect((await call(app, { method: 'GET', url: '/livez' })).body).toEqual({ status: 'ok' });
      expect((await call(app, { method: 'GET', url: '/readyz' })).body).toEqual({ status: 'ok' });
      expect((await call(app, { method: 'GET', url: '/health' })).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('adds no route with false', async () => {
    const app = await buildTestApp({
      database: databases[0]!,
      resources: [Author, Book],
      production: { health: false },
    });
    try {
      expect((await call(app, { method: 'GET', url: '/health' })).status).toBe(404);
      expect((await call(app, { method: 'GET', url: '/health/ready' })).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});
