/**
 * fast-check generators of the fuzz test: requests to every operation of the bookshop, with bodies that range from
 * plausible (the resource's fields, with hostile values) through random JSON to bytes that are no JSON at all, and
 * query strings built from the filters' parameter names, pagination parameters and garbage.
 *
 * Items are named by a `Ref` (a collection and an index into the items the model knows when the request runs), so a
 * shrunk or replayed command still points at something that exists.
 */
import fc from 'fast-check';

export const COLLECTIONS = [
  'authors',
  'books',
  'users',
  'comments',
  'categories',
  'brands',
  'products',
  'articles',
] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** An existing item of a collection (the index wraps around what exists), or an id that exists nowhere. */
export class Ref {
  constructor(
    readonly collection: Collection,
    readonly index: number,
    /** Instead of an existing item: a path segment that is not one (`0`, `99999`, `abc`, ...). */
    readonly missing?: string,
  ) {}
}

/** The IRI of the user sending the request (an article's owner, a comment's user). */
export const SELF = Object.freeze({ self: true });

export type Caller = 'admin' | 'user' | 'anonymous';

/** A body as sent: JSON built from a value (Refs become IRIs), raw text or bytes, or none. */
export type Payload =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'raw'; readonly text: string | Buffer }
  | { readonly kind: 'none' };

export interface Command {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly collection: Collection;
  /** The item, for item operations; none for collection operations. */
  readonly item?: Ref;
  /** A subresource of the item (`books` of an author), for GET. */
  readonly subresource?: string;
  readonly query: string;
  readonly payload: Payload;
  readonly contentType: string | undefined;
  readonly caller: Caller;
}

/** Strings that mean something to SQL, LIKE, GLOB, JSON, HTML, shells or Unicode. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '%',
  '_',
  '\\',
  "'",
  '"',
  ';--',
  "' OR 1=1 --",
  "x'); DROP TABLE book; --",
  '%_%',
  '*',
  '?',
  '[a-z]',
  '$1',
  '??',
  ':name',
  '<script>alert(1)</script>',
  '{{7*7}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection probe, meant to stay text
  '${7*7}',
  '../../etc/passwd',
  '\u0000',
  'a\u0000b',
  '\u202eevil',
  '\ufeff',
  '\u200b',
  'Zoë',
  '日本語',
  '😀',
  '\ud800',
  '\udc00',
  'a\ud83d',
  '\r\n',
  'null',
  'true',
  '0',
  '-0',
  '1e400',
  'NaN',
  '__proto__',
  'constructor',
  'toString',
  '@id',
  '/api/authors/1',
  '/api/users/1',
  'x'.repeat(300),
];

const hostileString = fc.constantFrom(...HOSTILE_STRINGS);

/** Text fields: everyday strings, any code points (unpaired surrogates and NUL included), hostile ones, very long ones. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ minLength: 3, maxLength: 24 }), weight: 6 },
  { arbitrary: fc.string({ maxLength: 24 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 2 },
  { arbitrary: hostileString, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary-ascii', minLength: 2_000, maxLength: 4_000 }), weight: 1 },
);

/** Numbers at the edges: doubles, int32 bounds and beyond, tiny and huge. */
const number: fc.Arbitrary<unknown> = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(
    0,
    -1,
    0.1,
    2_147_483_647,
    2_147_483_648,
    -2_147_483_649,
    // biome-ignore lint/correctness/noPrecisionLoss: 2^53 + 1 on purpose (the value is its nearest double, 2^53)
    9_007_199_254_740_993,
    1e308,
    -1e308,
    5e-324,
  ),
);

/** Anything at all where a field expects something else. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  number,
  fc.jsonValue({ maxDepth: 2 }),
);

const missingId = fc.constantFrom('0', '-1', '99999', '2147483648', 'abc', '1e3', '01', '%20', '1;--', "1'");

/** An existing item of the collection, or now and then one that does not exist. */
export const ref = (collection: Collection): fc.Arbitrary<Ref> =>
  fc.oneof(
    { arbitrary: fc.nat(50).map((index) => new Ref(collection, index)), weight: 6 },
    { arbitrary: missingId.map((id) => new Ref(collection, 0, id)), weight: 1 },
  );

/** A relation value: an IRI of the right collection, of another one, or no IRI at all. */
const iri = (collection: Collection): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: ref(collection), weight: 6 },
    { arbitrary: fc.constantFrom(...COLLECTIONS).chain((other) => ref(other)), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        'garbage',
        '/api/authors/abc',
        'http://evil.example/api/authors/1',
        '/api/authors/1/../2',
        '',
      ),
      weight: 1,
    },
    { arbitrary: wrongType, weight: 1 },
  );

