/**
 * Conditions (`metadata/conditions.ts`) → SQL. A property path through relations becomes nested `IN (SELECT …)`
 * sub-queries, one per hop, so to-many paths never duplicate rows and counts stay right; the leaf conditions of one
 * `all` or `any` group on the same relation path share one sub-query (the same related item meets them). `not` of a
 * condition through relations keeps the items no related item meets it for (`id NOT IN (…)`), those without related
 * items included. Every value is bound, converted as the database stores the leaf's type.
 */
import { type ResolvedPath, resolvePath } from '../../metadata/property-path.js';
import type { MetadataRegistry, ResourceMetadata, ToOneFieldMetadata } from '../../metadata/types.js';
import type { Condition, MatchPattern } from '../../metadata/conditions.js';
import type { Dialect, SubstringCondition } from '../dialects/dialect.js';
import { buildSubstringIndexName } from '../migrations/desired-schema.js';
import type { SqlWriter } from './sql-writer.js';

/** A condition that reads a trigram index. */
export interface SubstringIndexUse {
  readonly index: string;
  readonly condition: SubstringCondition;
}

/** What compiling conditions needs, and what it reports. */
export interface ConditionScope {
  readonly registry: MetadataRegistry;
  readonly dialect: Dialect;
  /** Table → its columns with a trigram index (search filters with `substringIndex`). */
  readonly substringIndexes: ReadonlyMap<string, ReadonlySet<string>>;
  /** `scan`: pattern conditions do not read trigram indexes; `index`: they do where the dialect reads them. */
  readonly substringPlan: 'index' | 'scan';
  /** The trigram index conditions written, in order. */
  readonly uses: SubstringIndexUse[];
  /** Numbers the aliases of sub-queries. */
  aliases: number;
  /** The alias of the statement's own table, which sub-query aliases start with. */
  readonly root: string;
}

/** Where a condition is written: a resource's table under an alias. */
interface At {
  readonly resource: ResourceMetadata;
  readonly alias: string;
}

const paths = new WeakMap<ResourceMetadata, Map<string, ResolvedPath>>();

/** A property path of a resource, resolved once. */
export function resolveCachedPath(registry: MetadataRegistry, resource: ResourceMetadata, path: string): ResolvedPath {
  let cache = paths.get(resource);
  if (!cache) paths.set(resource, (cache = new Map()));
  let found = cache.get(path);
  if (!found) {
    found = resolvePath(
      path,
      resource.name,
      (name) => registry.resource(name).fields,
      `Resource "${resource.name}", filter`,
    );
    cache.set(path, found);
  }
  return found;
}

type Leaf = Extract<Condition, { path: string }>;
/** A leaf condition and the field its path ends on (resolved from where the path starts). */
type Placed = { readonly leaf: Leaf; readonly field: ResolvedPath['leaf'] };
const isLeaf = (condition: Condition): condition is Leaf => 'path' in condition;

/** The relation part of a leaf's path (`author.name` → `author`), the key its sub-queries are shared by. */
function hopsKey(scope: ConditionScope, at: At, leaf: Leaf): string {
  const { hops } = resolveCachedPath(scope.registry, at.resource, leaf.path);
  return hops.map((hop) => hop.name).join('.');
}

/** Writes conditions ANDed (the top level: each filter's own sub-queries). None: always true. */
export function writeConditions(w: SqlWriter, scope: ConditionScope, at: At, conditions: readonly Condition[]): void {
  if (conditions.length === 0) {
    w.sql('1 = 1');
    return;
  }
  conditions.forEach((condition, index) => {
    if (index > 0) w.sql(' and ');
    writeCondition(w, scope, at, condition);
  });
}

function writeCondition(w: SqlWriter, scope: ConditionScope, at: At, condition: Condition): void {
  switch (condition.kind) {
    case 'all':
    case 'any':
      writeGroup(w, scope, at, condition.kind, condition.conditions);
      return;
    case 'not':
      writeNot(w, scope, at, condition.condition);
      return;
    case 'raw':
      writeRaw(w, scope, at, condition.sql, condition.bindings);
      return;
    case 'exists':
      // No value through relations: no related item has one (an item without related items included).
      if (!condition.exists && hopsOf(scope, at, condition).length > 0) {
        writeNot(w, scope, at, { ...condition, exists: true });
        return;
      }
      writeThrough(w, scope, at, hopsOf(scope, at, condition), 0, [place(scope, at, condition)]);
      return;
    default:
      writeThrough(w, scope, at, hopsOf(scope, at, condition), 0, [place(scope, at, condition)]);
  }
}

