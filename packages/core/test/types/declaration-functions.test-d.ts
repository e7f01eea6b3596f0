/**
 * Type tests: the functions written inside `defineResource` (processors, providers, access rules, validation groups)
 * get the item types without annotations, and declarations written before them still compile. Checked by tsc, not
 * run: see `typecheck.test.ts`.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { ApiProperty, ApiResource } from '../../src/declare/decorators.js';
import { defineResource } from '../../src/declare/define-resource.js';
import type { InferResource, InferWriteData, Unvalidated } from '../../src/declare/infer.js';
import type { OperationDeclaration, ResourceDeclaration } from '../../src/declare/types.js';
import type {
  AccessRule,
  AccessRuleContext,
  ValidationGroupsContext,
  ValidationGroupsDeclaration,
} from '../../src/metadata/declared.js';
import type { ResourceInput } from '../../src/build/passes/collect-declarations.js';
import type { Entity, ItemId, StateProcessor, StateProvider } from '../../src/metadata/types.js';
import type { UserResourceOptions } from '../../src/security/config.js';

const fields = {
  title: { type: 'string' },
  price: { type: 'float', nullable: true },
  author: { toOne: 'Author' },
  tags: { type: 'string[]' },
} as const;
type Item = { id: number; title: string; price: number | null; author: number; tags: string[] };
type Data = { id?: number; title: string; price: number | null; author: number; tags: string[] };
/** Before validation, any field may still be null. */
type Unchecked = {
  id?: number;
  title: string | null;
  price: number | null;
  author: number | null;
  tags: string[] | null;
};