const value = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary, weight: 8 }, { arbitrary: wrongType, weight: 1 });

const dateTime = fc.oneof(
  fc
    .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2024-02-30T00:00:00Z',
    '2016-12-31T23:59:60Z',
    'yesterday',
    '0000-01-01T00:00:00Z',
    '2024-01-01',
    '',
  ),
);

/** The fields a client may send, per collection, each with plausible and hostile values; plus keys nobody declared. */
const FIELDS: Record<Collection, Record<string, fc.Arbitrary<unknown>>> = {
  authors: { name: value(text), books: fc.array(iri('books'), { maxLength: 2 }) },
  books: {
    title: value(text),
    author: fc.oneof(
      iri('authors'),
      fc.record({ name: value(text) }),
      fc.record({ '@id': iri('authors'), name: value(text) }),
    ),
  },
  users: {
    email: value(fc.oneof(fc.emailAddress(), text)),
    plainPassword: value(fc.oneof(fc.string({ minLength: 8, maxLength: 16 }), text)),
    roles: value(
      fc.array(fc.oneof(fc.constantFrom('ROLE_USER', 'ROLE_ADMIN', 'ROLE_SUPER_ADMIN', 'ROLE_COMPANY'), text), {
        maxLength: 3,
      }),
    ),
    isCompany: value(fc.boolean()),
    comments: fc.array(iri('comments'), { maxLength: 2 }),
  },
  comments: { content: value(text), user: fc.oneof(fc.constant(SELF), iri('users')), createdAt: value(dateTime) },
  categories: { name: value(text), products: fc.array(iri('products'), { maxLength: 2 }) },
  brands: { name: value(text) },
  products: {
    name: value(text),
    price: value(fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), number)),
    createdAt: value(dateTime),
    category: fc.oneof(iri('categories'), fc.constant(null)),
    brand: fc.oneof(iri('brands'), fc.constant(null)),
  },
  // published and publishedAt are the publish operation's only: a client's values are ignored.
  articles: {
    title: value(text),
    body: value(fc.oneof(text, fc.constant(null))),
    owner: fc.oneof({ arbitrary: fc.constant(SELF), weight: 3 }, { arbitrary: iri('users'), weight: 1 }),
    published: value(fc.boolean()),
    publishedAt: value(fc.oneof(dateTime, fc.constant(null))),
  },
};

const strangeKey = fc.oneof(
  hostileString,
  fc.constantFrom('id', '@id', '@type', '@context', 'password', 'hasOwnProperty', 'valueOf'),
  fc.string({ maxLength: 8 }),
);

/** A JSON object for a collection: some of its fields (hostile values included) and sometimes keys it does not know. */
const plausibleBody = (collection: Collection): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      fc.oneof(
        { arbitrary: fc.record(FIELDS[collection]), weight: 3 },
        { arbitrary: fc.record(FIELDS[collection], { requiredKeys: [] }), weight: 2 },
      ),
      fc.dictionary(strangeKey, wrongType, { maxKeys: 2 }),
      fc.boolean(),
    )
    .map(([fields, extra, withExtra]) => (withExtra ? { ...extra, ...fields } : fields));

