/**
 * The shape of a page's query without knex: the same code that builds the query (the page's columns and joins, the
 * filters through `createFilterQuery`, the order, the limit) runs against a recorder instead of a knex builder. The
 * recorder writes each call into a key (methods, identifiers, operators, raw SQL, and of each value only its kind) and
 * keeps the values, in the order of the calls. Two requests with the same key have the same SQL, and their values are
 * its bindings: the runner's `shaped` then builds and compiles the query with knex once per key, checks that knex
 * bound exactly the recorded values, in that order, and afterwards runs the SQL it kept with each request's values.
 *
 * Why: knex building and compiling a filtered page (conditions in nested callbacks, sub-queries, order terms) took
 * 40 µs of an ordered page and a quarter of a search's CPU under load, for SQL that depends only on the shape.
 *
 * The recorder knows the query builder methods the page and the built-in filters use, with the arguments they pass.
 * Anything else (a custom filter calling another method, handing in a knex raw or a sub-query, reading the knex
 * instance) throws `Unshaped`, and that request's query is built by knex as before.
 */
import type { Knex } from 'knex';

/** A call the recorder does not know: the query is built by knex. */
class Unshaped extends Error {}

export interface QueryShape {
  readonly key: string;
  readonly bindings: readonly unknown[];
}

/** The kind of a bound value, which is all of it that can change knex's SQL (null gives `IS NULL`). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean' || type === 'bigint') return type[0]!;
  if (value instanceof Date) return 'd';
  throw new Unshaped('a bound value that is not a primitive or a date');
}

const isIdentifier = (value: unknown): value is string => typeof value === 'string';

/**
 * The clauses a recorded value can be bound in, in the order knex compiles them: a value's place among the bindings is
 * its clause's, not its call's. A page's count is selected (a sub-query of the columns) after its parent's condition
 * was added to the WHERE, yet knex binds the count's values first: recorded in call order, a subresource page's values
 * went to the wrong placeholders whenever they differed from the first request's.
 */
type Clause = 'columns' | 'where' | 'order' | 'offset';
const CLAUSES: readonly Clause[] = ['columns', 'where', 'order', 'offset'];

/**
 * The `??` (identifiers, written into the key) and `?` (values, bound) of a knex raw: knex's own placeholder syntax,
 * where `\\?` is a literal question mark.
 */
function recordRaw(recorder: Recorder, sql: unknown, bindings: unknown, clause: Clause): void {
  if (typeof sql !== 'string' || (bindings !== undefined && !Array.isArray(bindings))) throw new Unshaped('a raw condition of another form');
  const values = (bindings ?? []) as unknown[];
  let next = 0;
  recorder.write(`raw[${sql}]`);
  for (let index = 0; index < sql.length; index++) {
    if (sql[index] === '\\' && sql[index + 1] === '?') {
      index++;
      continue;
    }
    if (sql[index] !== '?') continue;
    if (next >= values.length) throw new Unshaped('a raw condition with fewer bindings than placeholders');
    const value = values[next++];
    if (sql[index + 1] === '?') {
      index++;
      if (!isIdentifier(value)) throw new Unshaped('an identifier that is not a string');
      recorder.write(`id[${value}]`);
    } else recorder.bind(value, clause);
  }
  if (next !== values.length) throw new Unshaped('a raw condition with more bindings than placeholders');
}

/** The builder the recorder hands out: the knex methods a page's query and the built-in filters call. */
class Recorder {
  /** The values bound, per clause, each in call order. */
  private readonly values: Record<Clause, unknown[]> = { columns: [], where: [], order: [], offset: [] };

  constructor(private readonly parts: string[]) {}

  /** The values recorded, in the order knex binds them. */
  get bindings(): unknown[] {
    return CLAUSES.flatMap((clause) => this.values[clause]);
  }

  /** The key of what was recorded, and its values. */
  shape(): QueryShape {
    return { key: this.parts.join('\u0001'), bindings: this.bindings };
  }

  write(part: string): void {
    this.parts.push(part);
  }

  bind(value: unknown, clause: Clause = 'where'): void {
    this.parts.push(kindOf(value));
    this.values[clause].push(value);
  }

  /**
   * A nested group (`where(fn)`) or sub-query (`whereIn(column, fn)`): recorded in place, between brackets; its values,
   * in its own clauses' order, are bound where it stands, in this builder's WHERE.
   */
  private nested(callback: (builder: Knex.QueryBuilder) => unknown): void {
    this.parts.push('(');
    const inner = new Recorder(this.parts);
    callback(inner as unknown as Knex.QueryBuilder);
    this.values.where.push(...inner.bindings);
    this.parts.push(')');
  }

  private condition(method: string, args: readonly unknown[]): this {
    this.write(method);
    const [first] = args;
    if (args.length === 1 && typeof first === 'function') {
      this.nested(first as (builder: Knex.QueryBuilder) => unknown);
      return this;
    }
    if (!isIdentifier(first) || args.length < 2 || args.length > 3) throw new Unshaped(`${method} of another form`);
    this.write(`id[${first}]`);
    if (args.length === 3) {
      if (typeof args[1] !== 'string') throw new Unshaped('an operator that is not a string');
      this.write(`op[${args[1]}]`);
    }
    this.bind(args[args.length - 1]);
    return this;
  }

