/**
 * Pass 2: check every field declaration and normalize it into field metadata (kind, column, flags, IRI). Relation
 * targets are checked here too; inverse sides are completed by the next pass.
 */
import type {
  FieldDeclaration,
  ResourceDeclaration,
  ScalarFieldDeclaration,
  ToManyDeclaration,
  ToOneDeclaration,
} from '../../declare/types.js';
import { readDeclaration } from '../../declare/decorators.js';
import { DeclarationError } from '../../errors.js';
import { checkExpression } from '../../security/expression.js';
import type { AccessRule, JsonValue, ScalarType } from '../../metadata/declared.js';
import { formatDidYouMean } from '../../metadata/did-you-mean.js';
import { toSnakeCase } from '../../metadata/naming.js';
import { RESERVED_COLUMN_PREFIX } from '../../metadata/reserved-names.js';
import type {
  FieldMetadata,
  ScalarFieldMetadata,
  ToManyFieldMetadata,
  ToOneFieldMetadata,
} from '../../metadata/types.js';

export const SCALAR_TYPES: readonly ScalarType[] = [
  'string',
  'text',
  'integer',
  'float',
  'boolean',
  'datetime',
  'date',
  'json',
  'string[]',
  'password',
  'file',
];

const COMMON_KEYS = [
  'description',
  'readable',
  'writable',
  'immutable',
  'iri',
  'column',
  'groups',
  'constraints',
  'security',
];
const LINK_KEYS = ['readableLink', 'writableLink', 'targetId'];
const KEYS = {
  scalar: ['type', 'nullable', 'default', 'computed', 'timestamp', ...COMMON_KEYS],
  toOne: [
    'toOne',
    'inversedBy',
    'nullable',
    'onDelete',
    'cascadePersist',
    'nestedWithoutOperation',
    'currentUser',
    'blame',
    ...LINK_KEYS,
    ...COMMON_KEYS,
  ],
  toMany: [
    'toMany',
    'mappedBy',
    'inversedBy',
    'joinTable',
    'subresource',
    'description',
    'readable',
    'writable',
    'iri',
    'groups',
    'constraints',
    'security',
    ...LINK_KEYS,
  ],
} as const;
const ALL_KEYS = [...new Set([...KEYS.scalar, ...KEYS.toOne, ...KEYS.toMany])];

export function buildFields(declaration: ResourceDeclaration, names: ReadonlySet<string>): FieldMetadata[] {
  const where = (field: string) => `Resource "${declaration.name}", field "${field}"`;
  const columns = new Map<string, string>([['id', 'id']]);

  return Object.entries(declaration.fields).map(([name, field]) => {
    if (name === 'id')
      throw new DeclarationError(`${where(name)}: "id" is the generated identifier and cannot be declared.`);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.startsWith('@')) {
      throw new DeclarationError(`${where(name)}: a field name must be a JavaScript identifier.`);
    }
    // An item is a plain object: a field named so would set its prototype instead of a value.
    if (name === '__proto__') throw new DeclarationError(`${where(name)}: "__proto__" cannot be a field name.`);
    if (field === null || typeof field !== 'object')
      throw new DeclarationError(`${where(name)}: the declaration must be an object.`);
    const kind = 'toOne' in field ? 'toOne' : 'toMany' in field ? 'toMany' : 'type' in field ? 'scalar' : undefined;
    for (const key of Object.keys(field)) {
      const allowed: readonly string[] = kind ? KEYS[kind] : ALL_KEYS;
      if (!allowed.includes(key)) {
        const hint = kind ? formatDidYouMean(key, allowed) : formatDidYouMean(key, ['type', 'toOne', 'toMany']);
        throw new DeclarationError(`${where(name)}: unknown option "${key}".${hint}`);
      }
    }
    if (kind === undefined) {
      throw new DeclarationError(
        `${where(name)}: give a "type" (${SCALAR_TYPES.join(', ')}), or "toOne" / "toMany" for a relation.`,
      );
    }
    const groups = (field as { groups?: unknown }).groups;
    if (groups !== undefined && (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string' || g === ''))) {
      throw new DeclarationError(`${where(name)}: "groups" must be a list of group names.`);
    }
    for (const flag of [
      'readable',
      'writable',
      'immutable',
      'nullable',
      'cascadePersist',
      'nestedWithoutOperation',
      'readableLink',
      'writableLink',
    ] as const) {
      const value = (field as unknown as Record<string, unknown>)[flag];
      if (value !== undefined && typeof value !== 'boolean')
        throw new DeclarationError(`${where(name)}: "${flag}" must be true or false.`);
    }
    const metadata =
      kind === 'scalar'
        ? buildScalar(name, field as ScalarFieldDeclaration, declaration.name, where(name))
        : kind === 'toOne'
          ? buildToOne(name, field as ToOneDeclaration, declaration.name, names, where(name))
          : buildToMany(name, field as ToManyDeclaration, declaration, names, where(name));
    if ('column' in metadata && metadata.column !== '') {
      if (metadata.column.startsWith(RESERVED_COLUMN_PREFIX)) {
        throw new DeclarationError(
          `${where(name)}: column "${metadata.column}": names starting with "${RESERVED_COLUMN_PREFIX}" are reserved for what resource-api reads beside an item's columns (a page's count, the items joined to it); give the field another "column".`,
        );
      }
      const clash = columns.get(metadata.column);
      if (clash)
        throw new DeclarationError(`${where(name)}: column "${metadata.column}" is already used by field "${clash}".`);
      columns.set(metadata.column, name);
    }
    return metadata;
  });
}

