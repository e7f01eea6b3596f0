/** The `cacheHeaders` option, with decorators and with plain objects: the same metadata, and clear start-up errors. */
import { describe, expect, it } from 'vitest';
import { ApiProperty, ApiResource, buildMetadata, defineResource } from '@resource-api/core';

const PlainBook = defineResource({
  name: 'Book',
  fields: { title: { type: 'string' } },
  cacheHeaders: { maxAge: 10, sharedMaxAge: 100, vary: ['Origin'] },
  operations: [
    { kind: 'get', cacheHeaders: { maxAge: 5, staleWhileRevalidate: 30, vary: ['Accept-Language'] } },
    'getCollection',
    { kind: 'patch', cacheHeaders: false },
  ],
});

@ApiResource({
  cacheHeaders: { maxAge: 10, sharedMaxAge: 100, vary: ['Origin'] },
  operations: [
    { kind: 'get', cacheHeaders: { maxAge: 5, staleWhileRevalidate: 30, vary: ['Accept-Language'] } },
    'getCollection',
    { kind: 'patch', cacheHeaders: false },
  ],
})
class Book {
  @ApiProperty({ type: 'string' }) title!: string;
}

const build = (cacheHeaders: unknown, operation: object = {}) =>
  buildMetadata({
    resources: [
      defineResource({
        name: 'Memo',
        fields: { text: { type: 'string' } },
        cacheHeaders: cacheHeaders as never,
        operations: [{ kind: 'get', ...operation }],
      }),
    ],
  });

const empty = {
  noStore: false,
  public: undefined,
  maxAge: undefined,
  sharedMaxAge: undefined,
  staleWhileRevalidate: undefined,
  staleIfError: undefined,
  vary: [],
};

describe('declaring cacheHeaders', () => {
  it('gives the same metadata with a decorator and with a plain object, the operation’s keys over the resource’s', () => {
    const byKind = (resource: ReturnType<ReturnType<typeof buildMetadata>['resource']>) =>
      Object.fromEntries(resource.operations.map((operation) => [operation.kind, operation.cacheHeaders]));
    const plain = byKind(buildMetadata({ resources: [PlainBook] }).resource('Book'));
    expect(plain).toEqual({
      get: { ...empty, maxAge: 5, sharedMaxAge: 100, staleWhileRevalidate: 30, vary: ['Origin', 'Accept-Language'] },
      getCollection: { ...empty, maxAge: 10, sharedMaxAge: 100, vary: ['Origin'] },
      patch: { ...empty, noStore: true },
    });
    expect(byKind(buildMetadata({ resources: [Book] }).resource('Book'))).toEqual(plain);
  });

  it('leaves an operation without a declaration at null (the plugin’s defaults apply)', () => {
    expect(build(undefined).resource('Memo').operations[0]!.cacheHeaders).toBeNull();
  });

  it('lets an operation’s object replace its resource’s false', () => {
    const [get] = build(false, { cacheHeaders: { public: true } }).resource('Memo').operations;
    expect(get!.cacheHeaders).toEqual({ ...empty, public: true });
  });

  it('refuses a wrong declaration with a clear DeclarationError', () => {
    expect(() => build({ maxAg: 1 })).toThrow('"cacheHeaders" has an unknown option "maxAg". Did you mean "maxAge"?');
    expect(() => build({ maxAge: -1 })).toThrow('"cacheHeaders.maxAge" must be a whole number of seconds (0 or more).');
    expect(() => build({ sharedMaxAge: 1.5 })).toThrow('"cacheHeaders.sharedMaxAge" must be a whole number');
    expect(() => build({ public: 'yes' })).toThrow('"cacheHeaders.public" must be true or false.');
    expect(() => build({ vary: ['Bad Header'] })).toThrow(
      '"cacheHeaders.vary" must be a list of request header names.',
    );
    expect(() => build(true)).toThrow('"cacheHeaders" must be false or { public, maxAge');
    expect(() => build(undefined, { cacheHeaders: { staleIfErr: 1 } })).toThrow('Did you mean "staleIfError"');
  });
});
