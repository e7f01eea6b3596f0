/** Every built-in filter and strategy, relation paths, invalid values and bound parameters, on SQLite and PostgreSQL. */
import { describe, expect, inject, it } from 'vitest';
import { anyOf, defineFilter, defineResource, invalidParameter, match, singleValue } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const STRATEGIES = [
  'exact',
  'partial',
  'start',
  'end',
  'word_start',
  'iexact',
  'ipartial',
  'istart',
  'iend',
  'iword_start',
] as const;

/** One field per strategy, all holding the same text, so each strategy can be asked the same question. */
const Phrase = defineResource({
  name: 'Phrase',
  fields: Object.fromEntries(STRATEGIES.map((s) => [s, { type: 'string' as const }])),
  filters: [{ type: 'search', properties: Object.fromEntries(STRATEGIES.map((s) => [s, s])) }],
});

const Country = defineResource({
  name: 'Country',
  fields: { code: { type: 'string' }, authors: { toMany: 'Author', mappedBy: 'country' } },
});
const Author = defineResource({
  name: 'Author',
  fields: {
    name: { type: 'string' },
    country: { toOne: 'Country', nullable: true },
    books: { toMany: 'Book', mappedBy: 'author' },
  },
  filters: [
    { type: 'search', properties: { name: 'ipartial', 'books.title': 'ipartial', country: 'exact' } },
    { type: 'exists', properties: ['books', 'country'] },
    { type: 'order', properties: ['name'] },
  ],
});

/** A custom filter: `q` looks in the title or the author's name. */
const anywhere = defineFilter({
  describe: () => [
    {
      variable: 'q',
      property: null,
      required: false,
      schema: { type: 'string' },
      isCollection: false,
      description: 'Title or author name.',
    },
  ],
  parse(query) {
    const q = singleValue(query, 'q');
    if (q === undefined) return undefined;
    if (q.length < 2) throw invalidParameter('q', 'give at least 2 characters.');
    return q;
  },
  conditions: (q: string) => {
    const pattern = { value: q, anchor: 'contains', caseSensitive: false } as const;
    return [anyOf(match('title', pattern), match('author.name', pattern))];
  },
});

