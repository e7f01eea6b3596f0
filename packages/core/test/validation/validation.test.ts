/** Constraints through the API: groups per operation, all violations at once, Unique, Valid, Callback, on both databases. */
import { describe, expect, inject, it } from 'vitest';
import {
  ApiProperty,
  ApiResource,
  Assert,
  Callback,
  Choice,
  defineResource,
  Email,
  Length,
  NotBlank,
  NotNull,
  PositiveOrZero,
  Unique,
  Valid,
} from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const Comment = defineResource({
  name: 'Comment',
  fields: {
    content: {
      type: 'string',
      nullable: true,
      constraints: [
        NotBlank({ groups: ['create'] }),
        NotNull({ groups: ['update'] }),
        Length({ min: 10, groups: ['update'] }),
      ],
    },
  },
  operations: [
    'get',
    { kind: 'post', validationGroups: ['create'] },
    { kind: 'put', validationGroups: ['update'] },
    { kind: 'patch', validationGroups: ['update'] },
  ],
});

const Member = defineResource({
  name: 'Member',
  fields: {
    email: { type: 'string', constraints: [NotBlank(), Email(), Unique()] },
    nickname: { type: 'string', nullable: true, constraints: [Length({ min: 3, max: 12 })] },
    level: { type: 'integer', default: 0, constraints: [PositiveOrZero()] },
    color: {
      type: 'string',
      default: 'red',
      constraints: [Choice({ choices: ['red', 'green'], message: 'Pick red or green.' })],
    },
    club: { type: 'string', nullable: true },
    seat: { type: 'integer', nullable: true },
  },
  constraints: [
    Unique({ fields: ['club', 'seat'], errorPath: 'seat' }),
    Callback((member, context) => {
      const m = member as { nickname?: string | null; email?: string };
      if (m.nickname && m.email?.startsWith(`${m.nickname}@`))
        context.addViolation('The nickname must differ from the e-mail name.', { path: 'nickname' });
    }),
  ],
});

@Assert(Unique({ fields: ['name'] }))
@ApiResource()
class Writer {
  @Assert(NotBlank(), Length({ min: 2 }))
  @ApiProperty({ type: 'string' })
  name!: string;
}