const hopsOf = (scope: ConditionScope, at: At, leaf: Leaf) =>
  resolveCachedPath(scope.registry, at.resource, leaf.path).hops;
const place = (scope: ConditionScope, at: At, leaf: Leaf): Placed => ({
  leaf,
  field: resolveCachedPath(scope.registry, at.resource, leaf.path).leaf,
});

/** A group: its leaves on one relation path share a sub-query; the other members are written one by one. */
function writeGroup(
  w: SqlWriter,
  scope: ConditionScope,
  at: At,
  kind: 'all' | 'any',
  members: readonly Condition[],
): void {
  if (members.length === 0) {
    w.sql(kind === 'all' ? '1 = 1' : '1 = 0');
    return;
  }
  const shared = new Map<string, Leaf[]>();
  const parts: (Condition | Leaf[])[] = [];
  for (const member of members) {
    // A leaf that asks for no value through relations is a `not` (see writeCondition): written on its own.
    if (!isLeaf(member) || (member.kind === 'exists' && !member.exists && hopsOf(scope, at, member).length > 0)) {
      parts.push(member);
      continue;
    }
    const key = hopsKey(scope, at, member);
    let leaves = shared.get(key);
    if (!leaves) {
      shared.set(key, (leaves = []));
      parts.push(leaves);
    }
    leaves.push(member);
  }
  w.sql('(');
  parts.forEach((part, index) => {
    if (index > 0) w.sql(kind === 'all' ? ' and ' : ' or ');
    if (Array.isArray(part))
      writeThrough(
        w,
        scope,
        at,
        hopsOf(scope, at, part[0]!),
        0,
        part.map((leaf) => place(scope, at, leaf)),
        kind,
      );
    else writeCondition(w, scope, at, part);
  });
  w.sql(')');
}

/**
 * Leaves on one relation path (`hops`, from `hop` on), joined by `kind`: each hop is a sub-query of the related
 * items' ids, the leaves are written on the innermost one.
 */
function writeThrough(
  w: SqlWriter,
  scope: ConditionScope,
  at: At,
  hops: ResolvedPath['hops'],
  hop: number,
  leaves: readonly Placed[],
  kind: 'all' | 'any' = 'all',
): void {
  if (hop === hops.length) {
    if (leaves.length > 1) w.sql('(');
    leaves.forEach((placed, index) => {
      if (index > 0) w.sql(kind === 'all' ? ' and ' : ' or ');
      writeLeaf(w, scope, at, placed);
    });
    if (leaves.length > 1) w.sql(')');
    return;
  }
  const field = hops[hop]!;
  const next = scope.registry.resource(field.target);
  const sub = `${scope.root}_f${++scope.aliases}`;
  const inner: At = { resource: next, alias: sub };
  if (field.kind === 'toOne') {
    w.id(`${at.alias}.${field.column}`)
      .sql(' in (select ')
      .id(`${sub}.id`)
      .sql(' from ')
      .id(next.table)
      .sql(' as ')
      .id(sub)
      .sql(' where ');
  } else if (field.joinTable) {
    // Many-to-many: through the join table.
    const join = field.joinTable;
    const link = `${scope.root}_l${++scope.aliases}`;
    w.id(`${at.alias}.id`)
      .sql(' in (select ')
      .id(`${link}.${join.ownColumn}`)
      .sql(' from ')
      .id(join.table)
      .sql(' as ')
      .id(link)
      .sql(' where ');
    w.id(`${link}.${join.targetColumn}`)
      .sql(' in (select ')
      .id(`${sub}.id`)
      .sql(' from ')
      .id(next.table)
      .sql(' as ')
      .id(sub)
      .sql(' where ');
    writeLive(w, inner);
    writeThrough(w, scope, inner, hops, hop + 1, leaves, kind);
    w.sql('))');
    return;
  } else {
    const owning = next.fieldsByName.get(field.mappedBy!) as ToOneFieldMetadata;
    w.id(`${at.alias}.id`)
      .sql(' in (select ')
      .id(`${sub}.${owning.column}`)
      .sql(' from ')
      .id(next.table)
      .sql(' as ')
      .id(sub)
      .sql(' where ');
  }
  writeLive(w, inner);
  writeThrough(w, scope, inner, hops, hop + 1, leaves, kind);
  w.sql(')');
}

/**
 * A hop to a soft-deleted resource reaches its live items only (`state/knex/live-rows.ts`): `<alias>.deleted_at is null
 * and `.
 */
function writeLive(w: SqlWriter, at: At): void {
  const softDelete = at.resource.softDelete;
  if (softDelete) w.id(`${at.alias}.${softDelete.column}`).sql(' is null and ');
}