  where(...args: unknown[]): this {
    return this.condition('where', args);
  }
  andWhere(...args: unknown[]): this {
    return this.condition('where', args);
  }
  orWhere(...args: unknown[]): this {
    return this.condition('orWhere', args);
  }
  whereNot(...args: unknown[]): this {
    return this.condition('whereNot', args);
  }

  private list(method: string, column: unknown, values: unknown): this {
    if (!isIdentifier(column)) throw new Unshaped(`${method} of another form`);
    this.write(`${method}[${column}]`);
    if (typeof values === 'function') this.nested(values as (builder: Knex.QueryBuilder) => unknown);
    else if (Array.isArray(values)) {
      this.write(`list[${values.length}]`);
      for (const value of values) this.bind(value);
    } else throw new Unshaped(`${method} of another form`);
    return this;
  }

  whereIn(column: unknown, values: unknown): this {
    return this.list('whereIn', column, values);
  }
  whereNotIn(column: unknown, values: unknown): this {
    return this.list('whereNotIn', column, values);
  }

  private nullTest(method: string, column: unknown): this {
    if (!isIdentifier(column)) throw new Unshaped(`${method} of another form`);
    this.write(`${method}[${column}]`);
    return this;
  }

  whereNull(column: unknown): this {
    return this.nullTest('whereNull', column);
  }
  orWhereNull(column: unknown): this {
    return this.nullTest('orWhereNull', column);
  }
  whereNotNull(column: unknown): this {
    return this.nullTest('whereNotNull', column);
  }
  orWhereNotNull(column: unknown): this {
    return this.nullTest('orWhereNotNull', column);
  }

  whereRaw(sql: unknown, bindings?: unknown): this {
    this.write('whereRaw');
    recordRaw(this, sql, bindings, 'where');
    return this;
  }
  orWhereRaw(sql: unknown, bindings?: unknown): this {
    this.write('orWhereRaw');
    recordRaw(this, sql, bindings, 'where');
    return this;
  }
  orderByRaw(sql: unknown, bindings?: unknown): this {
    this.write('orderByRaw');
    recordRaw(this, sql, bindings, 'order');
    return this;
  }

  orderBy(column: unknown, direction: unknown): this {
    if (!isIdentifier(column) || (direction !== 'asc' && direction !== 'desc')) throw new Unshaped('orderBy of another form');
    this.write(`orderBy[${column},${direction}]`);
    return this;
  }

  /** Column names, or `{ alias: column }`, or `{ alias: sub-query }` (a recorder, as the page's count is). */
  select(...args: unknown[]): this {
    this.write('select');
    for (const arg of args) {
      if (isIdentifier(arg)) this.write(`id[${arg}]`);
      else if (Array.isArray(arg) && arg.every(isIdentifier)) this.write(`ids[${arg.join(',')}]`);
      else if (arg !== null && typeof arg === 'object' && !Array.isArray(arg)) {
        for (const [name, value] of Object.entries(arg)) {
          if (isIdentifier(value)) this.write(`as[${name},${value}]`);
          else if (value instanceof Recorder) {
            this.write(`as[${name}]`);
            this.parts.push('(', ...value.parts, ')');
            this.values.columns.push(...value.bindings);
          } else throw new Unshaped('a selected value of another form');
        }
      } else throw new Unshaped('select of another form');
    }
    return this;
  }

  from(table: unknown): this {
    if (!isIdentifier(table)) throw new Unshaped('from of another form');
    this.write(`from[${table}]`);
    return this;
  }

  count(columns: unknown): this {
    if (columns === null || typeof columns !== 'object' || !Object.values(columns).every(isIdentifier)) throw new Unshaped('count of another form');
    this.write(`count[${JSON.stringify(columns)}]`);
    return this;
  }

  leftJoin(table: unknown, first: unknown, second: unknown, ...rest: unknown[]): this {
    if (!isIdentifier(table) || !isIdentifier(first) || !isIdentifier(second) || rest.length > 0) throw new Unshaped('leftJoin of another form');
    this.write(`leftJoin[${table},${first},${second}]`);
    return this;
  }

  /** `limit(n, { skipBinding: true })` writes the count into the SQL; it belongs to the key. */
  limit(count: unknown, options?: { skipBinding?: boolean }): this {
    if (typeof count !== 'number' || options?.skipBinding !== true) throw new Unshaped('a bound limit');
    this.write(`limit[${count}]`);
    return this;
  }

  /** knex leaves out `OFFSET 0` and binds any other offset. */
  offset(offset: unknown): this {
    if (typeof offset !== 'number') throw new Unshaped('offset of another form');
    if (offset === 0) this.write('offset[0]');
    else {
      this.write('offset');
      this.bind(offset, 'offset');
    }
    return this;
  }
}

/** A builder that records instead of building, for `table` (`book as t0`), as `knex(table)` starts one. */
export function recordingBuilder(table: string): Knex.QueryBuilder {
  return new Recorder([`table[${table}]`]) as unknown as Knex.QueryBuilder;
}

/** The shape a recording builder has recorded. */
export function shapeOf(builder: Knex.QueryBuilder): QueryShape {
  return (builder as unknown as Recorder).shape();
}
