/**
 * A PATCH or PUT racing a DELETE of the same item: 200 when the update ran first, 404 when the item was gone; never a
 * 500 or a 200 without an item.
 */
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'update racing a delete on $name',
  (database) => {
    const app = useApp(database, { resources: [Author, Book] });

    it('PATCH racing DELETE: 200 or 404, never 500', async () => {
      for (let round = 1; round <= 10; round++) {
        expect(
          (await call(app(), { method: 'POST', url: '/api/authors', payload: { name: `A${round}` } })).status,
        ).toBe(201);
        const [removed, patched] = await Promise.all([
          call(app(), { method: 'DELETE', url: `/api/authors/${round}` }),
          call(app(), {
            method: 'PATCH',
            url: `/api/authors/${round}`,
            headers: { 'content-type': 'application/merge-patch+json' },
            payload: '{"name":"B"}',
          }),
        ]);
        expect(removed.status).toBe(204);
        expect([200, 404], `round ${round}: ${patched.status} ${patched.text}`).toContain(patched.status);
        if (patched.status === 200) expect(patched.body.name).toBe('B');
      }
    });

    it('PUT racing DELETE: 200 or 404, never 500', async () => {
      for (let round = 1; round <= 10; round++) {
        expect(
          (await call(app(), { method: 'POST', url: '/api/authors', payload: { name: `A${round}` } })).status,
        ).toBe(201);
        const [removed, replaced] = await Promise.all([
          call(app(), { method: 'DELETE', url: `/api/authors/${round}` }),
          call(app(), { method: 'PUT', url: `/api/authors/${round}`, payload: { name: 'B' } }),
        ]);
        expect(removed.status).toBe(204);
        expect([200, 404], `round ${round}: ${replaced.status} ${replaced.text}`).toContain(replaced.status);
        if (replaced.status === 200) expect(replaced.body.name).toBe('B');
      }
    });
  },
);
