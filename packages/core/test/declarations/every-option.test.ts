/**
 * Decorators and plain objects must give identical, frozen metadata: one declaration of every option, written both
 * ways, compared whole.
 */
import { describe, expect, it } from 'vitest';
import { ApiProperty, ApiResource, buildMetadata, defineResource, type StateProvider } from '@resource-api/core';

const provider: StateProvider = { provide: async () => null };

// Plain objects.
const PlainPublisher = defineResource({
  name: 'Publisher',
  plural: 'publishing_houses',
  table: 'publishers',
  description: 'Who prints books',
  operations: ['getCollection', 'get', { kind: 'post', description: 'Registers a publisher.' }],
  provider,
  requireIfMatch: true,
  types: ['https://schema.org/Organization'],
  fields: {
    name: { type: 'string', iri: 'https://schema.org/name', description: 'Trading name' },
    about: { type: 'text', nullable: true },
    founded: { type: 'integer', nullable: true, default: null },
    rating: { type: 'float', default: 2.5 },
    active: { type: 'boolean', default: true },
    createdAt: { type: 'datetime', default: 'now', writable: false },
    updatedAt: { type: 'datetime', timestamp: 'update' },
    foundedOn: { type: 'date', nullable: true, immutable: true },
    settings: { type: 'json', default: { a: 1 } },
    labels: { type: 'string[]', default: [] },
    secret: { type: 'password', nullable: true },
    internalNote: { type: 'string', readable: false, nullable: true, column: 'note' },
    categories: { toMany: 'Category', mappedBy: 'publisher', description: 'Its categories' },
  },
});
const PlainCategory = defineResource({
  name: 'Category',
  operations: [],
  fields: {
    label: { type: 'string' },
    publisher: { toOne: 'Publisher', nullable: true, onDelete: 'set null', readable: true, writable: true },
    parent: { toOne: 'Category', nullable: true, onDelete: 'cascade', column: 'parent_ref' },
    editedBy: { toOne: 'Publisher', blame: 'update', nullable: true },
  },
});

// The same with decorators.
@ApiResource({
  plural: 'publishing_houses',
  table: 'publishers',
  description: 'Who prints books',
  operations: ['getCollection', 'get', { kind: 'post', description: 'Registers a publisher.' }],
  provider,
  requireIfMatch: true,
  types: ['https://schema.org/Organization'],
})
class Publisher {
  @ApiProperty({ type: 'string', iri: 'https://schema.org/name', description: 'Trading name' }) name!: string;
  @ApiProperty({ type: 'text', nullable: true }) about!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, default: null }) founded!: number | null;
  @ApiProperty({ type: 'float', default: 2.5 }) rating!: number;
  @ApiProperty({ type: 'boolean', default: true }) active!: boolean;
  @ApiProperty({ type: 'datetime', default: 'now', writable: false }) createdAt!: Date;
  @ApiProperty({ type: 'datetime', timestamp: 'update' }) updatedAt!: Date;
  @ApiProperty({ type: 'date', nullable: true, immutable: true }) foundedOn!: string | null;
  @ApiProperty({ type: 'json', default: { a: 1 } }) settings!: unknown;
  @ApiProperty({ type: 'string[]', default: [] }) labels!: string[];
  @ApiProperty({ type: 'password', nullable: true }) secret!: string | null;
  @ApiProperty({ type: 'string', readable: false, nullable: true, column: 'note' }) internalNote!: string | null;
  @ApiProperty({ toMany: () => Category, mappedBy: 'publisher', description: 'Its categories' })
  categories!: Category[];
}

@ApiResource({ operations: [] })
class Category {
  @ApiProperty({ type: 'string' }) label!: string;
  @ApiProperty({ toOne: () => Publisher, nullable: true, onDelete: 'set null', readable: true, writable: true })
  publisher!: Publisher | null;
  @ApiProperty({ toOne: 'Category', nullable: true, onDelete: 'cascade', column: 'parent_ref' })
  parent!: Category | null;
  @ApiProperty({ toOne: () => Publisher, blame: 'update', nullable: true }) editedBy!: number | null;
}

const plain = buildMetadata({ resources: [PlainPublisher, PlainCategory] });
const decorated = buildMetadata({ resources: [Publisher, Category] });