describe('functions inside defineResource', () => {
  it('types a processor: data is the new state, previous and expected the item', () => {
    const Book = defineResource({
      name: 'Book',
      fields,
      processor: {
        async process(data, context) {
          expectTypeOf(data).toEqualTypeOf<Data>();
          expectTypeOf(context.previous).toEqualTypeOf<Item | null>();
          expectTypeOf(context.expected).toEqualTypeOf<Item | undefined>();
          // @ts-expect-error -- a number in a string field
          data.title = 3;
          // @ts-expect-error -- no such field
          void data.subtitle;
          return { ...data, id: data.id ?? 1 };
        },
      },
    });
    expectTypeOf<InferResource<typeof Book>>().toEqualTypeOf<Item>();
    expectTypeOf<InferWriteData<typeof Book>>().toEqualTypeOf<Data>();
  });

  it('types the processor and the rules of one operation', () => {
    defineResource({
      name: 'Book',
      fields,
      operations: [
        'get',
        {
          kind: 'post',
          processor: {
            async process(data) {
              expectTypeOf(data.price).toEqualTypeOf<number | null>();
              // @ts-expect-error -- price may be null
              data.price.toFixed(2);
            },
          },
          security: ({ object }) => object === null || object.author > 0,
          securityPostDenormalize: ({ object, previousObject }) => {
            expectTypeOf(object).toEqualTypeOf<Unchecked | null>();
            expectTypeOf(previousObject).toEqualTypeOf<Item | null>();
            // @ts-expect-error -- not validated yet: the title may be null
            return object!.title.length > 0;
          },
          validationGroups: ({ object }) => (object.price === null ? ['free'] : ['Default']),
        },
      ],
    });
  });

  it('types access rules and validation groups functions of the resource', () => {
    defineResource({
      name: 'Book',
      fields,
      security: (context) => {
        expectTypeOf(context).toEqualTypeOf<AccessRuleContext<Item>>();
        // @ts-expect-error -- no such field
        return context.object?.owner === context.user;
      },
      securityPostDenormalize: ({ object }) => object?.tags?.includes('public') ?? false,
      validationGroups: (context) => {
        expectTypeOf(context).toEqualTypeOf<ValidationGroupsContext<Item, Unchecked>>();
        expectTypeOf(context.object).toEqualTypeOf<Unvalidated<InferWriteData<{ fields: typeof fields }>>>();
        return ['Default'];
      },
    });
  });

  it('leaves field rule functions untyped, without losing the types of the rest', () => {
    defineResource({
      name: 'Book',
      fields: { ...fields, isbn: { type: 'string', security: ({ object }) => object?.secret !== true } },
      processor: {
        async process(data) {
          expectTypeOf(data.isbn).toEqualTypeOf<string>();
        },
      },
    });
  });

  it('keeps expressions as strings (parsed at start-up, not typed)', () => {
    const Book = defineResource({
      name: 'Book',
      fields,
      security: "is_granted('ROLE_USER')",
      securityPostDenormalize: 'object.author == user',
    });
    expectTypeOf(Book.security).toEqualTypeOf<"is_granted('ROLE_USER')">();
  });

  it('takes providers returning plain entities or typed items', () => {
    const rows = new Map<ItemId, Entity>();
    defineResource({
      name: 'Book',
      fields,
      provider: {
        async provide({ id }) {
          return rows.get(id!) ?? null;
        },
      },
    });
    const typed: StateProvider<Item> = {
      provide: async () => ({ id: 1, title: 'Dune', price: null, author: 1, tags: [] }),
    };
    // @ts-expect-error -- a typed provider checks what it returns
    const wrong: StateProvider<Item> = { provide: async () => ({ id: 1, title: 2, price: null, author: 1, tags: [] }) };
    defineResource({ name: 'Book', fields, provider: typed, operations: [{ kind: 'get', provider: wrong }] });
  });

  it('takes operations, rules and groups functions declared on their own, untyped', () => {
    const paging: Partial<OperationDeclaration> = { paginationClientPartial: true };
    const owner: AccessRule = ({ object, user }) => object?.owner === user?.id;
    const groups: ValidationGroupsDeclaration = ({ object }) => (object.draft ? ['draft'] : ['Default']);
    defineResource({
      name: 'Book',
      fields,
      security: owner,
      validationGroups: groups,
      operations: [
        { kind: 'getCollection', ...paging } as OperationDeclaration,
        { kind: 'patch', securityPostDenormalize: owner },
      ],
    });
  });

  it('accepts a processor and a provider declared on their own, untyped or typed', () => {
    const untyped: StateProcessor & StateProvider = {
      async provide() {
        return null;
      },
      async process(data) {
        expectTypeOf(data).toEqualTypeOf<Entity>();
        return data;
      },
    };
    defineResource({
      name: 'Memo',
      fields,
      provider: untyped,
      processor: untyped,
      operations: [{ kind: 'post', processor: untyped }],
    });
    const typed: StateProcessor<Item, Data> = { process: async (data) => ({ ...data, id: 1 }) };
    defineResource({ name: 'Memo', fields, processor: typed });
    const other: StateProcessor<{ id: number; name: string }> = { process: async (data) => data };
    // @ts-expect-error -- a processor typed for other fields
    defineResource({ name: 'Memo', fields, processor: other });
  });

  it('gives a declaration the plugin takes with every other one', () => {
    const Book = defineResource({ name: 'Book', fields, processor: { process: async (data) => ({ ...data, id: 1 }) } });
    expectTypeOf(Book).toExtend<ResourceInput>();
    expectTypeOf(Book).toExtend<ResourceDeclaration>();
    expectTypeOf(Book.name).toEqualTypeOf<'Book'>();
  });
});

describe('the registration hook', () => {
  it('takes a user typed by its resource', () => {
    const User = defineResource({
      name: 'User',
      fields: {
        email: { type: 'string' },
        plainPassword: { type: 'password' },
        roles: { type: 'string[]' },
        isCompany: { type: 'boolean', readable: false },
      },
    });
    const users: UserResourceOptions = {
      resource: 'User',
      onRegister: (user: Unvalidated<InferWriteData<typeof User>>) => {
        expectTypeOf(user.roles).toEqualTypeOf<string[] | null>();
        if (user.isCompany === true) user.roles = [...(user.roles ?? []), 'ROLE_COMPANY'];
      },
    };
    expectTypeOf(users.resource).toEqualTypeOf<string>();
  });
});

describe('decorated classes', () => {
  it('take a processor typed by the class', () => {
    const shelve: StateProcessor<InferResource<typeof Shelf>, InferWriteData<typeof Shelf>> = {
      async process(data, { previous }) {
        expectTypeOf(data).toEqualTypeOf<{ id?: number; label: string; capacity: number | null }>();
        expectTypeOf(previous).toEqualTypeOf<{ id: number; label: string; capacity: number | null } | null>();
        return { ...data, id: data.id ?? 1 };
      },
    };
    @ApiResource({ processor: shelve })
    class Shelf {
      @ApiProperty({ type: 'string' }) label!: string;
      @ApiProperty({ type: 'integer', nullable: true }) capacity!: number | null;
    }
    expectTypeOf(Shelf).toExtend<ResourceInput>();
  });
});
