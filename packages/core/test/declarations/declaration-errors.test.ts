/** Wrong declarations fail at start-up with a message naming the resource and the field, and a "did you mean". */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  ApiProperty,
  ApiResource,
  buildMetadata,
  DeclarationError,
  defineResource,
  defineShape,
  resourceApi,
  type ResourceDeclaration,
} from '@resource-api/core';

const author = defineResource({
  name: 'Author',
  fields: { name: { type: 'string' }, books: { toMany: 'Book', mappedBy: 'author' } },
});
const book = (
  fields: ResourceDeclaration['fields'],
  extra: Partial<ResourceDeclaration> = {},
): ResourceDeclaration => ({ name: 'Book', fields, ...extra });
const build =
  (...resources: ResourceDeclaration[]) =>
  () =>
    buildMetadata({ resources });

describe('wrong declarations', () => {
  it('names an unknown relation target and suggests the near one', () => {
    expect(build(author, book({ author: { toOne: 'Autor' } }))).toThrow(
      'Resource "Book", field "author": unknown relation target "Autor". Did you mean "Author"?',
    );
  });

  it('names an unknown field option and suggests the near one', () => {
    expect(build(book({ title: { type: 'string', nulable: true } as never }))).toThrow(
      'Resource "Book", field "title": unknown option "nulable". Did you mean "nullable"?',
    );
  });

  it('names a bad type and suggests the near one', () => {
    expect(build(book({ title: { type: 'strng' as never } }))).toThrow(
      'Resource "Book", field "title": unknown type "strng". Did you mean "string"?',
    );
    expect(build(book({ at: { type: 'date-time' as never } }))).toThrow('Did you mean "datetime"?');
  });

  it('refuses a field without any type', () => {
    expect(build(book({ title: { tpye: 'string' } as never }))).toThrow(
      'Resource "Book", field "title": unknown option "tpye". Did you mean "type"?',
    );
    expect(build(book({ title: {} as never }))).toThrow('Resource "Book", field "title": give a "type"');
  });

  it('refuses the column names it keeps for itself, and a field named __proto__', () => {
    expect(build(book({ resourceApiTotal: { type: 'integer' } }))).toThrow(
      'Resource "Book", field "resourceApiTotal": column "resource_api_total": names starting with "resource_api_" are reserved',
    );
    expect(build(author, book({ author: { toOne: 'Author', column: 'resource_api_j1_0' } }))).toThrow(
      'column "resource_api_j1_0": names starting with "resource_api_" are reserved',
    );
    expect(build(book({ ['__proto__']: { type: 'string' } } as never))).toThrow(
      'Resource "Book", field "__proto__": "__proto__" cannot be a field name.',
    );
    expect(build(book({ total: { type: 'integer', column: 'resource_total' } }))).not.toThrow();
  });

  it('refuses a duplicate short name', () => {
    expect(build(author, { ...author })).toThrow('Resource "Author" is declared twice (duplicate short name).');
  });

  it('refuses a mistyped inverse side and suggests the field', () => {
    const withWorks = defineResource({
      name: 'Author',
      fields: { name: { type: 'string' }, books: { type: 'string' } },
    });
    expect(build(withWorks, book({ author: { toOne: 'Author', inversedBy: 'bokks' } }))).toThrow(
      'Resource "Book", field "author": inversedBy "bokks" is not a field of "Author". Did you mean "books"?',
    );
    expect(build(author, book({ author: { toOne: 'Author', inversedBy: 'bokks' } }))).toThrow(
      '"Book.author" says its inverse side is "bokks", not "books".',
    );
    expect(
      build(
        book({ x: { type: 'string' } }),
        defineResource({ name: 'Author', fields: { books: { toMany: 'Book', mappedBy: 'autor' } } }),
      ),
    ).toThrow('Resource "Author", field "books": mappedBy "autor" is not a field of "Book".');
  });

  it('refuses a mappedBy that is not a to-one pointing back', () => {
    expect(build(author, book({ author: { type: 'string' } }))).toThrow(
      'mappedBy "author" must be a to-one relation of "Book" pointing at "Author", or the owning side of a many-to-many.',
    );
  });

  it('refuses an unknown operation kind and suggests the near one', () => {
    expect(build(book({}, { operations: ['getCollecton' as never] }))).toThrow(
      'Resource "Book", operation "getCollecton": unknown operation kind. Did you mean "getCollection"?',
    );
    expect(build(book({}, { operations: ['get', 'get'] }))).toThrow(
      'Resource "Book", operation "get": declared twice.',
    );
  });

  it('refuses an unknown resource option and suggests the near one', () => {
    expect(build(book({}, { operation: [] } as never))).toThrow(
      'Resource "Book": unknown option "operation". Did you mean "operations"?',
    );
  });

  it('refuses a declared id, a default of the wrong type and a writable inverse side', () => {
    expect(build(book({ id: { type: 'integer' } }))).toThrow(
      'Resource "Book", field "id": "id" is the generated identifier',
    );
    expect(build(book({ pages: { type: 'integer', default: 'many' } }))).toThrow(
      'Resource "Book", field "pages": the default "many" is not a valid integer.',
    );
    expect(build(book({ pages: { type: 'integer', default: null } }))).toThrow('(the field is not nullable)');
    expect(
      build(
        book({ author: { toOne: 'Author' } }),
        defineResource({ name: 'Author', fields: { books: { toMany: 'Book', mappedBy: 'author', writable: true } } }),
      ),
    ).toThrow(
      'Resource "Author", field "books": with "mappedBy" this is the inverse side, read-only; write its owning side "author" instead',
    );
  });

  it('refuses names that are not PascalCase, clashing paths and reserved paths', () => {
    expect(build({ name: 'book', fields: {} })).toThrow('Resource "book": the short name must be PascalCase');
    expect(build({ name: 'Book', fields: {} }, { name: 'Novel', plural: 'books', fields: {} })).toThrow(
      'Resource "Novel": path "/books" is already used by resource "Book".',
    );
    expect(build({ name: 'Context', fields: {} })).toThrow('path "/contexts" is reserved');
  });

  it('refuses misplaced pagination options, a list of fields and impossible date defaults', () => {
    expect(build(book({}, { operations: [{ kind: 'get', paginationItemsPerPage: 5 }] }))).toThrow(
      'Resource "Book", operation "get": "paginationItemsPerPage" applies to the collection operation (getCollection) only.',
    );
    expect(build({ name: 'Book', fields: [] as never })).toThrow(
      'Resource "Book": "fields" must be an object of field declarations.',
    );
    expect(build(book({ on: { type: 'date', default: '2021-02-30' } }))).toThrow(
      'the default "2021-02-30" is not a valid date.',
    );
    expect(build(book({ at: { type: 'datetime', default: '2021-02-03T10:00:00' } }))).toThrow(
      'is not a valid datetime.',
    );
  });

  it('refuses join tables that clash with resource tables, storing relations to table-less resources, and writableLink on to-many', () => {
    const tag = defineResource({ name: 'Tag', fields: { label: { type: 'string' } } });
    expect(build(book({ tags: { toMany: 'Tag' } }), tag, { name: 'BookTags', fields: {} })).toThrow(
      'Resource "Book", field "tags": the join table "book_tags" is the table of resource "BookTags"; give "joinTable" another name.',
    );
    const moon = defineResource({
      name: 'Moon',
      fields: { name: { type: 'string' } },
      provider: { provide: async () => null },
      processor: { process: async () => undefined },
    });
    expect(build(book({ moon: { toOne: 'Moon', cascadePersist: true } }), moon)).toThrow(
      '"Moon" is served by its own provider and processor (it has no table), so this relation cannot create its items (cascadePersist).',
    );
    expect(build(book({ moons: { toMany: 'Moon' } }), moon)).toThrow('so this relation cannot be a many-to-many.');
    expect(build(book({ tags: { toMany: 'Tag', writableLink: true } }), tag)).toThrow(
      'writableLink is for to-one relations',
    );
  });

  it('refuses a database URL it cannot serve', async () => {
    const app = Fastify();
    await expect(
      app.register(resourceApi, { resources: [book({})], database: 'mssql://root@localhost/db' }),
    ).rejects.toThrow('Database URL "mssql://localhost/db" is not supported');
    await app.close();
  });

  it('refuses a class that is not decorated', () => {
    class Plain {}
    expect(() => buildMetadata({ resources: [Plain] })).toThrow(
      'Class "Plain" (resource #1) is not decorated with @ApiResource.',
    );
  });

  it('refuses a decorated relation to a class that is not a resource', () => {
    class NotAResource {}
    @ApiResource()
    class Review {
      @ApiProperty({ toOne: () => NotAResource }) subject!: unknown;
    }
    expect(() => buildMetadata({ resources: [Review] })).toThrow(
      'Resource "Review", field "subject": the relation target class "NotAResource" is not an @ApiResource class.',
    );
  });

  it('refuses a timestamp that is not a non-null, read-only datetime, or that is in a shape', () => {
    const field = (declaration: object) => build(book({ at: declaration as never }));
    expect(field({ type: 'datetime', timestamp: 'updated' })).toThrow(
      'Resource "Book", field "at": timestamp must be "create" or "update". Did you mean "update"?',
    );
    expect(field({ type: 'date', timestamp: 'create' })).toThrow(
      'Resource "Book", field "at": a timestamp is a "datetime" field, not "date".',
    );
    for (const key of ['default', 'nullable', 'immutable'])
      expect(field({ type: 'datetime', timestamp: 'create', [key]: key === 'default' ? 'now' : true })).toThrow(
        `Resource "Book", field "at": a timestamp has no "${key}"`,
      );
    expect(field({ type: 'datetime', timestamp: 'update', writable: true })).toThrow(
      'Resource "Book", field "at": a timestamp is set by the framework; it cannot be writable.',
    );
    expect(field({ type: 'datetime', timestamp: 'create', computed: () => new Date() })).toThrow(
      'a computed field is never stored; it cannot be a timestamp.',
    );
    const Stamped = defineShape({ name: 'Stamped', fields: { at: { type: 'datetime', timestamp: 'create' } } });
    expect(() =>
      buildMetadata({
        resources: [
          book({}, { operations: [{ kind: 'post', name: 'stamp', uriTemplate: '/books/stamp', input: Stamped }] }),
        ],
      }),
    ).toThrow('field "at": a shape is never stored, so nothing stamps it; a timestamp belongs on a resource.');
  });

  it('refuses a blame relation that is not nullable, is writable or is also a currentUser one', () => {
    const field = (declaration: object) =>
      build(author, book({ author: { toOne: 'Author' }, by: declaration as never }));
    expect(field({ toOne: 'Author', blame: 'created', nullable: true })).toThrow(
      'Resource "Book", field "by": blame must be "create" or "update". Did you mean "create"?',
    );
    expect(field({ toOne: 'Author', blame: 'create' })).toThrow(
      'Resource "Book", field "by": a blame relation is null after an anonymous write; declare it nullable: true.',
    );
    expect(field({ toOne: 'Author', blame: 'update', nullable: true, writable: true })).toThrow(
      'Resource "Book", field "by": a blame relation is set by the framework; it cannot be writable.',
    );
    expect(field({ toOne: 'Author', blame: 'update', nullable: true, currentUser: 'always' })).toThrow(
      'Resource "Book", field "by": blame and currentUser both fill the relation with the caller; keep one',
    );
    expect(field({ toOne: 'Author', blame: 'create', nullable: true, cascadePersist: true })).toThrow(
      'Resource "Book", field "by": a blame relation has no "cascadePersist"',
    );
  });

  it('refuses a blame relation to another resource than the user one', async () => {
    const app = Fastify();
    const user = defineResource({
      name: 'User',
      fields: { email: { type: 'string' }, plainPassword: { type: 'password' }, roles: { type: 'string[]' } },
    });
    await expect(
      app.register(resourceApi, {
        resources: [
          user,
          author,
          book({ author: { toOne: 'Author' }, by: { toOne: 'Author', blame: 'create', nullable: true } }),
        ],
        database: 'sqlite::memory:',
        security: { jwt: { secret: 'a-test-secret-that-is-long-enough-0123456789' }, users: { resource: 'User' } },
      }),
    ).rejects.toThrow('Resource "Book", field "by": blame needs a relation to the user resource "User", not "Author".');
    await app.close();
  });

  it('throws DeclarationError, so the plugin fails at start-up', async () => {
    const app = Fastify();
    await expect(
      app.register(resourceApi, { resources: [book({ author: { toOne: 'Autor' } })], database: 'sqlite::memory:' }),
    ).rejects.toBeInstanceOf(DeclarationError);
    await app.close();
  });
});