function common(name: string, field: FieldDeclaration, resource: string) {
  return {
    name,
    description: field.description,
    readable: field.readable ?? true,
    writable: field.writable ?? true,
    immutable: ('immutable' in field && field.immutable) || false,
    iri: field.iri ?? `${resource}/${name}`,
    groups: [...(field.groups ?? [])],
    constraints: [...(field.constraints ?? [])],
    security: checkedRule(field.security, `Resource "${resource}", field "${name}"`),
  };
}

function checkedRule(rule: AccessRule | undefined, where: string): AccessRule | undefined {
  if (rule === undefined || typeof rule === 'function') return rule;
  if (typeof rule !== 'string')
    throw new DeclarationError(`${where}: "security" must be an expression string or a function.`);
  checkExpression(rule, `${where}, security`);
  return rule;
}

function links(field: ToOneDeclaration | ToManyDeclaration) {
  return { readableLink: field.readableLink, writableLink: field.writableLink };
}

function buildScalar(
  name: string,
  field: ScalarFieldDeclaration,
  resource: string,
  where: string,
): ScalarFieldMetadata {
  if (!SCALAR_TYPES.includes(field.type)) {
    throw new DeclarationError(
      `${where}: unknown type "${String(field.type)}".${formatDidYouMean(String(field.type), SCALAR_TYPES)} Known types: ${SCALAR_TYPES.join(', ')}.`,
    );
  }
  const nullable = field.nullable ?? false;
  if (field.default !== undefined) assertDefaultFits(field.type, field.default, nullable, where);
  const base = common(name, field, resource);
  if (field.type === 'password') {
    // A password is accepted, hashed and stored; it is never sent back.
    if (field.readable === true) throw new DeclarationError(`${where}: a password field can never be readable.`);
    if (field.default !== undefined) throw new DeclarationError(`${where}: a password field cannot have a default.`);
    base.readable = false;
  }
  if (field.timestamp !== undefined) assertTimestampFits(field, where);
  if (field.type === 'file') {
    // A file is written by an upload and shown through fields of its own (`contentUrl`): its description stays inside.
    if (field.readable === true) throw new DeclarationError(`${where}: a file field can never be readable.`);
    if (field.default !== undefined || field.computed !== undefined)
      throw new DeclarationError(`${where}: a file field has no default and is not computed (an upload sets it).`);
    base.readable = false;
  }
  if (field.computed !== undefined) {
    // A function of the item, worked out when it is sent: never stored, never written.
    if (typeof field.computed !== 'function')
      throw new DeclarationError(`${where}: "computed" must be a function of the item.`);
    for (const key of ['default', 'column', 'immutable'] as const) {
      if (field[key] !== undefined)
        throw new DeclarationError(`${where}: a computed field has no "${key}" (it is never stored).`);
    }
    if (field.writable === true)
      throw new DeclarationError(`${where}: a computed field is read-only; it cannot be writable.`);
    if (field.type === 'password') throw new DeclarationError(`${where}: a computed field cannot be a password.`);
    return {
      ...base,
      writable: false,
      kind: 'scalar',
      type: field.type,
      nullable,
      default: undefined,
      column: '',
      computed: field.computed,
      timestamp: undefined,
    };
  }
  return {
    ...base,
    // Set by the framework on every write that stamps it: never the client's.
    ...(field.timestamp !== undefined ? { writable: false } : {}),
    kind: 'scalar',
    type: field.type,
    nullable,
    default: field.default,
    column: field.column ?? toSnakeCase(name),
    computed: undefined,
    timestamp: field.timestamp,
  };
}

