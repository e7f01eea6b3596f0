import { describe, expect, it } from 'vitest';
import { buildTestApp, injectJson, testDatabases } from '@resource-api/core/testing';
import { Book } from '../src/resources/book.js';

// SQLite always; PostgreSQL too when TEST_POSTGRES_URL is set (postgres://user@host:5432/db, with `npm install pg`),
// MariaDB or MySQL when TEST_MARIADB_URL is (mysql://user@host:3306/db, with `npm install mysql2`).
describe.each(testDatabases(process.env.TEST_POSTGRES_URL, process.env.TEST_MARIADB_URL))(
  'books on $name',
  (database) => {
    it('creates a book, reads it back and finds it by title', async () => {
      const app = await buildTestApp({ database, resources: [Book] });
      try {
        const created = await injectJson(app, {
          method: 'POST',
          url: '/api/books',
          payload: { title: 'Dune', pages: 412 },
        });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({ '@id': '/api/books/1', '@type': 'Book', title: 'Dune' });

        const found = await injectJson(app, { method: 'GET', url: '/api/books?title=dun' });
        expect(found.body['hydra:totalItems']).toBe(1);
      } finally {
        await app.close();
      }
    });

    it('refuses a book without a title, and keeps nothing', async () => {
      const app = await buildTestApp({ database, resources: [Book] });
      try {
        const refused = await injectJson(app, { method: 'POST', url: '/api/books', payload: { pages: 10 } });
        expect(refused.status).toBe(400);
        expect(refused.body.violations).toEqual([expect.objectContaining({ propertyPath: 'title' })]);
        expect((await injectJson(app, { method: 'GET', url: '/api/books' })).body['hydra:totalItems']).toBe(0);
      } finally {
        await app.close();
      }
    });
  },
);
