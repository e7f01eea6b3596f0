/**
 * `debug:resources` on the bookshop, through the binary: the overview tables (every resource with its filter
 * parameters, every operation with method, path, access rule and groups), one resource in detail, `--json`, and a
 * resource name that does not exist. Then on a newsroom with custom operations, shapes and a computed field.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, projectFolder, runCli } from './support/cli.js';

/** A config with custom operations (no body, a shape-less update, an output shape, an input shape), hooks and a computed field. */
const NEWSROOM = `import { defineResource, defineShape, Length, NotBlank } from '@resource-api/core';
const AuthorStats = defineShape({ name: 'AuthorStats', description: 'What an author has written.', fields: { articleCount: { type: 'integer' } } });
const ChangePassword = defineShape({
  name: 'ChangePassword',
  fields: { currentPassword: { type: 'string', constraints: [NotBlank()] }, newPassword: { type: 'string', constraints: [Length({ min: 8 })] } },
});
const provider = { async provide() { return { articleCount: 0 }; } };
const processor = { async process() {} };
function stampPublication() {}
const Author = defineResource({
  name: 'Author',
  operations: ['get', { kind: 'get', name: 'stats', uriTemplate: '/authors/{id}/stats', output: AuthorStats, provider }],
  fields: { name: { type: 'string' } },
});
const Article = defineResource({
  name: 'Article',
  operations: [
    'getCollection', 'get',
    { kind: 'post', name: 'publish', uriTemplate: '/articles/{id}/publish', input: false, status: 202, hooks: { beforeWrite: stampPublication } },
    { kind: 'post', name: 'rename', uriTemplate: '/articles/{id}/rename' },
  ],
  fields: { title: { type: 'string' }, body: { type: 'text', nullable: true }, wordCount: { type: 'integer', nullable: true, computed: (a) => String(a.body ?? '').split(' ').length } },
});
const User = defineResource({
  name: 'User',
  operations: ['get', { kind: 'post', name: 'changePassword', uriTemplate: '/users/{id}/change-password', input: ChangePassword, output: false, processor }],
  fields: { email: { type: 'string' } },
});
export default { resources: [Author, Article, User], database: 'sqlite::memory:' };
`;

let newsroom: string;

beforeAll(async () => {
  newsroom = projectFolder('cli-debug-newsroom-');
  writeFileSync(join(newsroom, 'resource-api.config.js'), NEWSROOM);
  await ensureCliBuilt();
}, 200_000);

afterAll(() => rmSync(newsroom, { recursive: true, force: true }));