const STAMPS = ['create', 'update'];

/** A timestamp is a non-null datetime that only the framework writes. */
function assertTimestampFits(field: ScalarFieldDeclaration, where: string): void {
  if (!STAMPS.includes(field.timestamp as string))
    throw new DeclarationError(
      `${where}: timestamp must be "create" or "update".${formatDidYouMean(String(field.timestamp), STAMPS)}`,
    );
  if (field.type !== 'datetime')
    throw new DeclarationError(`${where}: a timestamp is a "datetime" field, not "${field.type}".`);
  if (field.computed !== undefined)
    throw new DeclarationError(`${where}: a computed field is never stored; it cannot be a timestamp.`);
  for (const key of ['default', 'nullable', 'immutable'] as const) {
    if (field[key] !== undefined)
      throw new DeclarationError(
        `${where}: a timestamp has no "${key}" (the framework sets it on every write it stamps, never null).`,
      );
  }
  if (field.writable === true)
    throw new DeclarationError(`${where}: a timestamp is set by the framework; it cannot be writable.`);
}

function assertDefaultFits(type: ScalarType, value: JsonValue, nullable: boolean, where: string): void {
  const fits =
    value === null
      ? nullable
      : value === 'now'
        ? type === 'datetime' || type === 'date'
        : {
            string: typeof value === 'string',
            text: typeof value === 'string',
            password: false,
            file: false,
            integer: Number.isInteger(value),
            float: typeof value === 'number',
            boolean: typeof value === 'boolean',
            datetime:
              typeof value === 'string' && /(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value)),
            date:
              typeof value === 'string' &&
              /^\d{4}-\d{2}-\d{2}$/.test(value) &&
              new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
            json: true,
            'string[]': Array.isArray(value) && value.every((item) => typeof item === 'string'),
          }[type];
  if (!fits)
    throw new DeclarationError(
      `${where}: the default ${JSON.stringify(value)} is not a valid ${type}${value === null ? ' (the field is not nullable)' : ''}.`,
    );
}

function targetName(target: unknown, names: ReadonlySet<string>, where: string): string {
  let name: string;
  if (typeof target === 'string') name = target;
  else if (typeof target === 'function') {
    const cls = (target as () => unknown)();
    const declaration = readDeclaration(cls);
    if (!declaration)
      throw new DeclarationError(
        `${where}: the relation target ${typeof cls === 'function' ? `class "${cls.name}"` : String(cls)} is not an @ApiResource class.`,
      );
    name = declaration.name;
  } else throw new DeclarationError(`${where}: the relation target must be a resource name or a class thunk.`);
  if (!names.has(name))
    throw new DeclarationError(`${where}: unknown relation target "${name}".${formatDidYouMean(name, names)}`);
  return name;
}