const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string' },
    price: { type: 'float', nullable: true },
    pages: { type: 'integer', default: 0 },
    available: { type: 'boolean', default: true },
    publishedAt: { type: 'datetime', nullable: true },
    releaseDate: { type: 'date', nullable: true },
    summary: { type: 'text', nullable: true },
    author: { toOne: 'Author', inversedBy: 'books' },
  },
  filters: [
    {
      type: 'search',
      properties: {
        title: 'partial',
        author: 'exact',
        'author.name': 'ipartial',
        'author.country.code': 'iexact',
        pages: 'exact',
      },
    },
    { type: 'range', properties: ['price', 'publishedAt'] },
    { type: 'date', properties: { publishedAt: 'exclude_null', releaseDate: 'include_null_before' } },
    { type: 'boolean', properties: ['available'] },
    { type: 'numeric', properties: ['price'] },
    { type: 'exists', properties: ['summary', 'author.country'] },
    {
      type: 'order',
      properties: { title: {}, price: { nulls: 'smallest' }, 'author.name': {}, publishedAt: { direction: 'desc' } },
    },
    anywhere,
  ],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('filters on $name', (database) => {
  const app = useApp(database, { resources: [Phrase, Country, Author, Book] });
  const post = (url: string, payload: object) => call(app(), { method: 'POST', url, payload });
  const get = (url: string) => call(app(), { method: 'GET', url });
  const values = async (url: string, field: string): Promise<unknown[]> => {
    const response = await get(url);
    expect(response.status, `${url}: ${response.text}`).toBe(200);
    return response.body['hydra:member'].map((m: Record<string, unknown>) => m[field]);
  };

  async function seedLibrary() {
    await post('/api/countries', { code: 'FR' });
    await post('/api/countries', { code: 'US' });
    await post('/api/authors', { name: 'Ann Leckie', country: '/api/countries/2' });
    await post('/api/authors', { name: 'Victor Hugo', country: '/api/countries/1' });
    await post('/api/authors', { name: 'Nobody' });
    const books = [
      {
        title: 'Ancillary Justice',
        price: 9.5,
        pages: 400,
        available: true,
        publishedAt: '2013-10-01T00:00:00Z',
        releaseDate: '2013-10-01',
        author: '/api/authors/1',
      },
      {
        title: 'Les Misérables',
        price: 20,
        pages: 1500,
        available: false,
        publishedAt: '1862-04-03T00:00:00Z',
        releaseDate: null,
        summary: 'Jean Valjean.',
        author: '/api/authors/2',
      },
      {
        title: 'Ancillary Sword',
        price: null,
        pages: 350,
        available: true,
        publishedAt: null,
        releaseDate: '2014-10-07',
        author: '/api/authors/1',
      },
      {
        title: 'Notre-Dame de Paris',
        price: 12.25,
        pages: 600,
        available: true,
        publishedAt: '1831-03-16T00:00:00Z',
        releaseDate: '1831-03-16',
        summary: 'Bells.',
        author: '/api/authors/2',
      },
    ];
    for (const book of books) expect((await post('/api/books', book)).status).toBe(201);
  }

  it('matches each search strategy, case-sensitive or not, with % _ * ? [ \\ matching themselves', async () => {
    const texts = [
      'Verse',
      'never',
      'VERY',
      'fever pitch',
      '100%_sure',
      '100 percent',
      'under_score',
      'a*b?c[d]',
      'back\\slash',
    ];
    for (const text of texts) await post('/api/phrases', Object.fromEntries(STRATEGIES.map((s) => [s, text])));
    const find = (strategy: string, ...terms: string[]) =>
      values(
        `/api/phrases?${terms.map((t) => `${strategy}${terms.length > 1 ? '[]' : ''}=${encodeURIComponent(t)}`).join('&')}&pagination=false`,
        strategy,
      );
    expect(await find('exact', 'Verse')).toEqual(['Verse']);
    expect(await find('exact', 'verse')).toEqual([]);
    expect(await find('iexact', 'verse')).toEqual(['Verse']);
    expect(await find('partial', 'ver')).toEqual(['never', 'fever pitch']);
    expect(await find('ipartial', 'ver')).toEqual(['Verse', 'never', 'VERY', 'fever pitch']);
    expect(await find('start', 'Ver')).toEqual(['Verse']);
    expect(await find('istart', 'ver')).toEqual(['Verse', 'VERY']);
    expect(await find('end', 'er')).toEqual(['never']);
    expect(await find('iend', 'ER')).toEqual(['never']);
    expect(await find('word_start', 'pit')).toEqual(['fever pitch']);
    expect(await find('iword_start', 'PIT')).toEqual(['fever pitch']);
    expect(await find('word_start', 'itch')).toEqual([]);
    expect(await find('partial', '%')).toEqual(['100%_sure']);
    expect(await find('partial', '_')).toEqual(['100%_sure', 'under_score']);
    expect(await find('ipartial', '0%_S')).toEqual(['100%_sure']);
    expect(await find('istart', '100%')).toEqual(['100%_sure']);
    expect(await find('partial', '*')).toEqual(['a*b?c[d]']);
    expect(await find('partial', '?c[d]')).toEqual(['a*b?c[d]']);
    expect(await find('end', '[d]')).toEqual(['a*b?c[d]']);
    // A backslash is the escape character of the LIKE patterns: in a value it matches itself.
    expect(await find('ipartial', '\\')).toEqual(['back\\slash']);
    expect(await find('ipartial', 'K\\S')).toEqual(['back\\slash']);
    expect(await find('partial', 'k\\s')).toEqual(['back\\slash']);
    expect(await find('iend', '\\SLASH')).toEqual(['back\\slash']);
    expect(await find('ipartial', 'ck\\%')).toEqual([]);
    expect(await find('partial', 'ne', 'VE')).toEqual(['never', 'VERY']);
    expect(await find('exact', 'never', 'VERY', 'nope')).toEqual(['never', 'VERY']);
  });

  it('searches relations by IRI or id, and through relation paths of any depth', async () => {
    await seedLibrary();
    expect(await values('/api/books?author=/api/authors/2', 'title')).toEqual([
      'Les Misérables',
      'Notre-Dame de Paris',
    ]);
    expect(await values('/api/books?author=1', 'title')).toEqual(['Ancillary Justice', 'Ancillary Sword']);
    expect(await values('/api/books?author[]=1&author[]=/api/authors/2', 'title')).toHaveLength(4);
    expect(await values('/api/books?author.name=HUGO', 'title')).toEqual(['Les Misérables', 'Notre-Dame de Paris']);
    expect(await values('/api/books?author.country.code=us', 'title')).toEqual([
      'Ancillary Justice',
      'Ancillary Sword',
    ]);
    expect(await values('/api/books?pages=350', 'title')).toEqual(['Ancillary Sword']);
    // through a to-many relation, without duplicating authors
    expect(await values('/api/authors?books.title=ancillary', 'name')).toEqual(['Ann Leckie']);
    const response = await get('/api/authors?books.title=a');
    expect(response.body['hydra:totalItems']).toBe(2);
    expect(await values('/api/authors?country=/api/countries/1', 'name')).toEqual(['Victor Hugo']);
  });

  it('filters by range on numbers and dates', async () => {
    await seedLibrary();
    expect(await values('/api/books?price[gt]=9.5', 'title')).toEqual(['Les Misérables', 'Notre-Dame de Paris']);
    expect(await values('/api/books?price[gte]=9.5', 'title')).toEqual([
      'Ancillary Justice',
      'Les Misérables',
      'Notre-Dame de Paris',
    ]);
    expect(await values('/api/books?price[lt]=12.25', 'title')).toEqual(['Ancillary Justice']);
    expect(await values('/api/books?price[lte]=12.25', 'title')).toEqual(['Ancillary Justice', 'Notre-Dame de Paris']);
    expect(await values('/api/books?price[between]=10..20', 'title')).toEqual([
      'Les Misérables',
      'Notre-Dame de Paris',
    ]);
    expect(await values('/api/books?price[gt]=5&price[lt]=15', 'title')).toEqual([
      'Ancillary Justice',
      'Notre-Dame de Paris',
    ]);
    expect(await values('/api/books?publishedAt[between]=1800-01-01..1900-01-01', 'title')).toEqual([
      'Les Misérables',
      'Notre-Dame de Paris',
    ]);
  });

  it('filters by date, with the declared treatment of null dates', async () => {
    await seedLibrary();
    expect(await values('/api/books?publishedAt[after]=1862-04-03', 'title')).toEqual([
      'Ancillary Justice',
      'Les Misérables',
    ]);
    expect(await values('/api/books?publishedAt[strictly_after]=1862-04-03', 'title')).toEqual(['Ancillary Justice']);
    expect(await values('/api/books?publishedAt[before]=1862-04-03T00:00:00Z', 'title')).toEqual([
      'Les Misérables',
      'Notre-Dame de Paris',
    ]);
    expect(await values('/api/books?publishedAt[strictly_before]=1862-04-03', 'title')).toEqual([
      'Notre-Dame de Paris',
    ]);
    // releaseDate includes null dates in "before" conditions
    expect(await values('/api/books?releaseDate[before]=2000-01-01', 'title')).toEqual([
      'Les Misérables',
      'Notre-Dame de Paris',
    ]);
    expect(await values('/api/books?releaseDate[after]=2000-01-01', 'title')).toEqual([
      'Ancillary Justice',
      'Ancillary Sword',
    ]);
  });

  it('filters by boolean, numeric and exists', async () => {
    await seedLibrary();
    expect(await values('/api/books?available=false', 'title')).toEqual(['Les Misérables']);
    expect(await values('/api/books?available=1', 'title')).toHaveLength(3);
    expect(await values('/api/books?price=20', 'title')).toEqual(['Les Misérables']);
    expect(await values('/api/books?price[]=20&price[]=9.5', 'title')).toEqual(['Ancillary Justice', 'Les Misérables']);
    expect(await values('/api/books?exists[summary]=true', 'title')).toEqual(['Les Misérables', 'Notre-Dame de Paris']);
    expect(await values('/api/books?exists[summary]=false', 'title')).toEqual(['Ancillary Justice', 'Ancillary Sword']);
    expect(await values('/api/authors?exists[books]=true', 'name')).toEqual(['Ann Leckie', 'Victor Hugo']);
    expect(await values('/api/authors?exists[books]=false', 'name')).toEqual(['Nobody']);
    expect(await values('/api/authors?exists[country]=false', 'name')).toEqual(['Nobody']);
    expect(await values('/api/books?exists[author.country]=true', 'title')).toHaveLength(4);
  });

  it('orders by one or several properties in the order given, through to-one relations, nulls as declared', async () => {
    await seedLibrary();
    expect(await values('/api/books?order[title]=desc', 'title')).toEqual([
      'Notre-Dame de Paris',
      'Les Misérables',
      'Ancillary Sword',
      'Ancillary Justice',
    ]);
    expect(await values('/api/books?order[title]=ASC', 'title')).toEqual([
      'Ancillary Justice',
      'Ancillary Sword',
      'Les Misérables',
      'Notre-Dame de Paris',
    ]);
    // price: nulls are the smallest values
    expect(await values('/api/books?order[price]=asc', 'title')).toEqual([
      'Ancillary Sword',
      'Ancillary Justice',
      'Notre-Dame de Paris',
      'Les Misérables',
    ]);
    expect(await values('/api/books?order[price]=desc', 'title')).toEqual([
      'Les Misérables',
      'Notre-Dame de Paris',
      'Ancillary Justice',
      'Ancillary Sword',
    ]);
    // publishedAt: default direction desc when no value; nulls largest (first in desc)
    expect(await values('/api/books?order[publishedAt]=', 'title')).toEqual([
      'Ancillary Sword',
      'Ancillary Justice',
      'Les Misérables',
      'Notre-Dame de Paris',
    ]);
    expect(await values('/api/books?order[author.name]=desc&order[title]=desc', 'title')).toEqual([
      'Notre-Dame de Paris',
      'Les Misérables',
      'Ancillary Sword',
      'Ancillary Justice',
    ]);
    expect(await values('/api/books?order[title]=desc&order[author.name]=desc', 'title')).toEqual([
      'Notre-Dame de Paris',
      'Les Misérables',
      'Ancillary Sword',
      'Ancillary Justice',
    ]);
    expect(await values('/api/authors?order[name]=desc', 'name')).toEqual(['Victor Hugo', 'Nobody', 'Ann Leckie']);
    // Ties (two books per author) go by id, in the direction of the last term.
    expect(await values('/api/books?order[author.name]=desc', 'id')).toEqual([4, 2, 3, 1]);
    expect(await values('/api/books?order[author.name]=asc', 'id')).toEqual([1, 3, 2, 4]);
  });

  it('combines search, range, order and pagination in one request', async () => {
    await seedLibrary();
    const response = await get('/api/books?author.name=o&price[gte]=1&order[price]=desc&itemsPerPage=1&page=2');
    expect(response.body['hydra:totalItems']).toBe(2);
    expect(response.body['hydra:member'].map((m: { title: string }) => m.title)).toEqual(['Notre-Dame de Paris']);
    expect(response.body['hydra:view']).toEqual({
      '@id': '/api/books?author.name=o&price%5Bgte%5D=1&order%5Bprice%5D=desc&itemsPerPage=1&page=2',
      '@type': 'hydra:PartialCollectionView',
      'hydra:first': '/api/books?author.name=o&price%5Bgte%5D=1&order%5Bprice%5D=desc&itemsPerPage=1&page=1',
      'hydra:last': '/api/books?author.name=o&price%5Bgte%5D=1&order%5Bprice%5D=desc&itemsPerPage=1&page=2',
      'hydra:previous': '/api/books?author.name=o&price%5Bgte%5D=1&order%5Bprice%5D=desc&itemsPerPage=1&page=1',
    });
  });

  it('runs a custom filter, which also describes itself', async () => {
    await seedLibrary();
    expect(await values('/api/books?q=HUGO', 'title')).toEqual(['Les Misérables', 'Notre-Dame de Paris']);
    expect(await values('/api/books?q=sword', 'title')).toEqual(['Ancillary Sword']);
    const short = await get('/api/books?q=x');
    expect(short.status).toBe(400);
    expect(short.body.detail).toBe('Query parameter "q": give at least 2 characters.');
    expect((await get('/api/books')).body['hydra:search']['hydra:mapping']).toContainEqual({
      '@type': 'IriTemplateMapping',
      variable: 'q',
      property: null,
      required: false,
    });
  });

  it('answers 400 naming the parameter for an invalid value of a declared filter, and ignores undeclared parameters', async () => {
    await seedLibrary();
    const cases: [string, string][] = [
      ['price[gte]=abc', 'Query parameter "price[gte]": expected a number, "abc" given.'],
      ['price[between]=1..2..3', 'Query parameter "price[between]": expected "min..max", "1..2..3" given.'],
      ['order[title]=sideways', 'Query parameter "order[title]": expected "asc" or "desc", "sideways" given.'],
      ['available=yes', 'Query parameter "available": expected "true" or "false", "yes" given.'],
      ['author=garbage', 'Query parameter "author": expected an IRI of "/api/authors" or an id, "garbage" given.'],
      [
        'publishedAt[after]=tomorrow',
        'Query parameter "publishedAt[after]": expected a date or date-time (ISO 8601), "tomorrow" given.',
      ],
      ['pages=3.5', 'Query parameter "pages": expected an integer, "3.5" given.'],
      ['exists[summary]=maybe', 'Query parameter "exists[summary]": expected "true" or "false", "maybe" given.'],
      ['price[gt]=1&price[gt]=2', 'Query parameter "price[gt]": give it once.'],
    ];
    for (const [query, detail] of cases) {
      const response = await get(`/api/books?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.detail, query).toBe(detail);
    }
    expect(await values('/api/books?unknown=1&order[unknown]=asc&summary=x', 'title')).toHaveLength(4);
  });

  it('binds every value: SQL in a filter value changes nothing in the query', async () => {
    await seedLibrary();
    for (const attack of ["' OR 1=1 --", "x'); DROP TABLE book; --", '\\', "%' OR '%'='"]) {
      const encoded = encodeURIComponent(attack);
      expect(await values(`/api/books?title=${encoded}`, 'title'), attack).toEqual([]);
      expect(await values(`/api/books?author.name=${encoded}`, 'title'), attack).toEqual([]);
    }
    expect((await get('/api/books')).body['hydra:totalItems']).toBe(4);
  });

  it('describes every filter variable in hydra:search', async () => {
    const response = await get('/api/authors');
    expect(response.body['hydra:search']).toEqual({
      '@type': 'hydra:IriTemplate',
      'hydra:template':
        '/api/authors{?name,name[],books.title,books.title[],country,country[],exists[books],exists[country],order[name]}',
      'hydra:variableRepresentation': 'BasicRepresentation',
      'hydra:mapping': [
        { '@type': 'IriTemplateMapping', variable: 'name', property: 'name', required: false },
        { '@type': 'IriTemplateMapping', variable: 'name[]', property: 'name', required: false },
        { '@type': 'IriTemplateMapping', variable: 'books.title', property: 'books.title', required: false },
        { '@type': 'IriTemplateMapping', variable: 'books.title[]', property: 'books.title', required: false },
        { '@type': 'IriTemplateMapping', variable: 'country', property: 'country', required: false },
        { '@type': 'IriTemplateMapping', variable: 'country[]', property: 'country', required: false },
        { '@type': 'IriTemplateMapping', variable: 'exists[books]', property: 'books', required: false },
        { '@type': 'IriTemplateMapping', variable: 'exists[country]', property: 'country', required: false },
        { '@type': 'IriTemplateMapping', variable: 'order[name]', property: 'name', required: false },
      ],
    });
    expect((await get('/api/countries')).body).not.toHaveProperty('hydra:search');
  });

  it('sends the search template, serialized once per collection path, last and byte for byte as JSON.stringify would', async () => {
    await seedLibrary();
    const search = JSON.stringify((await get('/api/authors')).body['hydra:search']);
    for (const url of [
      '/api/authors',
      '/api/authors?order[name]=desc&itemsPerPage=1&page=2',
      '/api/authors?name=ann',
      '/api/authors?name=nobody-at-all',
    ]) {
      const response = await get(url);
      expect(response.status, url).toBe(200);
      // The body is the JSON of its parse: no duplicate key, and `hydra:search` is the last one.
      expect(response.text, url).toBe(JSON.stringify(response.body));
      expect(Object.keys(response.body).at(-1), url).toBe('hydra:search');
      expect(response.text.endsWith(`,"hydra:search":${search}}`), url).toBe(true);
    }
    // The ETag follows those bytes: the same page gives the same tag, another page another one.
    const first = await get('/api/authors?itemsPerPage=1');
    expect((await get('/api/authors?itemsPerPage=1')).headers.etag).toBe(first.headers.etag);
    expect((await get('/api/authors?itemsPerPage=1&page=2')).headers.etag).not.toBe(first.headers.etag);
    // Plain JSON is the bare array of members.
    const plain = await call(app(), { method: 'GET', url: '/api/authors', headers: { accept: 'application/json' } });
    expect(plain.text).toBe(JSON.stringify(plain.body));
    expect(Array.isArray(plain.body)).toBe(true);
  });
});
