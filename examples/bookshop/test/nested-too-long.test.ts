/**
 * A value too long for its index in a nested item (PostgreSQL refuses it; SQLite stores it) is reported on the nested
 * item's field (`author.name`), not on one of the parent's.
 */
import { describe, expect, it } from 'vitest';
import { call, databases, useBookshop } from './support.js';

describe.each(databases)('a too-long nested value on $name', (database) => {
  const shop = useBookshop(database);

  it("names author.name, not the parent's title, when a nested author's name cannot be stored", async () => {
    const response = await call(shop().app, {
      method: 'POST',
      url: '/api/books',
      payload: { title: 'Fine title', author: { name: 'x'.repeat(400_000) } },
    });
    if (response.status !== 201) {
      expect(response.status).toBe(400);
      expect(response.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(['author.name']);
      expect((await call(shop().app, { method: 'GET', url: '/api/authors' })).body['hydra:totalItems']).toBe(0);
    }
  });
});