function buildToOne(
  name: string,
  field: ToOneDeclaration,
  resource: string,
  names: ReadonlySet<string>,
  where: string,
): ToOneFieldMetadata {
  const onDelete = field.onDelete ?? 'restrict';
  if (!['restrict', 'cascade', 'set null'].includes(onDelete)) {
    throw new DeclarationError(
      `${where}: onDelete must be "restrict", "cascade" or "set null".${formatDidYouMean(onDelete, ['restrict', 'cascade', 'set null'])}`,
    );
  }
  const nullable = field.nullable ?? false;
  if (field.currentUser !== undefined && field.currentUser !== 'always' && field.currentUser !== 'default') {
    throw new DeclarationError(`${where}: currentUser must be "always" or "default".`);
  }
  if (onDelete === 'set null' && !nullable)
    throw new DeclarationError(`${where}: onDelete "set null" needs nullable: true.`);
  if (field.blame !== undefined) assertBlameFits(field, nullable, where);
  return {
    ...common(name, field, resource),
    ...links(field),
    kind: 'toOne',
    target: targetName(field.toOne, names, where),
    inversedBy: field.inversedBy,
    nullable,
    onDelete,
    cascadePersist: field.cascadePersist ?? false,
    nestedWithoutOperation: field.nestedWithoutOperation ?? false,
    currentUser: field.currentUser,
    blame: field.blame,
    // Filled with the caller whatever the client sends: not writable by clients.
    ...(field.currentUser === 'always' || field.blame !== undefined ? { writable: false } : {}),
    column: field.column ?? `${toSnakeCase(name)}_id`,
  };
}

/** A blame relation holds the caller, or null for an anonymous write; only the framework writes it. */
function assertBlameFits(field: ToOneDeclaration, nullable: boolean, where: string): void {
  if (!STAMPS.includes(field.blame as string))
    throw new DeclarationError(
      `${where}: blame must be "create" or "update".${formatDidYouMean(String(field.blame), STAMPS)}`,
    );
  if (!nullable)
    throw new DeclarationError(
      `${where}: a blame relation is null after an anonymous write; declare it nullable: true.`,
    );
  if (field.currentUser !== undefined)
    throw new DeclarationError(
      `${where}: blame and currentUser both fill the relation with the caller; keep one (blame sets it on every write it stamps, currentUser on create).`,
    );
  for (const key of ['immutable', 'cascadePersist'] as const) {
    if (field[key] !== undefined)
      throw new DeclarationError(`${where}: a blame relation has no "${key}" (only the framework writes it).`);
  }
  if (field.writable === true)
    throw new DeclarationError(`${where}: a blame relation is set by the framework; it cannot be writable.`);
}

function buildToMany(
  name: string,
  field: ToManyDeclaration,
  declaration: ResourceDeclaration,
  names: ReadonlySet<string>,
  where: string,
): ToManyFieldMetadata {
  const owning = field.mappedBy === undefined;
  if (field.writableLink !== undefined)
    throw new DeclarationError(`${where}: writableLink is for to-one relations; a to-many takes IRIs.`);
  if (!owning && typeof field.mappedBy !== 'string')
    throw new DeclarationError(`${where}: "mappedBy" must be a field name.`);
  if (!owning && (field.writable === true || field.joinTable !== undefined || field.inversedBy !== undefined)) {
    throw new DeclarationError(
      `${where}: with "mappedBy" this is the inverse side, read-only; write its owning side "${field.mappedBy}" instead (joinTable and inversedBy belong there too).`,
    );
  }
  const subresource =
    field.subresource === undefined || field.subresource === false
      ? null
      : field.subresource === true
        ? { maxDepth: 1 }
        : { ...field.subresource, maxDepth: field.subresource.maxDepth ?? 1 };
  if (subresource && (!Number.isInteger(subresource.maxDepth) || subresource.maxDepth < 1)) {
    throw new DeclarationError(`${where}: subresource maxDepth must be a positive integer.`);
  }
  const table = declaration.table ?? toSnakeCase(declaration.name);
  const target = targetName(field.toMany, names, where);
  return {
    ...common(name, field, declaration.name),
    ...links(field),
    kind: 'toMany',
    writable: owning ? (field.writable ?? true) : false,
    nullable: false,
    target,
    mappedBy: field.mappedBy,
    inversedBy: field.inversedBy,
    // The owning side names its join table; the inverse side learns it from the owning side (link-relations pass).
    joinTable: owning
      ? {
          table: field.joinTable ?? `${table}_${toSnakeCase(name)}`,
          ownColumn: `${toSnakeCase(declaration.name)}_id`,
          // A relation to the same resource (friends) needs a second column name.
          targetColumn: target === declaration.name ? `${toSnakeCase(name)}_id` : `${toSnakeCase(target)}_id`,
        }
      : undefined,
    subresource,
  };
}