const Essay = defineResource({
  name: 'Essay',
  fields: {
    title: { type: 'string', constraints: [Length({ min: 3 })] },
    writer: { toOne: 'Writer', cascadePersist: true, constraints: [Valid()] },
    editor: { toOne: 'Writer', cascadePersist: true, nullable: true },
  },
  // Essays by anyone but "Anon" need a longer title: groups chosen from the object.
  validationGroups: ({ object }) => (object.title === 'draft' ? ['Default'] : ['Default']),
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('validation on $name', (database) => {
  const app = useApp(database, { resources: [Comment, Member, Writer, Essay] });
  const post = (url: string, payload: object) => call(app(), { method: 'POST', url, payload });
  const count = async (table: string) =>
    Number((await app().resourceApi.database.knex(table).count({ n: '*' }).first())!.n);

  it('runs "create" constraints on POST and "update" ones on PUT and PATCH (the spec\'s Comment)', async () => {
    const blank = await post('/api/comments', { content: '' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({
      '@context': '/api/contexts/ConstraintViolationList',
      '@type': 'ConstraintViolationList',
      'hydra:title': 'An error occurred',
      'hydra:description': 'content: This value should not be blank.',
      violations: [
        {
          propertyPath: 'content',
          message: 'This value should not be blank.',
          code: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3',
        },
      ],
    });
    // Short but not blank: fine on create (Length is in "update" only)
    expect((await post('/api/comments', { content: 'short' })).status).toBe(201);
    const put = await call(app(), { method: 'PUT', url: '/api/comments/1', payload: { content: 'tiny' } });
    expect(put.status).toBe(400);
    expect(put.body.violations).toEqual([
      {
        propertyPath: 'content',
        message: 'This value is too short. It should have 10 characters or more.',
        code: '9ff3fdc4-b214-49db-8718-39c315e33d45',
      },
    ]);
    const patchNull = await call(app(), {
      method: 'PATCH',
      url: '/api/comments/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: '{"content": null}',
    });
    expect(patchNull.body.violations).toEqual([
      {
        propertyPath: 'content',
        message: 'This value should not be null.',
        code: 'ad32d13f-c3d4-423b-909a-857b961eb720',
      },
    ]);
    expect(
      (await call(app(), { method: 'PUT', url: '/api/comments/1', payload: { content: 'long enough now' } })).status,
    ).toBe(200);
    expect((await call(app(), { method: 'GET', url: '/api/comments/1' })).body.content).toBe('long enough now');
  });

  it('reports every violation of a request at once, with custom messages, and writes nothing', async () => {
    const response = await post('/api/members', { email: 'nope', nickname: 'ab', level: -1, color: 'blue' });
    expect(response.status).toBe(400);
    expect(response.body['hydra:description']).toBe(
      [
        'email: This value is not a valid email address.',
        'nickname: This value is too short. It should have 3 characters or more.',
        'level: This value should be either positive or zero.',
        'color: Pick red or green.',
      ].join('\n'),
    );
    expect(await count('member')).toBe(0);
  });

  it('checks Unique on a field and on a combination of fields, excluding the item itself', async () => {
    expect((await post('/api/members', { email: 'ann@example.com', club: 'chess', seat: 1 })).status).toBe(201);
    const taken = await post('/api/members', { email: 'ann@example.com' });
    expect(taken.body.violations).toEqual([
      { propertyPath: 'email', message: 'This value is already used.', code: '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f' },
    ]);
    const seat = await post('/api/members', { email: 'bob@example.com', club: 'chess', seat: 1 });
    expect(seat.body.violations).toEqual([
      { propertyPath: 'seat', message: 'This value is already used.', code: '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f' },
    ]);
    expect((await post('/api/members', { email: 'bob@example.com', club: 'chess', seat: 2 })).status).toBe(201);
    expect((await post('/api/members', { email: 'cid@example.com', club: null, seat: 1 })).status).toBe(201);
    // Replacing an item with its own values is no conflict
    expect(
      (
        await call(app(), {
          method: 'PUT',
          url: '/api/members/1',
          payload: { email: 'ann@example.com', club: 'chess', seat: 1 },
        })
      ).status,
    ).toBe(200);
  });

  it('gives one success and one 400 when two requests race on a unique value, never a 500', async () => {
    const responses = await Promise.all([1, 2, 3].map(() => post('/api/members', { email: 'race@example.com' })));
    expect(responses.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const response of responses.filter((r) => r.status === 400)) {
      expect(response.body.violations).toEqual([
        { propertyPath: 'email', message: 'This value is already used.', code: '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f' },
      ]);
    }
    expect(await count('member')).toBe(1);
  });

  it('runs a Callback constraint with its own message and path', async () => {
    const response = await post('/api/members', { email: 'zed@example.com', nickname: 'zed' });
    expect(response.body.violations).toEqual([
      { propertyPath: 'nickname', message: 'The nickname must differ from the e-mail name.', code: expect.any(String) },
    ]);
  });

  it('validates nested items with their own constraints where the relation carries Valid', async () => {
    const invalid = await post('/api/essays', { title: 'On', writer: { name: 'A' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.violations).toEqual([
      {
        propertyPath: 'title',
        message: 'This value is too short. It should have 3 characters or more.',
        code: expect.any(String),
      },
      {
        propertyPath: 'writer.name',
        message: 'This value is too short. It should have 2 characters or more.',
        code: expect.any(String),
      },
    ]);
    // No Valid on editor: only what storage demands is checked there
    const editor = await post('/api/essays', { title: 'Essays', writer: { name: 'Montaigne' }, editor: { name: 'X' } });
    expect(editor.status).toBe(201);
    expect(await count('writer')).toBe(2);
  });

  it('applies decorator constraints (@Assert) like plain ones', async () => {
    expect(
      (await post('/api/writers', { name: '' })).body.violations.map((v: { message: string }) => v.message),
    ).toEqual(['This value should not be blank.', 'This value is too short. It should have 2 characters or more.']);
    expect((await post('/api/writers', { name: 'Zola' })).status).toBe(201);
    expect((await post('/api/writers', { name: 'Zola' })).body.violations[0].message).toBe(
      'This value is already used.',
    );
  });
});

describe('constraint declarations', () => {
  it('fails at start-up on unknown constraints and impossible options', async () => {
    const { buildMetadata } = await import('@resource-api/core');
    const build =
      (constraints: unknown[], type = 'string') =>
      () =>
        buildMetadata({
          resources: [
            defineResource({
              name: 'Thing',
              fields: { name: { type: type as 'string', constraints: constraints as never } },
            }),
          ],
        });
    expect(build([{ kind: 'NotBlnk' }])).toThrow(
      'Resource "Thing", field "name": unknown constraint "NotBlnk". Did you mean "NotBlank"?',
    );
    expect(build([Length({})])).toThrow('Resource "Thing", field "name", Length: give "min", "max" or "exactly".');
    expect(build([Length({ min: 5, max: 2 })])).toThrow('"min" is above "max"');
    expect(build([Length({ min: 2 })], 'integer')).toThrow('Length: needs a text field, "name" is not one.');
    expect(build([Valid()])).toThrow('Valid: needs a relation');
    expect(build([Choice({ choices: [] })])).toThrow('give a non-empty "choices" list');
    expect(build([{ kind: 'Regex', pattern: '(' }])).toThrow('"pattern" is not a valid regular expression');
    expect(() =>
      buildMetadata({
        resources: [
          defineResource({
            name: 'Thing',
            fields: { a: { type: 'string' } },
            constraints: [Unique({ fields: ['b'] })],
          }),
        ],
      }),
    ).toThrow('Resource "Thing", Unique: "b" is not a field of "Thing".');
  });

  it('creates the unique index backing Unique', async () => {
    for (const database of testDatabases(inject('postgresUrl'), inject('mariadbUrl'))) {
      const app = await buildTestApp({ database, resources: [Member] });
      const { knex } = app.resourceApi.database;
      await knex('member').insert({ email: 'a@b.co', level: 0, color: 'red' });
      await expect(knex('member').insert({ email: 'a@b.co', level: 0, color: 'red' })).rejects.toThrow();
      await app.close();
    }
  });
});
