/** Access-rule expressions evaluated directly: operators, precedence, `in`, member access on missing values; and Symfony's authentication attributes through `grants`. */
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/security/expression.js';
import { grants } from '../../src/security/access.js';

const scope = (over: Record<string, unknown> = {}) =>
  ({
    user: { id: 3, email: 'a@b.c' },
    roles: ['ROLE_USER'],
    object: { id: 7, owner: 3, tags: ['x'] },
    previousObject: { id: 7, owner: 4 },
    request: { method: 'GET', path: '/x' },
    isGranted: (r: string) => ['ROLE_USER'].includes(r),
    ...over,
    // biome-ignore lint/suspicious/noExplicitAny: a partial scope (and whatever `over` sets) for the compiled rules
  }) as any;

describe('expression semantics', () => {
  const cases: [string, boolean][] = [
    ["'ROLE_ADMIN' not in roles", true],
    ["'ROLE_USER' not in roles", false],
    ["'ROLE_USER' in roles", true],
    ["not is_granted('ROLE_ADMIN')", true],
    ["is_granted('ROLE_USER') and not (object.owner == user)", false],
    ['object.owner == user and previous_object.owner != user', true],
    ["is_granted('ROLE_ADMIN') or object.owner == user and is_granted('ROLE_USER')", true],
    ['object.missing.deeper == null', true],
    ['user.id == 3', true],
    ['object.owner === user', true],
    ['object.id > 5 and object.id <= 7', true],
    ["'x' in object.tags", true],
    ['!(user.id == 4)', true],
    ['user.id in [1, 2, 3]', true],
    ['is_authenticated()', true],
  ];
  for (const [source, expected] of cases) it(source, () => expect(compileExpression(source)(scope())).toBe(expected));
});

describe("Symfony's authentication attributes in is_granted() (through access.grants, as requests use it)", () => {
  const caller = { user: { id: 3 }, roles: ['ROLE_USER'] };
  const ruleScope = { object: null, previousObject: null, request: { method: 'GET', path: '/x' } };
  it("is_granted('IS_AUTHENTICATED_FULLY') / ('IS_AUTHENTICATED') / ('PUBLIC_ACCESS') hold for a logged-in user", () => {
    for (const source of [
      "is_granted('IS_AUTHENTICATED_FULLY')",
      "is_granted('IS_AUTHENTICATED')",
      "is_granted('PUBLIC_ACCESS')",
    ]) {
      expect(grants(source, caller, ruleScope), source).toBe(true);
    }
  });
});
