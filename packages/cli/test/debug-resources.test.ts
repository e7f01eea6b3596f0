/**
 * `debug:resources` on the bookshop, through the binary: the overview tables (every resource with its filter
 * parameters, every operation with method, path, access rule and groups), one resource in detail, `--json`, and a
 * resource name that does not exist.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, runCli } from './support/cli.js';

beforeAll(async () => {
  await ensureCliBuilt();
}, 200_000);

/** The cells of the table row that starts with `first` (the `║ a │ b ║` lines of the `table` package). */
function row(output: string, ...first: string[]): string[] {
  const rows = output.split('\n').filter((line) => line.startsWith('║')).map((line) => line.slice(1, -1).split('│').map((cell) => cell.trim()));
  const found = rows.find((cells) => first.every((value, index) => cells[index] === value));
  if (!found) throw new Error(`No row starting with ${first.join(' | ')} in:\n${output}`);
  return found;
}

describe('debug:resources', () => {
  it('lists every resource with its path, table, fields and filter parameters, and every operation', async () => {
    const run = await runCli(['debug:resources']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Resources \(8\)\n/);
    const book = row(run.stdout, 'Book');
    expect(book.slice(0, 4)).toEqual(['Book', '/api/books', 'book', 'title, author']);
    expect(book[4]).toMatch(/^q, order\[id\], order\[title\], author, author\[\], author\.name,/);
    expect(run.stdout).toMatch(/Operations \(51\)/);
    expect(row(run.stdout, 'Book', 'api_books_id_patch')).toEqual(['Book', 'api_books_id_patch', 'PATCH', '/api/books/{id}', '—', '—', '—']);
    expect(row(run.stdout, 'Book', 'api_authors_books_get_subresource').slice(2, 4)).toEqual(['GET', '/api/authors/{id}/books']);
    expect(row(run.stdout, 'Comment', 'api_comments_id_put')[4]).toBe("is_granted('ROLE_USER') and object.user == user");
    expect(row(run.stdout, 'Product', 'api_products_get_collection').slice(4)).toEqual(["is_granted('ROLE_USER')", 'product:read', '—']);
    expect(row(run.stdout, 'User', 'api_users_post').slice(4)).toEqual(['—', '(function byRole)', '(function byRole)']);
  });

  it('shows one resource in detail: operations, each filter parameter, fields with groups, rules and constraints', async () => {
    const run = await runCli(['debug:resources', 'Book']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Book: A book, written by one author\.\n {2}path \/api\/books, table book\n/);
    expect(row(run.stdout, 'api_books_get_collection')).toEqual(['api_books_get_collection', 'GET', '/api/books', '200', '—', '—', '—', '—', 'Default', 'pages of 10']);
    expect(row(run.stdout, 'api_books_post').slice(1, 4)).toEqual(['POST', '/api/books', '201']);
    expect(row(run.stdout, '1', 'q')).toEqual(['1', 'q', '—', 'string', 'no', "Text in the title or in the author's name."]);
    expect(row(run.stdout, '2', 'order[title]').slice(2, 4)).toEqual(['title', 'asc|desc']);
    expect(row(run.stdout, '3', 'author.name[]').slice(2, 5)).toEqual(['author.name', 'string', 'yes']);
    expect(row(run.stdout, 'title')).toEqual(['title', 'string', 'title', 'no', 'yes', 'yes', '—', '—', 'NotBlank, Length']);
    expect(row(run.stdout, 'author').slice(0, 3)).toEqual(['author', 'toOne Author', 'author_id']);

    const user = await runCli(['debug:resources', 'user']);
    expect(user.code).toBe(0);
    expect(row(user.stdout, 'api_users_id_get').slice(4, 8)).toEqual(["is_granted('ROLE_ADMIN') or object == user", '—', '(function byRole)', '(function byRole)']);
    expect(row(user.stdout, 'roles').slice(6)).toEqual(['admin', '—', '—']);
    expect(row(user.stdout, 'isCompany')[5]).toBe('on create');
  });

  it('prints the same as JSON with --json', async () => {
    const run = await runCli(['debug:resources', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const resources = JSON.parse(run.stdout) as { name: string; filters: { parameter: string }[]; operations: { method: string; path: string; rule: string | null }[] }[];
    expect(resources.map((r) => r.name)).toEqual(['Author', 'Book', 'User', 'Comment', 'Category', 'Brand', 'Product', 'Article']);
    const book = resources.find((r) => r.name === 'Book')!;
    expect(book.filters.map((f) => f.parameter)).toContain('author.name');
    expect(book.operations).toContainEqual(expect.objectContaining({ method: 'DELETE', path: '/api/books/{id}', rule: null }));
    const one = JSON.parse((await runCli(['debug:resources', 'Brand', '--json'])).stdout) as { name: string; operations: { rule: string | null }[] };
    expect(one.name).toBe('Brand');
    expect(one.operations.map((o) => o.rule)).toEqual([null, null, ...Array(4).fill("is_granted('ROLE_ADMIN')")]);
  });

  it('an unknown resource exits 1, naming the closest one and the list', async () => {
    const run = await runCli(['debug:resources', 'Bok']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'resource-api debug:resources: No resource "Bok". Did you mean "Book"? The resources are: Author, Book, User, Comment, Category, Brand, Product, Article.\n',
    });
  });
});
