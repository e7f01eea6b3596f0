/**
 * Access-rule expressions in API Platform's style — `is_granted('ROLE_USER') and object.owner == user` — parsed once by
 * jsep at start-up and evaluated by walking the tree: never run as JavaScript. What an expression can reach is fixed:
 * the variables `user`, `roles`, `object`, `previous_object`, `request`, member access, literals, comparisons,
 * `and` / `or` / `not` (and `&&`, `||`, `!`), `in`, and the functions `is_granted(role)` and `is_authenticated()`.
 *
 * Comparing an item with a relation compares ids: `object.owner == user` holds when the owner's id is the user's id.
 * For anonymous callers `user` is false in a test (`user`, `not user`, `user and …`) and equals the literal `null` only
 * (`user == null` holds), never a value that happens to be null (`object.owner == user` does not hold for an item
 * without owner).
 */
import jsep, { type Expression } from 'jsep';
import { DeclarationError } from '../errors.js';

jsep.addBinaryOp('and', 2);
jsep.addBinaryOp('or', 1);
jsep.addBinaryOp('in', 7);
jsep.addBinaryOp('not in', 7);
jsep.addUnaryOp('not');

const VARIABLES = ['user', 'roles', 'object', 'previous_object', 'request', 'true', 'false', 'null'];
const FUNCTIONS = ['is_granted', 'is_authenticated', 'is_fully_authenticated'];

export interface ExpressionScope {
  readonly user: Record<string, unknown> | null;
  readonly roles: readonly string[];
  readonly object: Record<string, unknown> | null;
  readonly previousObject: Record<string, unknown> | null;
  readonly request: { readonly method: string; readonly path: string };
  isGranted(role: string): boolean;
}

export type CompiledExpression = (scope: ExpressionScope) => boolean;

const cache = new Map<string, Expression>();

/**
 * `user` for anonymous callers: false in a test, equal to the literal `null` and to nothing else, so
 * `object.owner == user` never holds for them — also before the read, when `object` is null.
 */
const ANONYMOUS_USER = Object.freeze({});

/** A value as a test reads it: the anonymous user is false. */
const truthy = (value: unknown): boolean => value !== ANONYMOUS_USER && Boolean(value);

const isNullLiteral = (node: Expression): boolean =>
  (node.type === 'Literal' && node.value === null) || (node.type === 'Identifier' && node.name === 'null');

function parse(source: string, where: string): Expression {
  let tree = cache.get(source);
  if (tree) return tree;
  try {
    tree = jsep(source);
  } catch (error) {
    throw new DeclarationError(`${where}: the expression "${source}" does not parse (${(error as Error).message}).`);
  }
  check(tree, source, where);
  cache.set(source, tree);
  return tree;
}

function check(node: Expression, source: string, where: string): void {
  const fail = (what: string) => {
    throw new DeclarationError(`${where}: ${what} in the expression "${source}".`);
  };
  switch (node.type) {
    case 'Literal':
      return;
    case 'Identifier':
      if (!VARIABLES.includes(node.name as string))
        fail(`unknown variable "${node.name as string}" (known: ${VARIABLES.slice(0, 5).join(', ')})`);
      return;
    case 'MemberExpression':
      if (node.computed) fail('computed member access ([...])');
      check(node.object as Expression, source, where);
      return;
    case 'CallExpression': {
      const callee = node.callee as Expression;
      if (callee.type !== 'Identifier' || !FUNCTIONS.includes(callee.name as string))
        fail(`unknown function (known: ${FUNCTIONS.join(', ')})`);
      for (const argument of node.arguments as Expression[]) check(argument, source, where);
      return;
    }
    case 'BinaryExpression':
      check(node.left as Expression, source, where);
      check(node.right as Expression, source, where);
      return;
    case 'UnaryExpression':
      check(node.argument as Expression, source, where);
      return;
    case 'ArrayExpression':
      for (const element of node.elements as Expression[]) check(element, source, where);
      return;
    case 'ConditionalExpression':
      check(node.test as Expression, source, where);
      check(node.consequent as Expression, source, where);
      check(node.alternate as Expression, source, where);
      return;
    default:
      fail(`"${node.type}" is not allowed`);
  }
}

/** Checks an expression at start-up: it parses, and uses only known variables and functions. */
export function checkExpression(source: string, where: string): void {
  parse(source, where);
}

