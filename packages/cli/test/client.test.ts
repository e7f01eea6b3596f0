/**
 * The typed client generator, end to end: the client generated for the example app (and for a small blog with
 * groups that differ by operation) is compiled with the workspace's `tsc` in strict mode, with Node's fetch types
 * and with the DOM's, together with usage files whose `@ts-expect-error` lines must each be refused, and with the
 * `typescript` blocks of docs/typed-client.md; the compiled client and the page's samples then run against the
 * bookshop listening on a real port, on SQLite and PostgreSQL. A newsroom (client-fixtures/newsroom.ts) does the same
 * for custom operations, shapes and computed fields.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AddressInfo } from 'node:net';
import { buildMetadata, defineResource, defineShape, NotBlank } from '@resource-api/core';
import { buildTestApp } from '@resource-api/core/testing';
import { generateClient } from '../src/client/index.js';
import { resources } from '../../../examples/bookshop/src/resources/index.js';
import { ADMIN, databases, openBookshop } from '../../../examples/bookshop/test/support.js';
import { newsroom } from './client-fixtures/newsroom.js';

const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
const TYPE_ROOTS = dirname(dirname(require.resolve('@types/node/package.json')));
const FIXTURES = fileURLToPath(new URL('./client-fixtures/', import.meta.url));
const DOCS_PAGE = fileURLToPath(new URL('../../../docs/typed-client.md', import.meta.url));
/** The server the page's samples call; replaced by the test bookshop's address. */
const DOCS_BASE_URL = 'http://127.0.0.1:8000';

