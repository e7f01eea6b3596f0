/**
 * The source file of a new resource, in either declaration form: a decorated class or a `defineResource` object. Both
 * give the same metadata (docs/declaring-resources.md); relation targets are named by string, so the file compiles
 * and loads whether or not the target exists yet.
 */
import type { FieldSpec } from './field-spec.js';

export type Style = 'decorator' | 'object';
export const STYLES: readonly Style[] = ['decorator', 'object'];

/** The field's declaration as object-literal source: `{ type: 'string', nullable: true }`. */
function declaration(field: FieldSpec): string {
  const entries: [string, string | boolean][] =
    field.type === 'toOne' || field.type === 'toMany'
      ? [
          [field.type, field.target],
          ...(field.type === 'toMany' && field.mappedBy ? [['mappedBy', field.mappedBy] as [string, string]] : []),
          ...(field.inversedBy ? [['inversedBy', field.inversedBy] as [string, string]] : []),
        ]
      : [['type', field.type], ...(field.nullable ? [['nullable', true] as [string, boolean]] : [])];
  return `{ ${entries.map(([key, value]) => `${key}: ${typeof value === 'string' ? `'${value}'` : String(value)}`).join(', ')} }`;
}

/** The TypeScript type of the class property (decorator form). */
function propertyType(field: FieldSpec): string {
  if (field.type === 'toOne') return 'unknown';
  if (field.type === 'toMany') return 'unknown[]';
  const base =
    { integer: 'number', float: 'number', boolean: 'boolean', json: 'unknown', 'string[]': 'string[]' }[
      field.type as string
    ] ?? 'string';
  return field.nullable && base !== 'unknown' ? `${base} | null` : base;
}

const header = (name: string, form: string) => `/**
 * ${name}, declared with ${form}.
 * Written by \`resource-api make:resource\`: add descriptions, constraints, filters, groups and access rules as you
 * need them (docs/declaring-resources.md).
 */
`;

export function renderResource(name: string, fields: readonly FieldSpec[], style: Style): string {
  if (style === 'object') {
    const body = fields.map((field) => `    ${field.name}: ${declaration(field)},\n`).join('');
    return `${header(name, 'a plain object (`defineResource`)')}import { defineResource } from '@resource-api/core';

export const ${name} = defineResource({
  name: '${name}',
  fields: {${body ? `\n${body}  ` : ''}},
});
`;
  }
  const body = fields
    .map((field) => `  @ApiProperty(${declaration(field)})\n  ${field.name}!: ${propertyType(field)};\n`)
    .join('\n');
  return `${header(name, 'decorators (`@ApiResource` / `@ApiProperty`)')}import { ${fields.length > 0 ? 'ApiProperty, ' : ''}ApiResource } from '@resource-api/core';

@ApiResource()
export class ${name} {${body ? `\n${body}` : ''}}
`;
}

/** `BookReview` → `book-review`. */
export const fileNameOf = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
