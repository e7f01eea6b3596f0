/**
 * Type tests: what the stages and the user's components may read, by stage. A provider is told no item (it reads
 * it); a processor gets the item read as `previous`; a stage sees only what the stages before it produced. Checked by
 * tsc through `typecheck.test.ts`, not run.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { defineShape } from '../../src/declare/define-resource.js';
import type { InferShape } from '../../src/declare/infer.js';
import type { Entity, ItemId, ProcessContext, StateContext } from '../../src/metadata/types.js';
import type { After, StageContext } from '../../src/pipeline/operation-context.js';
import type { ConstraintViolation } from '../../src/errors.js';

describe('the context by stage', () => {
  it('gives a stage the results of the stages before it, and none after', () => {
    expectTypeOf<StageContext<'read'>['id']>().toEqualTypeOf<ItemId | undefined>();
    expectTypeOf<StageContext<'read'>['previous']>().toEqualTypeOf<Entity | null>();
    // @ts-expect-error -- violations come from deserialize, after the read
    type _NoViolations = StageContext<'read'>['violations'];
    // @ts-expect-error -- the expected item comes from preconditions, after the read
    type _NoExpected = StageContext<'authorize'>['expected'];
    expectTypeOf<After<'deserialize'>['violations']>().toEqualTypeOf<ConstraintViolation[]>();
    expectTypeOf<StageContext<'write'>['expected']>().toEqualTypeOf<Entity | null>();
  });

  it('keeps earlier results read-only for later stages', () => {
    const context = {} as StageContext<'write'>;
    // @ts-expect-error -- the id is the parameters stage's
    context.id = 3;
    context.data = null;
    expectTypeOf(context.caller.roles).toEqualTypeOf<readonly string[]>();
  });

  it('tells a provider no item and a processor the item read', () => {
    // @ts-expect-error -- a provider reads the item; it is not handed one
    type _NoPrevious = StateContext['previous'];
    expectTypeOf<ProcessContext['previous']>().toEqualTypeOf<Entity | null>();
    expectTypeOf<StateContext['caller']['user']>().toEqualTypeOf<Entity | null>();
  });

  it('types the values of a shape', () => {
    const Stats = defineShape({
      name: 'Stats',
      fields: { count: { type: 'integer' }, latest: { type: 'string', nullable: true } },
    });
    expectTypeOf<InferShape<typeof Stats>>().toEqualTypeOf<{ count: number; latest: string | null }>();
  });
});