/** An item, a relation id or a scalar, reduced to what equality compares. */
const identity = (value: unknown): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && 'id' in value
    ? (value as { id: unknown }).id
    : value;

function equal(left: unknown, right: unknown): boolean {
  const a = identity(left);
  const b = identity(right);
  if (a === undefined || b === undefined) return a === b;
  return a === b;
}

function evaluate(node: Expression, scope: ExpressionScope): unknown {
  switch (node.type) {
    case 'Literal':
      return node.value;
    case 'Identifier':
      switch (node.name) {
        case 'user':
          return scope.user ?? ANONYMOUS_USER;
        case 'roles':
          return scope.roles;
        case 'object':
          return scope.object;
        case 'previous_object':
          return scope.previousObject;
        case 'request':
          return scope.request;
        case 'true':
          return true;
        case 'false':
          return false;
        default:
          return null;
      }
    case 'MemberExpression': {
      const target = evaluate(node.object as Expression, scope);
      const name = (node.property as Expression).name as string;
      // Only own data properties of plain values: no prototype, no functions.
      if (target === null || typeof target !== 'object' || !Object.hasOwn(target, name)) return null;
      const value = (target as Record<string, unknown>)[name];
      return typeof value === 'function' ? null : value;
    }
    case 'CallExpression': {
      const name = (node.callee as Expression).name as string;
      const args = (node.arguments as Expression[]).map((a) => evaluate(a, scope));
      if (name === 'is_granted') return typeof args[0] === 'string' && scope.isGranted(args[0]);
      return scope.user !== null;
    }
    case 'UnaryExpression': {
      const value = evaluate(node.argument as Expression, scope);
      if (node.operator === '!' || node.operator === 'not') return !truthy(value);
      if (node.operator === '-') return -(value as number);
      return value;
    }
    case 'BinaryExpression': {
      const operator = node.operator as string;
      if (operator === 'and' || operator === '&&')
        return truthy(evaluate(node.left as Expression, scope)) && truthy(evaluate(node.right as Expression, scope));
      if (operator === 'or' || operator === '||')
        return truthy(evaluate(node.left as Expression, scope)) || truthy(evaluate(node.right as Expression, scope));
      const left = evaluate(node.left as Expression, scope);
      const right = evaluate(node.right as Expression, scope);
      // The anonymous user is the literal null (`user == null`), and nothing else.
      const anonymousIsNull = () =>
        (left === ANONYMOUS_USER && isNullLiteral(node.right as Expression)) ||
        (right === ANONYMOUS_USER && isNullLiteral(node.left as Expression));
      switch (operator) {
        case '==':
        case '===':
          return equal(left, right) || anonymousIsNull();
        case '!=':
        case '!==':
          return !equal(left, right) && !anonymousIsNull();
        case '<':
          return (left as number) < (right as number);
        case '>':
          return (left as number) > (right as number);
        case '<=':
          return (left as number) <= (right as number);
        case '>=':
          return (left as number) >= (right as number);
        case 'in':
          return Array.isArray(right) && right.some((item) => equal(item, left));
        case 'not in':
          return !(Array.isArray(right) && right.some((item) => equal(item, left)));
        default:
          return false;
      }
    }
    case 'ArrayExpression':
      return (node.elements as Expression[]).map((e) => evaluate(e, scope));
    case 'ConditionalExpression':
      return truthy(evaluate(node.test as Expression, scope))
        ? evaluate(node.consequent as Expression, scope)
        : evaluate(node.alternate as Expression, scope);
    default:
      return false;
  }
}

const readsObject = new Map<string, boolean>();
/** Whether an expression names `object` or `previous_object` anywhere (worked out once per expression). */
export function expressionReadsObject(source: string): boolean {
  let found = readsObject.get(source);
  if (found === undefined) {
    const visit = (node: unknown): boolean =>
      node !== null &&
      typeof node === 'object' &&
      (((node as Expression).type === 'Identifier' &&
        ['object', 'previous_object'].includes((node as Expression).name as string)) ||
        Object.values(node).some(visit));
    readsObject.set(source, (found = visit(parse(source, 'Access rule'))));
  }
  return found;
}

/** Compiles an expression into a function of the scope (parsing once; evaluation walks the tree). */
export function compileExpression(source: string): CompiledExpression {
  const tree = parse(source, 'Access rule');
  return (scope) => truthy(evaluate(tree, scope));
}