/** Bodies no parser should choke on: not UTF-8, nested without end, pollution keys, numbers JSON.stringify cannot write. */
const RAW_BODIES: (string | Buffer)[] = [
  '',
  '   ',
  '{',
  '{"name": "a",',
  'null',
  '[]',
  '"text"',
  '12',
  '{"name":"a","__proto__":{"polluted":"yes"}}',
  '{"name":"a","constructor":{"prototype":{"polluted":"yes"}}}',
  '{"title":"abc","author":{"__proto__":{"polluted":"yes"},"name":"x"}}',
  '{"name":"a\\ud800"}',
  '{"name":"\\u0000"}',
  '{"price":1e400,"name":"x"}',
  '{"price":-1e400,"name":"x"}',
  '{"name":"x","name":"y"}',
  `{"name":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
  `{"name":"x","extra":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`,
  Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
  Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
  Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
  `{"name":"${'x'.repeat(1024 * 1024)}"}`,
];

export const payload = (collection: Collection): fc.Arbitrary<Payload> =>
  fc.oneof(
    { arbitrary: plausibleBody(collection).map((value): Payload => ({ kind: 'json', value })), weight: 12 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value): Payload => ({ kind: 'json', value })), weight: 2 },
    { arbitrary: fc.constantFrom(...RAW_BODIES).map((text): Payload => ({ kind: 'raw', text })), weight: 2 },
    { arbitrary: fc.constant<Payload>({ kind: 'none' }), weight: 1 },
  );

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constantFrom('application/json', 'application/ld+json'), weight: 10 },
  { arbitrary: fc.constant('application/merge-patch+json'), weight: 3 },
  {
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/xml',
      '',
    ),
    weight: 1,
  },
);

export const caller: fc.Arbitrary<Caller> = fc.oneof(
  { arbitrary: fc.constant<Caller>('admin'), weight: 4 },
  { arbitrary: fc.constant<Caller>('user'), weight: 3 },
  { arbitrary: fc.constant<Caller>('anonymous'), weight: 1 },
);

/** Parameter names: each collection's filters, pagination, and names no filter reads. */
const PARAMETERS: Record<Collection, readonly string[]> = {
  authors: ['name', 'name[]', 'order[name]', 'order[id]'],
  books: ['title', 'title[]', 'author', 'author[]', 'author.name', 'order[id]', 'order[title]', 'q'],
  users: [],
  comments: ['user', 'user[]', 'order[createdAt]', 'order[id]'],
  categories: [],
  brands: [],
  products: [
    'name',
    'category',
    'category.name',
    'brand.name',
    'price[gt]',
    'price[gte]',
    'price[lt]',
    'price[lte]',
    'price[between]',
    'order[createdAt]',
    'order[price]',
    'order[name]',
  ],
  articles: [],
};
const COMMON_PARAMETERS = [
  'page',
  'itemsPerPage',
  'pagination',
  'partial',
  'id',
  'id[gt]',
  'order',
  'title[a][b]',
  'exists[name]',
  '__proto__',
  'constructor[prototype]',
  '',
];

/** Percent-encodes the UTF-8 bytes of any string (`encodeURIComponent` throws on unpaired surrogates; these become U+FFFD). */
export const percentEncode = (text: string): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** A value as it appears in a query string: encoded, or raw percent-sequences that are not valid encodings. */
const queryValue: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc
      .oneof(
        text,
        fc.constantFrom(
          'asc',
          'desc',
          'true',
          'false',
          '1',
          '-1',
          '0',
          '1e20',
          '1.5',
          '10..20',
          '..',
          '/api/authors/1',
          '2024-01-01',
        ),
      )
      .map(percentEncode),
    weight: 8,
  },
  { arbitrary: fc.constantFrom('%', '%E0%A4%A', '%FF', '%00', '+', '%2B', '%25', '%5B%5D', '=', '&'), weight: 1 },
);

export const queryString = (collection: Collection): fc.Arbitrary<string> =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          { arbitrary: fc.constantFrom(...PARAMETERS[collection], ...COMMON_PARAMETERS), weight: 5 },
          { arbitrary: fc.string({ maxLength: 6 }), weight: 1 },
        ),
        queryValue,
        fc.boolean(),
      ),
      { maxLength: 4 },
    )
    .map((pairs) =>
      pairs
        .map(
          ([name, value, encodeName]) =>
            `${encodeName ? percentEncode(name) : percentEncode(name).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${value}`,
        )
        .join('&'),
    );

const SUBRESOURCES: Partial<Record<Collection, string>> = {
  authors: 'books',
  users: 'comments',
  categories: 'products',
};

/** A read: a collection, an item or a subresource, with a random query string. */
export const readCommand: fc.Arbitrary<Command> = fc.constantFrom(...COLLECTIONS).chain((collection) =>
  fc.record({
    method: fc.constant('GET' as const),
    collection: fc.constant(collection),
    item: fc.option(ref(collection), { nil: undefined }),
    subresource: SUBRESOURCES[collection]
      ? fc.option(fc.constant(SUBRESOURCES[collection]!), { nil: undefined })
      : fc.constant(undefined),
    query: queryString(collection),
    payload: fc.constant<Payload>({ kind: 'none' }),
    contentType: fc.constant(undefined),
    caller,
  }),
);

/** A write: POST to a collection, PUT / PATCH / DELETE of an item; users are written rarely (their passwords are hashed with scrypt, slow on purpose). */
export const writeCommand: fc.Arbitrary<Command> = fc
  .oneof(
    { arbitrary: fc.constantFrom(...COLLECTIONS.filter((c) => c !== 'users')), weight: 14 },
    { arbitrary: fc.constant<Collection>('users'), weight: 1 },
  )
  .chain((collection) =>
    fc.record({
      method: fc.oneof(
        { arbitrary: fc.constant('POST' as const), weight: 3 },
        { arbitrary: fc.constantFrom('PUT' as const, 'PATCH' as const), weight: 3 },
        { arbitrary: fc.constant('DELETE' as const), weight: 1 },
      ),
      collection: fc.constant(collection),
      item: ref(collection),
      subresource: fc.constant(undefined),
      query: fc.oneof({ arbitrary: fc.constant(''), weight: 4 }, { arbitrary: queryString(collection), weight: 1 }),
      payload: payload(collection),
      contentType,
      caller,
    }),
  );