/** Whether a condition goes through a relation anywhere in it. */
function throughRelations(scope: ConditionScope, at: At, condition: Condition): boolean {
  if (isLeaf(condition)) return hopsOf(scope, at, condition).length > 0;
  if (condition.kind === 'not') return throughRelations(scope, at, condition.condition);
  if (condition.kind === 'all' || condition.kind === 'any')
    return condition.conditions.some((member) => throughRelations(scope, at, member));
  return false;
}

function writeNot(w: SqlWriter, scope: ConditionScope, at: At, condition: Condition): void {
  if (!throughRelations(scope, at, condition)) {
    w.sql('not (');
    writeCondition(w, scope, at, condition);
    w.sql(')');
    return;
  }
  // The items for which the condition holds, left out: an item without related items is kept.
  const self = `${scope.root}_n${++scope.aliases}`;
  w.id(`${at.alias}.id`)
    .sql(' not in (select ')
    .id(`${self}.id`)
    .sql(' from ')
    .id(at.resource.table)
    .sql(' as ')
    .id(self)
    .sql(' where ');
  writeCondition(w, scope, { resource: at.resource, alias: self }, condition);
  w.sql(')');
}

/** `{field}` names a column of the resource; `?` binds the next value. */
function writeRaw(w: SqlWriter, scope: ConditionScope, at: At, sql: string, bindings: readonly unknown[]): void {
  let next = 0;
  w.sql('(');
  for (const part of sql.split(/(\{[A-Za-z_][A-Za-z0-9_]*\}|\?)/)) {
    if (part === '?') {
      if (next >= bindings.length) throw new Error(`The raw condition "${sql}" has more "?" than values.`);
      w.value(bindings[next++]);
    } else if (part.startsWith('{') && part.endsWith('}')) {
      const path = resolveCachedPath(scope.registry, at.resource, part.slice(1, -1));
      if (path.hops.length > 0)
        throw new Error(`The raw condition "${sql}" names "${part}": only fields of "${at.resource.name}" itself.`);
      w.id(`${at.alias}.${path.leaf.column}`);
    } else {
      w.sql(part);
    }
  }
  if (next !== bindings.length)
    throw new Error(`The raw condition "${sql}" has ${next} "?" for ${bindings.length} values.`);
  w.sql(')');
}

/** A condition on the leaf column of `at`'s resource. */
function writeLeaf(w: SqlWriter, scope: ConditionScope, at: At, { leaf, field }: Placed): void {
  const column = `${at.alias}.${field.column}`;
  const toDb = (value: unknown) => (field.kind === 'scalar' ? scope.dialect.toDb(field.type, value) : value);
  switch (leaf.kind) {
    case 'compare':
      w.id(column).sql(` ${leaf.operator} `).value(toDb(leaf.value));
      return;
    case 'in':
      if (leaf.values.length === 0) {
        w.sql('1 = 0');
        return;
      }
      w.id(column).sql(' in (');
      leaf.values.forEach((value, index) => {
        (index > 0 ? w.sql(', ') : w).value(toDb(value));
      });
      w.sql(')');
      return;
    case 'exists':
      if (!leaf.exists) {
        w.id(column).sql(' is null');
        return;
      }
      w.id(column).sql(' is not null');
      return;
    case 'match':
      writeMatch(w, scope, at, column, leaf.pattern);
      return;
  }
}

/** A pattern condition, on a trigram index where the column has one and the dialect reads it that way. */
function writeMatch(w: SqlWriter, scope: ConditionScope, at: At, column: string, pattern: MatchPattern): void {
  const use = indexed(scope, at, column, pattern);
  if (use) scope.uses.push(use);
  if (use?.condition.exact) {
    w.raw(use.condition.sql, use.condition.bindings);
    return;
  }
  const matched = scope.dialect.match(column, pattern);
  if (!use) {
    w.raw(matched.sql, matched.bindings);
    return;
  }
  // The index finds a superset of the matches; the pattern narrows it.
  w.sql('(').raw(use.condition.sql, use.condition.bindings).sql(' and ').raw(matched.sql, matched.bindings).sql(')');
}

function indexed(scope: ConditionScope, at: At, column: string, pattern: MatchPattern): SubstringIndexUse | undefined {
  if (pattern.anchor === 'exact' || scope.substringPlan === 'scan') return undefined;
  const name = column.slice(column.lastIndexOf('.') + 1);
  if (!scope.substringIndexes.get(at.resource.table)?.has(name)) return undefined;
  const index = buildSubstringIndexName(at.resource.table, name);
  const condition = scope.dialect.substringCondition?.(`${at.alias}.id`, index, pattern);
  return condition && { index, condition };
}
