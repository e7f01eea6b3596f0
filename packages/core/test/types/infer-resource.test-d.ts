/**
 * Type tests: the item types a declaration gives (`InferResource`, `InferWriteData`). Checked by tsc, not run:
 * `typecheck.test.ts` compiles this folder and fails on any error, an unused `@ts-expect-error` included.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { ApiProperty, ApiResource } from '../../src/declare/decorators.js';
import { defineResource } from '../../src/declare/define-resource.js';
import type { InferResource, InferWriteData } from '../../src/declare/infer.js';
import type { FieldDeclaration } from '../../src/declare/types.js';
import type { JsonValue } from '../../src/metadata/declared.js';
import type { Entity, NestedWrite } from '../../src/metadata/types.js';

const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string' },
    summary: { type: 'text', nullable: true },
    pages: { type: 'integer' },
    price: { type: 'float', nullable: true },
    available: { type: 'boolean' },
    publishedAt: { type: 'datetime' },
    releasedOn: { type: 'date', nullable: true },
    extra: { type: 'json' },
    tags: { type: 'string[]' },
    secret: { type: 'password', readable: false },
    author: { toOne: 'Author', inversedBy: 'books' },
    editor: { toOne: 'Person', nullable: true, cascadePersist: true },
    reviewer: { toOne: 'Person', nullable: true, cascadePersist: true, writableLink: false },
    translator: { toOne: 'Person', nullable: true, writableLink: true },
    readers: { toMany: 'Person' },
    reviews: { toMany: 'Review', mappedBy: 'book' },
  },
});

describe('InferResource', () => {
  it('maps each field to the value the runtime holds', () => {
    expectTypeOf<InferResource<typeof Book>>().toEqualTypeOf<{
      id: number;
      title: string;
      summary: string | null;
      pages: number;
      price: number | null;
      available: boolean;
      publishedAt: Date;
      releasedOn: string | null;
      extra: NonNullable<JsonValue>;
      tags: string[];
      secret: string;
      author: number;
      editor: number | null;
      reviewer: number | null;
      translator: number | null;
      readers?: number[];
      reviews?: number[];
    }>();
  });

  it('refuses what the fields do not allow', () => {
    const item = {} as InferResource<typeof Book>;
    // @ts-expect-error -- a number in a string field
    item.title = 1;
    // @ts-expect-error -- null in a field that is not nullable
    item.pages = null;
    // @ts-expect-error -- no such field
    void item.subtitle;
    // @ts-expect-error -- a to-one holds the target's id, not an object
    item.author = { id: 1 };
    expectTypeOf(item.price).toEqualTypeOf<number | null>();
  });

  it('gives a nullable that may be true (a boolean) `| null`', () => {
    const nullable: boolean = Math.random() > 0.5;
    const Maybe = defineResource({ name: 'Maybe', fields: { note: { type: 'string', nullable } } });
    expectTypeOf<InferResource<typeof Maybe>['note']>().toEqualTypeOf<string | null>();
  });

  it('falls back to Entity for fields without literal names', () => {
    const fields: Record<string, FieldDeclaration> = { title: { type: 'string' } };
    const Loose = defineResource({ name: 'Loose', fields });
    expectTypeOf<InferResource<typeof Loose>>().toEqualTypeOf<Entity>();
    expectTypeOf<InferWriteData<typeof Loose>>().toEqualTypeOf<Entity>();
  });

  it('gives a decorated class its own fields with the id', () => {
    @ApiResource()
    class Note {
      @ApiProperty({ type: 'string' }) text!: string;
      @ApiProperty({ toOne: 'Book', nullable: true }) book!: number | null;
    }
    expectTypeOf<InferResource<typeof Note>>().toEqualTypeOf<{ id: number; text: string; book: number | null }>();
    expectTypeOf<InferWriteData<typeof Note>>().toEqualTypeOf<{ id?: number; text: string; book: number | null }>();
  });
});

describe('InferWriteData', () => {
  it('has no id on create, and nested writes where the relation accepts nested objects', () => {
    type Data = InferWriteData<typeof Book>;
    expectTypeOf<Data['id']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Data['author']>().toEqualTypeOf<number>();
    expectTypeOf<Data['editor']>().toEqualTypeOf<number | NestedWrite | null>();
    // writableLink: false wins over cascadePersist, as at runtime
    expectTypeOf<Data['reviewer']>().toEqualTypeOf<number | null>();
    expectTypeOf<Data['translator']>().toEqualTypeOf<number | NestedWrite | null>();
    expectTypeOf<Data['title']>().toEqualTypeOf<string>();
    expectTypeOf<Data['reviews']>().toEqualTypeOf<number[] | undefined>();
  });
});
