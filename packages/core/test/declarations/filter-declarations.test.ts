/** Filters declared with decorators and with plain objects give the same filters; wrong ones fail at start-up. */
import { describe, expect, it } from 'vitest';
import {
  ApiFilter,
  ApiProperty,
  ApiResource,
  buildMetadata,
  defineResource,
  type ResourceDeclaration,
} from '@resource-api/core';

const plain = defineResource({
  name: 'Book',
  order: { title: 'asc' },
  fields: {
    title: { type: 'string' },
    price: { type: 'float', nullable: true },
    publishedAt: { type: 'datetime', nullable: true },
    available: { type: 'boolean' },
    author: { toOne: 'Author' },
  },
  filters: [
    { type: 'order', properties: ['title', 'price'] },
    { type: 'exists', properties: ['publishedAt'] },
    { type: 'search', properties: { title: 'ipartial' } },
    { type: 'search', properties: { 'author.name': 'istart' } },
    { type: 'range', properties: ['price'] },
    { type: 'date', properties: { publishedAt: 'include_null_after' } },
    { type: 'boolean', properties: ['available'] },
  ],
});
const plainAuthor = defineResource({ name: 'Author', fields: { name: { type: 'string' } } });

@ApiFilter({ type: 'order', properties: ['title', 'price'] })
@ApiFilter({ type: 'exists', properties: ['publishedAt'] })
@ApiResource({ name: 'Book', order: { title: 'asc' }, filters: [] })
class DecoratedBook {
  @ApiFilter({ type: 'search', strategy: 'ipartial' })
  @ApiProperty({ type: 'string' })
  title!: string;

  @ApiFilter({ type: 'range' })
  @ApiProperty({ type: 'float', nullable: true })
  price!: number | null;

  @ApiFilter({ type: 'date', nulls: 'include_null_after' })
  @ApiProperty({ type: 'datetime', nullable: true })
  publishedAt!: Date | null;

  @ApiFilter({ type: 'boolean' })
  @ApiProperty({ type: 'boolean' })
  available!: boolean;

  @ApiProperty({ toOne: 'Author' }) author!: unknown;
}

describe('declaring filters', () => {
  it('gives the same query parameters with decorators and with plain objects', () => {
    // The relation-path search is declared on the class here, as a field decorator cannot name a path.
    const Decorated = { ...buildMetadata({ resources: [DecoratedBook, plainAuthor] }).resource('Book') };
    const withPath = buildMetadata({
      resources: [
        { ...plain, filters: plain.filters.filter((f) => !('author.name' in (f.properties as object))) },
        plainAuthor,
      ],
    }).resource('Book');
    const describe = (resource: typeof Decorated) =>
      resource.filters
        .flatMap((f) => f.describe(resource))
        .map((p) => p.variable)
        .sort();
    expect(describe(Decorated)).toEqual(describe(withPath));
    expect(Decorated.defaultOrder).toEqual([{ path: 'title', direction: 'asc' }]);
    const full = buildMetadata({ resources: [plain, plainAuthor] }).resource('Book');
    expect(full.filters.flatMap((f) => f.describe(full)).map((p) => p.variable)).toEqual([
      'order[title]',
      'order[price]',
      'exists[publishedAt]',
      'title',
      'title[]',
      'author.name',
      'author.name[]',
      'price[between]',
      'price[gt]',
      'price[gte]',
      'price[lt]',
      'price[lte]',
      'publishedAt[after]',
      'publishedAt[before]',
      'publishedAt[strictly_after]',
      'publishedAt[strictly_before]',
      'available',
    ]);
    expect(Object.isFrozen(full.filters)).toBe(true);
  });

  const withFilters =
    (filters: ResourceDeclaration['filters'], extra: Partial<ResourceDeclaration> = {}) =>
    () =>
      buildMetadata({ resources: [{ ...plain, filters, ...extra }, plainAuthor] });

  it('fails at start-up on unknown properties, strategies and types, with "did you mean"', () => {
    expect(withFilters([{ type: 'search', properties: { titel: 'partial' } }])).toThrow(
      'Resource "Book", search filter: "titel" names no field "titel" of "Book". Did you mean "title"?',
    );
    expect(withFilters([{ type: 'search', properties: { 'author.nme': 'partial' } }])).toThrow(
      '"author.nme" names no field "nme" of "Author". Did you mean "name"?',
    );
    expect(withFilters([{ type: 'search', properties: { title: 'partiel' as never } }])).toThrow(
      'unknown strategy "partiel" for "title". Did you mean "partial"?',
    );
    expect(withFilters([{ type: 'serch', properties: ['title'] } as never])).toThrow(
      'unknown filter type "serch". Did you mean "search"?',
    );
    expect(withFilters([{ type: 'range', properties: ['title'] }])).toThrow(
      'Resource "Book", range filter: "title" is a string field; this filter needs a number or a date.',
    );
    expect(withFilters([{ type: 'search', properties: { price: 'partial' } }])).toThrow(
      'strategy "partial" needs a string field; "price" only takes "exact".',
    );
    expect(withFilters([{ type: 'boolean', properties: ['price'] }])).toThrow('this filter needs a boolean');
    expect(
      withFilters([
        { type: 'order', properties: ['title'] },
        { type: 'order', properties: ['title'] },
      ]),
    ).toThrow('Resource "Book": query parameter "order[title]" is declared by two filters.');
    expect(withFilters([], { order: { titel: 'asc' } })).toThrow(
      'Resource "Book", order: "titel" names no field "titel" of "Book". Did you mean "title"?',
    );
    expect(withFilters([{ type: 'search', properties: { 'title.x': 'exact' } }])).toThrow(
      '"title.x" goes on past "title", which is not a relation.',
    );
  });

  it('refuses to order through a to-many relation', () => {
    const author = defineResource({
      name: 'Author',
      fields: { name: { type: 'string' }, books: { toMany: 'Book', mappedBy: 'author' } },
      filters: [{ type: 'order', properties: ['books.title'] }],
    });
    expect(() => buildMetadata({ resources: [{ ...plain, filters: [] }, author] })).toThrow(
      'Resource "Author", order filter: "books.title" goes through a to-many relation; order paths follow to-one relations only.',
    );
  });
});
