/**
 * Wrong declarations of custom operations, shapes, hooks and computed fields stop start-up with a message naming the
 * resource and the operation (or field), with "did you mean" where it helps.
 */
import { describe, expect, it } from 'vitest';
import {
  buildMetadata,
  defineResource,
  defineShape,
  type OperationDeclaration,
  type ResourceDeclaration,
  type StateProvider,
  Unique,
} from '@resource-api/core';

const provider: StateProvider = { provide: async () => null };
const book = (
  operations: ReadonlyArray<OperationDeclaration | 'get' | 'post'>,
  extra: Partial<ResourceDeclaration> = {},
): ResourceDeclaration => ({
  name: 'Book',
  fields: { title: { type: 'string' } },
  operations,
  ...extra,
});
const build =
  (...resources: ResourceDeclaration[]) =>
  () =>
    buildMetadata({ resources });

describe('wrong custom operations', () => {
  it('refuses a template variable nothing resolves, naming the resource and operation', () => {
    expect(build(book([{ kind: 'post', name: 'publish', uriTemplate: '/books/{bookId}/publish' }]))).toThrow(
      'Resource "Book", operation "publish": uriTemplate "/books/{bookId}/publish": nothing resolves {bookId}. The built-in provider knows {id} (the Book\'s identifier). Declare a "provider" or "processor" of the operation to read other variables from context.uriVariables.',
    );
    expect(build(book([{ kind: 'post', name: 'publish', uriTemplate: '/books/{di}/publish' }]))).toThrow(
      'Did you mean "id"?',
    );
    // The operation's own provider reads any variable.
    expect(build(book([{ kind: 'get', name: 'bySlug', uriTemplate: '/books/by/{slug}', provider }]))).not.toThrow();
  });

  it('refuses a route another operation has, and one that hides a built-in route', () => {
    expect(build(book(['get', { kind: 'get', name: 'show', uriTemplate: '/books/{id}' }]))).toThrow(
      'Resource "Book", operation "show": its route GET /api/books/{id} is already the route of resource "Book", operation "get" (GET /api/books/{id}).',
    );
    expect(
      build(
        book([
          { kind: 'get', name: 'a', uriTemplate: '/books/{id}/x' },
          { kind: 'get', name: 'b', uriTemplate: '/books/{id}/x' },
        ]),
      ),
    ).toThrow('its route GET /api/books/{id}/x is already the route of');
    expect(
      build(
        book([
          { kind: 'post', name: 'a', uriTemplate: '/books/{id}/x' },
          { kind: 'get', name: 'b', uriTemplate: '/books/{id}/x' },
        ]),
      ),
    ).not.toThrow();
  });

  it('refuses a name without a template, a template without a name, and a name that is no camelCase identifier', () => {
    expect(build(book([{ kind: 'post', name: 'publish' }]))).toThrow(
      'Resource "Book", operation "publish": a custom operation needs a "uriTemplate" (e.g. "/books/{id}/publish").',
    );
    expect(build(book([{ kind: 'post', uriTemplate: '/books/{id}/publish' }]))).toThrow(
      'a custom operation needs a "name" in camelCase (e.g. "publish") beside its "uriTemplate".',
    );
    expect(build(book([{ kind: 'post', name: 'Publish-it', uriTemplate: '/books/{id}/publish' }]))).toThrow(
      'needs a "name" in camelCase',
    );
    expect(build(book([{ kind: 'post', name: 'publish', uriTemplate: 'books/{id}' }]))).toThrow(
      'uriTemplate "books/{id}" must be a path under the prefix',
    );
    expect(build(book([{ kind: 'post', name: 'publish', uriTemplate: '/books/{id}/{id}' }]))).toThrow(
      'names {id} twice',
    );
    // Operation names stay identifiers whatever the path's characters.
    expect(
      buildMetadata({
        resources: [book([{ kind: 'get', name: 'bySlug', uriTemplate: '/books/by-slug/{slug}', provider }])],
      }).resources[0]!.operations[0]!.name,
    ).toBe('api_books_by_slug_slug_get');
  });

  it('refuses a second built-in operation of a kind, telling how to make it a custom one', () => {
    expect(build(book(['get', { kind: 'get', normalizationGroups: ['x'] }]))).toThrow(
      'Resource "Book", operation "get": declared twice. A second "get" is a custom operation: give it a "name" and its own "uriTemplate".',
    );
  });

  it('refuses two custom operations of one name, unknown options, and options that do not fit the kind', () => {
    expect(
      build(
        book([
          { kind: 'post', name: 'x', uriTemplate: '/books/{id}/a' },
          { kind: 'patch', name: 'x', uriTemplate: '/books/{id}/b' },
        ]),
      ),
    ).toThrow('Resource "Book", operation "x": another custom operation of "Book" has this name.');
    expect(build(book([{ kind: 'post', name: 'x', uriTemplate: '/books/{id}/a', inptu: false } as never]))).toThrow(
      'Resource "Book", operation "x": unknown option "inptu". Did you mean "input"?',
    );
    expect(build(book([{ kind: 'get', name: 'x', uriTemplate: '/books/{id}/a', input: false }]))).not.toThrow();
    expect(
      build(
        book([
          { kind: 'get', name: 'x', uriTemplate: '/books/{id}/a', input: defineShape({ name: 'In', fields: {} }) },
        ]),
      ),
    ).toThrow('a get reads no body, so it takes no "input"');
    expect(build(book([{ kind: 'get', name: 'x', uriTemplate: '/books/x' }]))).toThrow(
      'a "get" reads an item: its uriTemplate needs {id}, or the operation a "provider" of its own.',
    );
    expect(
      build(
        book([{ kind: 'delete', name: 'x', uriTemplate: '/books/x', processor: { process: async () => undefined } }]),
      ),
    ).toThrow('a "delete" removes an item: its uriTemplate needs {id}.');
    expect(build(book([{ kind: 'post', name: 'x', uriTemplate: '/books/{id}/a', status: 302 }]))).toThrow(
      '"status" must be a 2xx status code, 302 given.',
    );
    expect(build(book([{ kind: 'post', name: 'x', uriTemplate: '/books/{id}/a', status: 204 }]))).toThrow(
      'status 204 sends no body; declare "output: false" too.',
    );
    expect(build(book([{ kind: 'post', status: 200 }]))).toThrow(
      'Resource "Book", operation "post": "status" is for custom operations (with "name" and "uriTemplate").',
    );
    expect(
      build(book([{ kind: 'post', name: 'x', uriTemplate: '/books/{id}/a', processor: { run: () => null } as never }])),
    ).toThrow('"processor" must be an object with a process() method.');
  });

  it('refuses wrong hooks, naming them', () => {
    expect(build(book(['post'], { hooks: { afterComit: () => {} } as never }))).toThrow(
      'Resource "Book", operation "post": unknown hook "afterComit". Did you mean "afterCommit"?',
    );
    expect(build(book([{ kind: 'post', hooks: { beforeWrite: 'log' as never } }]))).toThrow(
      'hook "beforeWrite" must be a function or a list of functions.',
    );
  });

  it('refuses wrong shapes', () => {
    const shaped = (input: unknown) =>
      build(book([{ kind: 'post', name: 'x', uriTemplate: '/books/{id}/a', input: input as never }]));
    expect(shaped({ fields: {} })).toThrow(
      'Resource "Book", operation "x", input: a shape is a defineShape({ name, fields }) object or an @ApiShape class.',
    );
    expect(shaped(class NotAShape {})).toThrow('class "NotAShape" is not decorated with @ApiShape.');
    expect(shaped(defineShape({ name: 'Book', fields: {} }))).toThrow('Shape "Book": a resource has this name already');
    expect(shaped(defineShape({ name: 'Error', fields: {} }))).toThrow(
      'Shape "Error": "Error" is the name of a document the framework serves itself',
    );
    expect(shaped(defineShape({ name: 'In', fields: { author: { toOne: 'Author' } as never } }))).toThrow(
      'Shape "In", field "author": a shape holds scalar fields only',
    );
    expect(shaped(defineShape({ name: 'In', fields: { n: { type: 'integr' as never } } }))).toThrow(
      'Resource "In", field "n": unknown type "integr". Did you mean "integer"?',
    );
    expect(shaped(defineShape({ name: 'In', fields: { n: { type: 'string', constraints: [Unique()] } } }))).toThrow(
      'Shape "In", field "n": Unique compares with stored items, and a shape is never stored',
    );
    const a = defineShape({ name: 'Same', fields: {} });
    const b = defineShape({ name: 'Same', fields: { x: { type: 'string' } } });
    expect(
      build(
        book([
          { kind: 'post', name: 'x', uriTemplate: '/books/{id}/a', input: a },
          { kind: 'post', name: 'y', uriTemplate: '/books/{id}/b', input: b },
        ]),
      ),
    ).toThrow('another shape is named "Same" already');
    expect(
      build(
        book([
          { kind: 'post', name: 'x', uriTemplate: '/books/{id}/a', input: a },
          { kind: 'post', name: 'y', uriTemplate: '/books/{id}/b', output: a },
        ]),
      ),
    ).not.toThrow();
  });
});

