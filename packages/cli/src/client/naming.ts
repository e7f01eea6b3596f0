/**
 * Names in the generated code: TypeScript identifiers from resource names, serialization groups and relation fields,
 * property keys quoted only when they must be, and one registry of type names so that two shapes never share one.
 */

/** `product:read` → `ProductRead`, `book_reviews` → `BookReviews`: every run of letters and digits, capitalized. */
export function pascalCase(text: string): string {
  return (text.match(/[A-Za-z0-9]+/g) ?? []).map((part) => part[0]!.toUpperCase() + part.slice(1)).join('');
}

/** `book_reviews` → `bookReviews`; a name starting with a digit gets a leading underscore. */
export function camelCase(text: string): string {
  const pascal = pascalCase(text);
  const camel = pascal.charAt(0).toLowerCase() + pascal.slice(1);
  return /^[0-9]/.test(camel) ? `_${camel}` : camel;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A property key as written in a type or an object literal: bare when it is an identifier, quoted otherwise (`'@id'`).
 */
export const propertyKey = (name: string): string =>
  IDENTIFIER.test(name) ? name : `'${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** A string literal in the generated code. */
export const literal = (value: string): string =>
  `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;

/** A JSDoc block from a description (nothing when there is none), indented like the line it documents. */
export function docComment(text: string | undefined, indent = ''): string {
  if (!text) return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

/**
 * The type names in use. `claim` gives a wanted name, or the name followed by 2, 3… when it is taken (only when two
 * resources and their groups spell the same name, which a clear naming of groups avoids).
 */
export class TypeNames {
  private readonly taken = new Set<string>();

  constructor(reserved: readonly string[]) {
    for (const name of reserved) this.taken.add(name);
  }

  has(name: string): boolean {
    return this.taken.has(name);
  }

  claim(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.taken.has(name); n++) name = `${wanted}${n}`;
    this.taken.add(name);
    return name;
  }
}