/** The page's `typescript` blocks (code using the generated client, which the docs harness cannot compile alone). */
const docsSamples = (): string[] =>
  [...readFileSync(DOCS_PAGE, 'utf8').matchAll(/^```typescript\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

const Tag = defineResource({
  name: 'Tag',
  operations: ['get', 'post', 'patch'],
  fields: { label: { type: 'string', groups: ['post:read', 'post:write'], constraints: [NotBlank()] } },
});
const Post = defineResource({
  name: 'Post',
  normalizationGroups: ['post:read'],
  denormalizationGroups: ['post:write'],
  paginationViaCursor: { direction: 'desc' },
  requireIfMatch: true,
  operations: [
    'getCollection',
    { kind: 'get', normalizationGroups: ['post:read', 'post:detail'] },
    'post',
    'put',
    'patch',
    'delete',
  ],
  filters: [
    { type: 'exists', properties: ['publishedAt'] },
    { type: 'date', properties: ['publishedAt'] },
    { type: 'boolean', properties: ['draft'] },
  ],
  fields: {
    title: { type: 'string', groups: ['post:read', 'post:write'], constraints: [NotBlank()] },
    body: { type: 'text', nullable: true, groups: ['post:detail', 'post:write'] },
    meta: { type: 'json', nullable: true, groups: ['post:read', 'post:write'] },
    draft: { type: 'boolean', default: true, groups: ['post:read', 'post:write'] },
    publishedAt: { type: 'datetime', nullable: true, writable: false, groups: ['post:read'] },
    tag: { toOne: 'Tag', nullable: true, cascadePersist: true, groups: ['post:read', 'post:write'] },
    tags: { toMany: 'Tag', groups: ['post:read'], subresource: true },
  },
});

/** A help desk with UUID ids: tickets, and their replies (integer ids) as a subresource. */
const Ticket = defineResource({
  name: 'Ticket',
  id: 'uuid',
  paginationViaCursor: { direction: 'asc' },
  fields: {
    title: { type: 'string', constraints: [NotBlank()] },
    replies: { toMany: 'Reply', mappedBy: 'ticket', subresource: true },
  },
});
const Reply = defineResource({
  name: 'Reply',
  fields: { text: { type: 'string' }, ticket: { toOne: 'Ticket', inversedBy: 'replies', targetId: 'uuid' } },
  filters: [{ type: 'search', properties: { ticket: 'exact' } }],
});

const bookshopClient = () => generateClient(buildMetadata({ resources }), { login: { identifier: 'email' } });
const blogClient = () =>
  generateClient(buildMetadata({ resources: [Tag, Post], prefix: '/v2' }), { baseUrl: 'http://blog.example' });
const newsroomClient = () => generateClient(buildMetadata({ resources: newsroom }));
const helpdeskClient = () => generateClient(buildMetadata({ resources: [Ticket, Reply] }));

/** A fixture with its first line (`// @ts-nocheck`, for the package's own type check) taken off. */
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8').replace(/^\/\/ @ts-nocheck.*\n/, '');

const STRICT = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noImplicitOverride: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  skipLibCheck: true,
  typeRoots: [TYPE_ROOTS],
};

function tsc(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, '-p', project], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

let dir: string;
let compiled: { code: number; output: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'resource-api-client-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const write = (folder: string, files: Record<string, string>) => {
    mkdirSync(join(dir, folder), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, folder, name), text);
  };
  // Each client in an `api` folder, as the page's samples import it.
  write('bookshop/api', bookshopClient());
  write('bookshop', { 'usage.ts': fixture('usage.ts'), 'scenario.ts': fixture('scenario.ts') });
  write('bookshop', Object.fromEntries(docsSamples().map((code, i) => [`docs-${i + 1}.ts`, code])));
  write('blog/api', blogClient());
  write('blog', { 'usage.ts': fixture('blog-usage.ts') });
  write('newsroom/api', newsroomClient());
  write('newsroom', { 'usage.ts': fixture('newsroom-usage.ts'), 'scenario.ts': fixture('newsroom-scenario.ts') });
  write('helpdesk/api', helpdeskClient());
  write('helpdesk', { 'usage.ts': fixture('helpdesk-usage.ts') });
  // Node 20's fetch types (@types/node), emitted for the run below; then the DOM's alone, as a browser app has them.
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...STRICT, lib: ['ES2023'], types: ['node'], outDir: 'dist', declaration: true },
      include: ['bookshop', 'blog', 'newsroom', 'helpdesk'],
    }),
  );
  writeFileSync(
    join(dir, 'tsconfig.dom.json'),
    JSON.stringify({
      compilerOptions: { ...STRICT, lib: ['ES2023', 'DOM'], types: [], noEmit: true },
      include: ['bookshop', 'blog', 'newsroom', 'helpdesk'],
    }),
  );
  compiled = await tsc(join(dir, 'tsconfig.json'));
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('generateClient', () => {
  it('compiles in strict mode with Node’s fetch types, and refuses every @ts-expect-error line of the usage files', () => {
    expect(compiled).toEqual({ code: 0, output: '' });
  });

  it('compiles with the DOM’s fetch types only (a browser app)', async () => {
    expect(await tsc(join(dir, 'tsconfig.dom.json'))).toEqual({ code: 0, output: '' });
  }, 240_000);

  it('gives the same files for the same metadata', () => {
    const files = bookshopClient();
    expect(Object.keys(files).sort()).toEqual(['client.ts', 'index.ts', 'runtime.ts', 'types.ts']);
    expect(bookshopClient()).toEqual(files);
  });

  it('names read shapes by resource and groups, bodies by write mode, and types nested writes and filters', () => {
    const types = bookshopClient()['types.ts']!;
    expect(types).toContain('export interface Book {');
    expect(types).toContain('export interface ProductProductRead {');
    expect(types).toContain('export type Product = ProductProductRead;');
    expect(types).toContain('  category?: CategoryProductRead | null;');
    // Book.author cascades: an IRI, a new author, or an existing one with changes.
    expect(types).toContain("  author: string | AuthorCreate | ({ '@id': string } & AuthorUpdate);");
    expect(types).toContain("  author?: string | AuthorCreate | ({ '@id': string } & AuthorUpdate);");
    // PUT needs what a create needs, except a secret, which a PUT leaving it out keeps.
    expect(types).toMatch(
      /export interface UserReplace \{\n {2}\/\*\* The e-mail address, used to log in\. \*\/\n {2}email: string;\n {2}\/\*\* The password \(write-only; stored hashed\)\. \*\/\n {2}plainPassword\?: string;/,
    );
    expect(types).toMatch(
      /export interface ProductListParams \{[\s\S]*?\n {2}price\?: \{\n[\s\S]*?between\?: string;[\s\S]*?gt\?: number;[\s\S]*?\n {2}order\?: \{\n[\s\S]*?price\?: 'asc' \| 'desc';/,
    );
    expect(types).toContain("  'author.name'?: string | string[];");

    const blog = blogClient()['types.ts']!;
    expect(blog).toContain('export interface PostPostRead {');
    expect(blog).toContain('export interface PostPostDetailPostRead {');
    expect(blog).not.toMatch(/export type Post =/);
    expect(blog).toContain('export interface PostCreatePostWrite {');
    expect(blog).toMatch(
      /export interface PostListParams \{[\s\S]*?\n {2}id\?: \{\n[\s\S]*?gt\?: number;[\s\S]*?lt\?: number;/,
    );
    expect(blog).toContain('  meta?: JsonValue;');
    // No Tag body with the groups post:write: any object, a new tag or one with `@id`.
    expect(blog).toContain('  tag?: string | { [key: string]: unknown } | null;');
    // Tag has no collection operation: the subresource's parameters get a name of their own.
    expect(blog).toMatch(/export interface PostTagsParams \{\n[\s\S]*?page\?: number;/);
    expect(blogClient()['client.ts']).toContain(
      '  tags(id: number, params?: PostTagsParams, call?: RequestOptions): Promise<HydraCollection<Tag>>;',
    );
  });

  it('types UUID ids as strings: items, relations, subresource parents and cursors', () => {
    const { 'types.ts': types, 'client.ts': client } = helpdeskClient();
    expect(types).toMatch(/export interface Ticket \{[\s\S]*?\n {2}id: string;/);
    expect(types).toMatch(/export interface TicketListParams \{[\s\S]*?\n {2}id\?: \{\n[\s\S]*?gt\?: string;/);
    expect(client).toContain('  replies(id: string, params?: ReplyListParams, call?: RequestOptions)');
  });

  it('gives every custom operation a method named after it, typed by its path variables, input and output', () => {
    const { 'client.ts': client } = newsroomClient();
    expect(client).toContain('  publish(id: Id, call?: RequestOptions): Promise<Article>;');
    expect(client).toContain('  rename(id: Id, body: ArticleUpdate, call?: RequestOptions): Promise<Article>;');
    expect(client).toContain('  bySlug(slug: string | number, call?: RequestOptions): Promise<Article>;');
    expect(client).toContain('  preview(body: ArticleDraft, call?: RequestOptions): Promise<ArticlePreview>;');
    expect(client).toContain('  archive(id: Id, call?: RequestOptions): Promise<void>;');
    expect(client).toContain('  stats(id: Id, call?: RequestOptions): Promise<AuthorStats>;');
    expect(client).toContain('  changePassword(id: Id, body: ChangePassword, call?: RequestOptions): Promise<void>;');
    expect(client).toContain("transport.operationPath('/api/articles/by-slug/{slug}', '/api/articles', { slug })");
    expect(client).toContain(
      "preview: async (body, call) => transport.request<ArticlePreview>('POST', '/api/articles/preview', { body, contentType: 'application/ld+json', options: call })",
    );
    expect(client).toContain('`POST /api/articles/{id}/rename` (the changes to the item: what is left out is kept).');
  });

  it('types shapes from their fields, and computed fields in read types only', () => {
    const types = newsroomClient()['types.ts']!;
    expect(types).toMatch(
      /export interface AuthorStats \{\n {2}'@context'\?: string;\n[\s\S]*? {2}'@id': string;\n {2}'@type': 'AuthorStats';\n {2}\/\*\* The number of articles\. \*\/\n {2}articleCount: number;\n {2}latestTitle\?: string \| null;\n\}/,
    );
    expect(types).toContain('export interface ChangePassword {\n  currentPassword: string;\n  newPassword: string;\n}');
    expect(types).toContain('export interface ArticleDraft {\n  title: string;\n  body?: string | null;\n}');
    expect(types).toMatch(
      /export interface ArticlePreview \{[^}]*?\n {2}\/\*\* A date-time string\. \*\/\n {2}draftedAt: string;\n\}/,
    );
    expect(types).toMatch(/export interface Article \{\n(?:.*\n)*? {2}wordCount\?: number \| null;\n\}/);
    for (const body of ['ArticleCreate', 'ArticleUpdate'])
      expect(types).not.toMatch(new RegExp(`export interface ${body} \\{[^}]*wordCount`));
  });

  it('names a shape used both ways <Shape>Input for its body', () => {
    const Echo = defineShape({ name: 'Echo', fields: { text: { type: 'string' } } });
    const Note = defineResource({
      name: 'Note',
      operations: [
        'get',
        {
          kind: 'post',
          name: 'echo',
          uriTemplate: '/notes/echo',
          input: Echo,
          output: Echo,
          processor: { process: async (data) => data },
        },
      ],
      fields: { text: { type: 'string' } },
    });
    const { 'client.ts': client, 'types.ts': types } = generateClient(buildMetadata({ resources: [Note] }));
    expect(client).toContain('  echo(body: EchoInput, call?: RequestOptions): Promise<Echo>;');
    expect(types).toContain('export interface EchoInput {\n  text: string;\n}');
    expect(types).toMatch(/export interface Echo \{\n {2}'@context'\?: string;/);
  });

  it('writes query parameters in the syntax the API reads', async () => {
    const runtime = (await import(pathToFileURL(join(dir, 'dist/bookshop/api/runtime.js')).href)) as {
      toQueryString(params: object | undefined): string;
    };
    expect(
      runtime.toQueryString({
        title: ['a b', 'c&d'],
        order: { title: 'desc' },
        price: { gt: 3 },
        'author.name': 'Le Guin',
        pagination: false,
        page: undefined,
        exists: { 'author.country': true },
      }),
    ).toBe(
      '?title[]=a%20b&title[]=c%26d&order[title]=desc&price[gt]=3&author.name=Le%20Guin&pagination=false&exists[author.country]=true',
    );
    expect(runtime.toQueryString({ publishedAt: { after: new Date(Date.UTC(2024, 0, 2)) } })).toBe(
      '?publishedAt[after]=2024-01-02T00%3A00%3A00.000Z',
    );
    expect(runtime.toQueryString({})).toBe('');
  });
});

describe.each(databases)('the generated client against the bookshop on $name', (database) => {
  it('creates, lists with filters and order, reads, patches, replaces and deletes; errors carry status and violations', async () => {
    expect(compiled.code).toBe(0);
    const shop = await openBookshop(database);
    try {
      await shop.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = shop.app.server.address() as AddressInfo;
      const { scenario } = (await import(
        `${pathToFileURL(join(dir, 'dist/bookshop/scenario.js')).href}?${database.name}`
      )) as {
        // biome-ignore lint/suspicious/noExplicitAny: the scenario's results, JSON compared by the assertions
        scenario(baseUrl: string, admin: { email: string; password: string }): Promise<any>;
      };
      const seen = await scenario(`http://127.0.0.1:${port}`, { email: ADMIN.email, password: ADMIN.password });

      expect(seen.herbert).toMatchObject({ '@type': 'Author', name: 'Frank Herbert' });
      expect(seen.herbert['@id']).toBe(`/api/authors/${seen.herbert.id}`);
      expect(seen.dune).toMatchObject({
        '@id': `/api/books/${seen.dune.id}`,
        title: 'Dune',
        author: seen.herbert['@id'],
      });
      expect(seen.leGuin).toMatchObject({ '@type': 'Author', name: 'Ursula K. Le Guin' });
      expect(seen.filtered).toEqual({ titles: ['Dune', 'Children of Dune'], total: 2 });
      expect(seen.byAuthorName).toEqual(['The Dispossessed']);
      expect(seen.anyOf).toEqual(['Children of Dune', 'The Dispossessed']);
      expect(seen.paged.titles).toEqual(['The Dispossessed']);
      expect(seen.paged.view['hydra:previous']).toBe('/api/books?order%5Bid%5D=asc&itemsPerPage=2&page=1');
      expect(seen.ofHerbert).toEqual(['Children of Dune', 'Dune']);
      expect(seen.read).toEqual(seen.readByIri);
      expect(seen.read).toMatchObject({ '@context': '/api/contexts/Book', title: 'Dune' });
      expect(seen.etag).toMatch(/^"[^"]+"$/);
      expect(seen.stale).toMatchObject({ status: 412 });
      // PATCH is a merge patch: the author is kept.
      expect(seen.patched).toMatchObject({ title: 'Dune (1965)', author: seen.herbert['@id'] });
      expect(seen.replaced).toMatchObject({ '@id': seen.herbert['@id'], name: 'Frank Patrick Herbert' });
      expect(seen.deleted).toBeUndefined();
      expect(seen.gone).toMatchObject({ status: 404, violations: [] });
      expect(seen.invalid).toEqual({
        status: 400,
        violations: ['title: This value is too short. It should have 3 characters or more.'],
        detail: 'title: This value is too short. It should have 3 characters or more.',
      });
      expect(seen.wrongIri).toBe('TypeError: "/api/authors/1" is not an IRI of /api/books.');

      expect(seen.anonymous).toMatchObject({ status: 401, violations: [] });
      expect(seen.registered).toMatchObject({ '@type': 'User', email: 'reader@example.com' });
      expect(seen.registered).not.toHaveProperty('plainPassword');
      expect(seen.asUser).toBe(0);
      expect(seen.forbidden).toMatchObject({ status: 403 });
      expect(seen.badLogin).toMatchObject({ status: 401 });
      expect(seen.range).toEqual(['Hammer 12.5', 'Nail 0.05']);
      expect(seen.hammer).toEqual({ brand: 'Acme', category: 'Tools' });
      expect(seen.between).toEqual(['Hammer', 'Saw']);
      expect(seen.ofCategory).toEqual(['Hammer']);
    } finally {
      await shop.close();
    }
  }, 60_000);

  it('calls the custom operations of a running app through the generated client', async () => {
    expect(compiled.code).toBe(0);
    const app = await buildTestApp({ database, resources: newsroom });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      const { scenario } = (await import(
        `${pathToFileURL(join(dir, 'dist/newsroom/scenario.js')).href}?${database.name}`
      )) as {
        // biome-ignore lint/suspicious/noExplicitAny: the scenario's results, JSON compared by the assertions
        scenario(baseUrl: string): Promise<any>;
      };
      const seen = await scenario(`http://127.0.0.1:${port}`);
      const iri = seen.article['@id'];
      expect(seen.article).toMatchObject({ '@type': 'Article', published: false, wordCount: 3 });
      expect(seen.published).toMatchObject({ '@id': iri, published: true, wordCount: 3 });
      expect(seen.publishedByIri).toMatchObject({ '@id': iri, published: true });
      // A shape-less body is applied as an update: what is left out is kept.
      expect(seen.renamed).toMatchObject({ '@id': iri, title: 'Hello again', slug: 'hello-world', published: true });
      expect(seen.stats).toEqual({
        '@context': '/api/contexts/AuthorStats',
        '@id': `${seen.author['@id']}/stats`,
        '@type': 'AuthorStats',
        articleCount: 2,
        latestTitle: 'Second thoughts',
      });
      expect(seen.bySlug).toMatchObject({ '@id': iri, title: 'Hello again' });
      expect(seen.preview).toEqual({
        '@context': '/api/contexts/ArticlePreview',
        '@id': '/api/articles/preview',
        '@type': 'ArticlePreview',
        title: 'Draft',
        words: 4,
        draftedAt: '2024-01-02T00:00:00+00:00',
      });
      expect(seen.archived).toBeUndefined();
      expect(seen.afterArchive).toMatchObject({ '@id': iri, published: false });
      expect(seen.missing).toMatchObject({ status: 404 });
      expect(seen.changed).toBeUndefined();
      expect(seen.wrong).toMatchObject({ status: 403 });
      expect(seen.tooShort).toEqual({
        status: 400,
        violations: ['newPassword: This value is too short. It should have 8 characters or more.'],
      });
    } finally {
      await app.close();
    }
  }, 60_000);

  it('runs the samples of docs/typed-client.md', async () => {
    expect(compiled.code).toBe(0);
    expect(docsSamples()).toHaveLength(3);
    const shop = await openBookshop(database);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await shop.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = shop.app.server.address() as AddressInfo;
      // The samples call the page's server: here, the test bookshop (a copy per database, beside the compiled one).
      const sample = async (name: string) => {
        const compiledSample = readFileSync(join(dir, 'dist/bookshop', `${name}.js`), 'utf8');
        const file = join(dir, 'dist/bookshop', `${name}.${database.name}.js`);
        writeFileSync(file, compiledSample.replaceAll(DOCS_BASE_URL, `http://127.0.0.1:${port}`));
        return import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
      };
      await sample('docs-1');
      expect(log.mock.calls).toEqual([
        [1, ['Dune']],
        ['Dune (1965)', true],
        [1],
        [
          400,
          [
            {
              propertyPath: 'title',
              message: 'This value is too short. It should have 3 characters or more.',
              code: '9ff3fdc4-b214-49db-8718-39c315e33d45',
            },
          ],
        ],
        [[]],
      ]);
      const books = await shop.app.inject({ method: 'GET', url: '/api/books' });
      expect(books.json()['hydra:member'].map((book: { title: string }) => book.title)).toEqual(['The Dispossessed']);

      const { rename } = (await sample('docs-3')) as { rename(id: number, title: string): Promise<boolean> };
      const id = books.json()['hydra:member'][0].id as number;
      expect(await rename(id, 'The Dispossessed (1974)')).toBe(true);
      expect((await shop.app.inject({ method: 'GET', url: `/api/books/${id}` })).json().title).toBe(
        'The Dispossessed (1974)',
      );
    } finally {
      log.mockRestore();
      await shop.close();
    }
  }, 60_000);
});
