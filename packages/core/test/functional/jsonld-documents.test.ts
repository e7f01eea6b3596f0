/** JSON-LD documents besides items: the contexts of every type and the entrypoint. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

const HYDRA = 'http://www.w3.org/ns/hydra/core#';
const Hidden = defineResource({ name: 'Hidden', fields: { code: { type: 'string' } }, operations: ['get'] });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('JSON-LD documents on $name', (database) => {
  const app = useApp(database, { resources: [Author, Book, Hidden] });
  const get = (url: string) => call(app(), { method: 'GET', url, headers: { host: 'api.example:8443' } });

  it('serves the context of each resource, relations typed as @id', async () => {
    const response = await get('/api/contexts/Book');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/ld+json; charset=utf-8');
    expect(response.body).toEqual({
      '@context': {
        '@vocab': 'http://api.example:8443/api/docs.jsonld#',
        hydra: HYDRA,
        title: 'Book/title',
        summary: 'Book/summary',
        pages: 'Book/pages',
        price: 'Book/price',
        available: 'Book/available',
        publishedAt: 'Book/publishedAt',
        releaseDate: 'Book/releaseDate',
        extra: 'Book/extra',
        tags: 'Book/tags',
        createdAt: 'Book/createdAt',
        isbn: 'Book/isbn',
        author: { '@id': 'Book/author', '@type': '@id' },
      },
    });
    const author = await get('/api/contexts/Author.jsonld');
    expect(author.body['@context']).toMatchObject({
      name: 'https://schema.org/name',
      books: { '@id': 'Author/books', '@type': '@id' },
    });
  });

  it('serves the Error, ConstraintViolationList and Entrypoint contexts', async () => {
    expect((await get('/api/contexts/Error')).body).toEqual({
      '@context': { '@vocab': 'http://api.example:8443/api/docs.jsonld#', hydra: HYDRA },
    });
    // API Platform's base context: `violations`, `propertyPath`, `message` and `code` expand through `@vocab`.
    expect((await get('/api/contexts/ConstraintViolationList')).body).toEqual({
      '@context': { '@vocab': 'http://api.example:8443/api/docs.jsonld#', hydra: HYDRA },
    });
    expect((await get('/api/contexts/Entrypoint')).body).toEqual({
      '@context': {
        '@vocab': 'http://api.example:8443/api/docs.jsonld#',
        hydra: HYDRA,
        author: { '@id': 'Entrypoint/author', '@type': '@id' },
        book: { '@id': 'Entrypoint/book', '@type': '@id' },
      },
    });
  });

  it('answers 404 for the context of an unknown type', async () => {
    const response = await get('/api/contexts/Nope');
    expect(response.status).toBe(404);
    expect(response.body.detail).toBe('No context found for type "Nope".');
  });

  it('serves the entrypoint with one link per collection, sorted', async () => {
    for (const accept of ['application/ld+json', '*/*']) {
      const response = await call(app(), { method: 'GET', url: '/api', headers: { accept } });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/ld+json; charset=utf-8');
      expect(response.body).toEqual({
        '@context': '/api/contexts/Entrypoint',
        '@id': '/api',
        '@type': 'Entrypoint',
        author: '/api/authors',
        book: '/api/books',
      });
    }
  });
});