describe('wrong computed fields', () => {
  const computed = (field: object, extra: Partial<ResourceDeclaration> = {}) =>
    build(defineResource({ name: 'Book', fields: { title: { type: 'string' }, size: field as never }, ...extra }));

  it('refuses a computed field that would be stored or written', () => {
    expect(computed({ type: 'integer', computed: 3 })).toThrow(
      'Resource "Book", field "size": "computed" must be a function of the item.',
    );
    expect(computed({ type: 'integer', computed: () => 1, default: 0 })).toThrow(
      'a computed field has no "default" (it is never stored).',
    );
    expect(computed({ type: 'integer', computed: () => 1, column: 'size' })).toThrow(
      'a computed field has no "column"',
    );
    expect(computed({ type: 'integer', computed: () => 1, writable: true })).toThrow(
      'a computed field is read-only; it cannot be writable.',
    );
  });

  it('refuses a built-in filter or order on a computed field', () => {
    expect(
      computed({ type: 'integer', computed: () => 1 }, { filters: [{ type: 'range', properties: ['size'] }] }),
    ).toThrow('"size" is a computed field (it has no column): filter or order by it with a custom filter.');
    expect(computed({ type: 'integer', computed: () => 1 }, { order: { size: 'asc' } })).toThrow('is a computed field');
  });
});