describe('declaring every option with decorators and with plain objects', () => {
  it('gives identical metadata both ways', () => {
    expect(decorated.resources).toEqual(plain.resources);
    expect(decorated.prefix).toBe(plain.prefix);
  });

  it('freezes the metadata', () => {
    const publisher = plain.resource('Publisher');
    expect(Object.isFrozen(publisher)).toBe(true);
    expect(Object.isFrozen(publisher.fields)).toBe(true);
    expect(Object.isFrozen(publisher.fields[0])).toBe(true);
    expect(Object.isFrozen(publisher.operations[0]!.stages)).toBe(true);
    expect(() => {
      (publisher as { name: string }).name = 'Other';
    }).toThrow(TypeError);
  });

  it('keeps user objects (providers) unfrozen and shared', () => {
    expect(plain.resource('Publisher').provider).toBe(provider);
    expect(Object.isFrozen(provider)).toBe(false);
  });

  it('normalizes the resource options', () => {
    const publisher = decorated.resource('Publisher');
    expect(publisher).toMatchObject({
      name: 'Publisher',
      plural: 'publishing_houses',
      collectionPath: '/api/publishing_houses',
      table: 'publishers',
      description: 'Who prints books',
      identifier: { name: 'id', column: 'id', type: 'integer' },
      requireIfMatch: true,
      types: ['https://schema.org/Organization'],
    });
    expect(decorated.resource('Category').requireIfMatch).toBe(false);
    expect(decorated.resource('Category').types).toEqual(['Category']);
    expect(publisher.operations.map((o) => [o.kind, o.method, o.uriTemplate, o.name, o.status])).toEqual([
      ['getCollection', 'GET', '/api/publishing_houses', 'api_publishing_houses_get_collection', 200],
      ['get', 'GET', '/api/publishing_houses/{id}', 'api_publishing_houses_id_get', 200],
      ['post', 'POST', '/api/publishing_houses', 'api_publishing_houses_post', 201],
    ]);
    expect(publisher.operations[2]!.description).toBe('Registers a publisher.');
    expect(publisher.operations[0]!.description).toBe('Retrieves the collection of Publisher resources.');
    expect(decorated.resource('Category').operations).toEqual([]);
  });

  it('normalizes every kind of field', () => {
    const byName = Object.fromEntries(decorated.resource('Publisher').fields.map((f) => [f.name, f]));
    expect(byName.name).toEqual({
      kind: 'scalar',
      name: 'name',
      type: 'string',
      column: 'name',
      nullable: false,
      default: undefined,
      readable: true,
      writable: true,
      immutable: false,
      description: 'Trading name',
      iri: 'https://schema.org/name',
      groups: [],
      constraints: [],
    });
    expect(byName.about).toMatchObject({ type: 'text', nullable: true, iri: 'Publisher/about' });
    expect(byName.founded).toMatchObject({ type: 'integer', nullable: true, default: null });
    expect(byName.rating).toMatchObject({ type: 'float', default: 2.5 });
    expect(byName.active).toMatchObject({ type: 'boolean', default: true });
    expect(byName.createdAt).toMatchObject({ type: 'datetime', default: 'now', writable: false, column: 'created_at' });
    expect(byName.updatedAt).toMatchObject({ type: 'datetime', timestamp: 'update', writable: false, nullable: false });
    expect(byName.foundedOn).toMatchObject({ type: 'date', immutable: true, column: 'founded_on' });
    expect(byName.settings).toMatchObject({ type: 'json', default: { a: 1 } });
    expect(byName.labels).toMatchObject({ type: 'string[]', default: [] });
    expect(byName.secret).toMatchObject({ type: 'password', readable: false, writable: true });
    expect(byName.internalNote).toMatchObject({ readable: false, column: 'note' });
    expect(byName.categories).toEqual({
      kind: 'toMany',
      name: 'categories',
      target: 'Category',
      mappedBy: 'publisher',
      readable: true,
      writable: false,
      immutable: false,
      nullable: false,
      description: 'Its categories',
      iri: 'Publisher/categories',
      groups: [],
      constraints: [],
      readableLink: undefined,
      writableLink: undefined,
      inversedBy: undefined,
      joinTable: undefined,
      subresource: null,
    });
    const category = Object.fromEntries(decorated.resource('Category').fields.map((f) => [f.name, f]));
    // inversedBy is completed from the inverse side's mappedBy.
    expect(category.publisher).toMatchObject({
      kind: 'toOne',
      target: 'Publisher',
      inversedBy: 'categories',
      column: 'publisher_id',
      onDelete: 'set null',
      nullable: true,
    });
    expect(category.editedBy).toMatchObject({ kind: 'toOne', blame: 'update', writable: false, nullable: true });
    expect(category.parent).toMatchObject({
      kind: 'toOne',
      target: 'Category',
      inversedBy: undefined,
      column: 'parent_ref',
      onDelete: 'cascade',
    });
  });

  it('exposes all six operations by default, in a stable order', () => {
    const registry = buildMetadata({
      resources: [defineResource({ name: 'Note', fields: { text: { type: 'string' } } })],
    });
    expect(registry.resource('Note').operations.map((o) => `${o.method} ${o.uriTemplate}`)).toEqual([
      'GET /api/notes',
      'POST /api/notes',
      'GET /api/notes/{id}',
      'PUT /api/notes/{id}',
      'PATCH /api/notes/{id}',
      'DELETE /api/notes/{id}',
    ]);
  });

  it('pluralizes paths in correct English, in snake_case', () => {
    const names = ['Category', 'Person', 'BookReview', 'Address', 'Status', 'Company'];
    const registry = buildMetadata({ resources: names.map((name) => defineResource({ name, fields: {} })) });
    expect(registry.resources.map((r) => r.collectionPath)).toEqual([
      '/api/categories',
      '/api/people',
      '/api/book_reviews',
      '/api/addresses',
      '/api/statuses',
      '/api/companies',
    ]);
  });
});
