/** The `mercure` option, with decorators and with plain objects: the same metadata, and clear start-up errors. */
import { describe, expect, it } from 'vitest';
import { ApiProperty, ApiResource, buildMetadata, DeclarationError, defineResource } from '@resource-api/core';

const topics = (item: { title?: unknown }) => [`/api/shelves/${String(item.title)}`];

const PlainBook = defineResource({
  name: 'Book',
  fields: { title: { type: 'string' } },
  mercure: { private: true, topics: ['https://example.com/books'], type: 'book', retry: 500 },
  operations: [
    'get',
    'getCollection',
    'post',
    { kind: 'patch', mercure: { topics } },
    { kind: 'delete', mercure: false },
  ],
});

@ApiResource({
  mercure: { private: true, topics: ['https://example.com/books'], type: 'book', retry: 500 },
  operations: [
    'get',
    'getCollection',
    'post',
    { kind: 'patch', mercure: { topics } },
    { kind: 'delete', mercure: false },
  ],
})
class Book {
  @ApiProperty({ type: 'string' }) title!: string;
}

const build = (declaration: object) =>
  buildMetadata({
    resources: [defineResource({ name: 'Memo', fields: { text: { type: 'string' } }, ...declaration })],
  });

describe('declaring mercure', () => {
  it('gives the same metadata with a decorator and with a plain object, the operation over the resource', () => {
    const plain = buildMetadata({ resources: [PlainBook] }).resource('Book');
    const decorated = buildMetadata({ resources: [Book] }).resource('Book');
    const resourceLevel = { private: true, topics: ['https://example.com/books'], type: 'book', retry: 500 };
    expect(plain.mercure).toEqual(resourceLevel);
    expect(decorated.mercure).toEqual(plain.mercure);
    const byKind = (resource: typeof plain) =>
      Object.fromEntries(resource.operations.map((operation) => [operation.kind, operation.mercure]));
    expect(byKind(plain)).toEqual({
      get: null,
      getCollection: null,
      post: resourceLevel,
      patch: { private: false, topics, type: undefined, retry: undefined },
      delete: null,
    });
    expect(byKind(decorated)).toEqual(byKind(plain));
  });

  it('takes true, false or nothing', () => {
    const on = build({ mercure: true }).resource('Memo');
    expect(on.mercure).toEqual({ private: false, topics: [], type: undefined, retry: undefined });
    expect(on.operations.find((operation) => operation.kind === 'post')!.mercure).toEqual(on.mercure);
    for (const off of [build({}), build({ mercure: false })]) {
      const memo = off.resource('Memo');
      expect(memo.mercure).toBeNull();
      expect(memo.operations.every((operation) => operation.mercure === null)).toBe(true);
    }
    // An operation may publish on its own.
    const alone = build({ operations: ['get', { kind: 'post', mercure: true }] }).resource('Memo');
    expect(alone.mercure).toBeNull();
    expect(alone.operations[1]!.mercure).toMatchObject({ private: false });
  });

  it('refuses a wrong declaration at start-up, saying what is wrong', () => {
    const refused = (declaration: object, message: RegExp) => {
      expect(() => build(declaration)).toThrow(DeclarationError);
      expect(() => build(declaration)).toThrow(message);
    };
    refused({ mercure: 'yes' }, /"mercure" must be true, false or \{ private, topics, type, retry \}/);
    refused({ mercure: { privat: true } }, /unknown option "privat".*private/);
    refused({ mercure: { private: 'yes' } }, /"mercure.private" must be true or false/);
    refused({ mercure: { topics: 'https://example.com' } }, /"mercure.topics" must be a list/);
    refused({ mercure: { type: 'a\nb' } }, /"mercure.type" must be an event type on one line/);
    refused({ mercure: { retry: -1 } }, /"mercure.retry" must be a whole number/);
    refused({ operations: [{ kind: 'get', mercure: true }] }, /a get writes nothing, so it publishes nothing/);
    refused({ mercur: true }, /unknown option "mercur".*mercure/);
  });
});