/** The cells of the table row that starts with `first` (the `║ a │ b ║` lines of the `table` package). */
function row(output: string, ...first: string[]): string[] {
  const rows = output
    .split('\n')
    .filter((line) => line.startsWith('║'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('│')
        .map((cell) => cell.trim()),
    );
  const found = rows.find((cells) => first.every((value, index) => cells[index] === value));
  if (!found) throw new Error(`No row starting with ${first.join(' | ')} in:\n${output}`);
  return found;
}

describe('debug:resources', () => {
  it('lists every resource with its path, table, fields and filter parameters, and every operation', async () => {
    const run = await runCli(['debug:resources']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Resources \(10\)\n/);
    const book = row(run.stdout, 'Book');
    expect(book.slice(0, 4)).toEqual(['Book', '/api/books', 'book', 'title, author, cover']);
    expect(book[4]).toMatch(/^q, order\[id\], order\[title\], author, author\[\], author\.name,/);
    // 54 built-in and subresource operations (MediaObject's 3 among them), the 4 custom ones (Comment's restore among
    // them), AuditEntry's 2.
    expect(run.stdout).toMatch(/Operations \(60\)/);
    expect(row(run.stdout, 'Book', 'api_books_id_patch')).toEqual([
      'Book',
      'api_books_id_patch',
      'PATCH',
      '/api/books/{id}',
      '—',
      '—',
      '—',
    ]);
    expect(row(run.stdout, 'Book', 'api_authors_books_get_subresource').slice(2, 4)).toEqual([
      'GET',
      '/api/authors/{id}/books',
    ]);
    expect(row(run.stdout, 'Comment', 'api_comments_id_put')[4]).toBe(
      "is_granted('ROLE_USER') and object.user == user",
    );
    expect(row(run.stdout, 'Product', 'api_products_get_collection').slice(4)).toEqual([
      "is_granted('ROLE_USER')",
      'product:read',
      '—',
    ]);
    expect(row(run.stdout, 'User', 'api_users_post').slice(4)).toEqual(['—', '(function byRole)', '(function byRole)']);
  });

  it('shows one resource in detail: operations, each filter parameter, fields with groups, rules and constraints', async () => {
    const run = await runCli(['debug:resources', 'Book']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Book: A book, written by one author\.\n {2}path \/api\/books, table book\n/);
    expect(row(run.stdout, 'api_books_get_collection')).toEqual([
      'api_books_get_collection',
      'GET',
      '/api/books',
      '200',
      '—',
      '—',
      '—',
      '—',
      'Default',
      'pages of 10',
    ]);
    expect(row(run.stdout, 'api_books_post').slice(1, 4)).toEqual(['POST', '/api/books', '201']);
    expect(row(run.stdout, '1', 'q')).toEqual([
      '1',
      'q',
      '—',
      'string',
      'no',
      "Text in the title or in the author's name.",
    ]);
    expect(row(run.stdout, '2', 'order[title]').slice(2, 4)).toEqual(['title', 'asc|desc']);
    expect(row(run.stdout, '3', 'author.name[]').slice(2, 5)).toEqual(['author.name', 'string', 'yes']);
    expect(row(run.stdout, 'title')).toEqual([
      'title',
      'string',
      'title',
      'no',
      'yes',
      'yes',
      '—',
      '—',
      'NotBlank, Length',
    ]);
    expect(row(run.stdout, 'author').slice(0, 3)).toEqual(['author', 'toOne Author', 'author_id']);

    const user = await runCli(['debug:resources', 'user']);
    expect(user.code).toBe(0);
    expect(row(user.stdout, 'api_users_id_get').slice(4, 8)).toEqual([
      "is_granted('ROLE_ADMIN') or object == user",
      '—',
      '(function byRole)',
      '(function byRole)',
    ]);
    expect(row(user.stdout, 'roles').slice(6)).toEqual(['admin', '—', '—']);
    expect(row(user.stdout, 'isCompany')[5]).toBe('on create');
  });

  it('prints the same as JSON with --json', async () => {
    const run = await runCli(['debug:resources', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const resources = JSON.parse(run.stdout) as {
      name: string;
      filters: { parameter: string }[];
      operations: { method: string; path: string; rule: string | null }[];
    }[];
    expect(resources.map((r) => r.name)).toEqual([
      'Author',
      'Book',
      'User',
      'Comment',
      'Category',
      'Brand',
      'Product',
      'Article',
      'AuditEntry',
      'MediaObject',
    ]);
    const book = resources.find((r) => r.name === 'Book')!;
    expect(book.filters.map((f) => f.parameter)).toContain('author.name');
    expect(book.operations).toContainEqual(
      expect.objectContaining({ method: 'DELETE', path: '/api/books/{id}', rule: null }),
    );
    const one = JSON.parse((await runCli(['debug:resources', 'Brand', '--json'])).stdout) as {
      name: string;
      operations: { rule: string | null }[];
    };
    expect(one.name).toBe('Brand');
    expect(one.operations.map((o) => o.rule)).toEqual([null, null, ...Array(4).fill("is_granted('ROLE_ADMIN')")]);
  });

  it('an unknown resource exits 1, naming the closest one and the list', async () => {
    const run = await runCli(['debug:resources', 'Bok']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'resource-api debug:resources: No resource "Bok". Did you mean "Book"? The resources are: Author, Book, User, Comment, Category, Brand, Product, Article, AuditEntry, MediaObject. The shapes are: AuthorStats, ChangePassword.\n',
    });
  });
});

describe('debug:resources with custom operations and shapes', () => {
  it('lists the custom operations with name, method, path, input, output and status, and the shapes', async () => {
    const run = await runCli(['debug:resources'], { cwd: newsroom });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(row(run.stdout, 'Article').slice(0, 4)).toEqual([
      'Article',
      '/api/articles',
      'article',
      'title, body, wordCount (computed)',
    ]);
    expect(run.stdout).toMatch(/\nCustom operations \(4\)\n/);
    expect(row(run.stdout, 'Author', 'stats')).toEqual([
      'Author',
      'stats',
      'api_authors_id_stats_get',
      'GET',
      '/api/authors/{id}/stats',
      'none',
      'AuthorStats',
      '200',
      '—',
    ]);
    expect(row(run.stdout, 'Article', 'publish')).toEqual([
      'Article',
      'publish',
      'api_articles_id_publish_post',
      'POST',
      '/api/articles/{id}/publish',
      'none',
      'Article',
      '202',
      'beforeWrite (function stampPublication)',
    ]);
    expect(row(run.stdout, 'Article', 'rename').slice(5, 8)).toEqual(['Article (update)', 'Article', '200']);
    expect(row(run.stdout, 'User', 'changePassword').slice(3, 8)).toEqual([
      'POST',
      '/api/users/{id}/change-password',
      'ChangePassword',
      'none',
      '204',
    ]);
    expect(run.stdout).toMatch(/\nShapes \(2\)\n/);
    expect(row(run.stdout, 'AuthorStats')).toEqual(['AuthorStats', 'articleCount', 'Author.stats (output)']);
    expect(row(run.stdout, 'ChangePassword')).toEqual([
      'ChangePassword',
      'currentPassword, newPassword',
      'User.changePassword (input)',
    ]);
    expect(run.stdout).toContain('Run "resource-api debug:resources <resource>" for one resource or shape in detail.');
  });

  it("shows a resource's custom operations and computed fields in detail, and a shape by its name", async () => {
    const article = await runCli(['debug:resources', 'Article'], { cwd: newsroom });
    expect(article).toMatchObject({ code: 0, stderr: '' });
    expect(article.stdout).toMatch(/\nCustom operations \(2\)\n/);
    expect(row(article.stdout, 'publish')).toEqual([
      'publish',
      'api_articles_id_publish_post',
      'POST',
      '/api/articles/{id}/publish',
      'none',
      'Article',
      '202',
      'beforeWrite (function stampPublication)',
    ]);
    expect(row(article.stdout, 'wordCount').slice(0, 6)).toEqual([
      'wordCount',
      'integer, computed',
      '—',
      'yes',
      'yes',
      'no',
    ]);

    const shape = await runCli(['debug:resources', 'changepassword'], { cwd: newsroom });
    expect(shape).toMatchObject({ code: 0, stderr: '' });
    expect(shape.stdout).toMatch(
      /^ChangePassword\n {2}a shape \(no table, no operation of its own\), used by User\.changePassword \(input\)\n/,
    );
    expect(row(shape.stdout, 'newPassword')).toEqual(['newPassword', 'string', 'no', 'yes', 'yes', '—', 'Length']);

    const json = JSON.parse((await runCli(['debug:resources', 'Author', '--json'], { cwd: newsroom })).stdout) as {
      operations: Record<string, unknown>[];
      fields: unknown[];
    };
    expect(json.operations[1]).toMatchObject({
      name: 'api_authors_id_stats_get',
      customName: 'stats',
      method: 'GET',
      path: '/api/authors/{id}/stats',
      input: null,
      output: 'AuthorStats',
      status: 200,
      hooks: [],
    });
    expect(json.operations[0]).toMatchObject({ customName: null, output: 'Author' });
    const fields = JSON.parse((await runCli(['debug:resources', 'Article', '--json'], { cwd: newsroom })).stdout)
      .fields as { name: string; computed: boolean; column: string | null }[];
    expect(fields.find((f) => f.name === 'wordCount')).toMatchObject({ computed: true, column: null });
    expect(fields.find((f) => f.name === 'title')).toMatchObject({ computed: false, column: 'title' });

    const unknown = await runCli(['debug:resources', 'AuthorStat'], { cwd: newsroom });
    expect(unknown).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'resource-api debug:resources: No resource "AuthorStat". Did you mean "AuthorStats"? The resources are: Author, Article, User. The shapes are: AuthorStats, ChangePassword.\n',
    });
  });
});
