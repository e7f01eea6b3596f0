/**
 * A field of `make:resource`, from the command line (`--field title:string`, `author:toOne:Author:inversedBy=books`)
 * or from the answers to its questions; checked here, once, for both.
 */
import { didYouMean } from '../did-you-mean.js';
import type { ScalarType } from '@resource-api/core';

export const SCALAR_TYPES = [
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
] as const satisfies readonly ScalarType[];
export const FIELD_TYPES = [...SCALAR_TYPES, 'toOne', 'toMany'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export type FieldSpec =
  | { readonly name: string; readonly type: ScalarType; readonly nullable: boolean }
  | { readonly name: string; readonly type: 'toOne'; readonly target: string; readonly inversedBy?: string }
  | {
      readonly name: string;
      readonly type: 'toMany';
      readonly target: string;
      readonly mappedBy?: string;
      readonly inversedBy?: string;
    };

const RESOURCE_NAME = /^[A-Z][A-Za-z0-9]*$/;
const FIELD_NAME = /^[a-z][A-Za-z0-9]*$/;

/** Why `name` is no resource name, or undefined when it is one. */
export const resourceNameProblem = (name: string): string | undefined =>
  RESOURCE_NAME.test(name)
    ? undefined
    : `"${name}" is not a resource name: use PascalCase letters and digits (BookReview).`;

/** Why `name` is no field name, or undefined when it is one. */
export function fieldNameProblem(name: string): string | undefined {
  if (!FIELD_NAME.test(name)) return `"${name}" is not a field name: use camelCase letters and digits (publishedAt).`;
  if (name === 'id') return 'The identifier "id" is there already.';
  return undefined;
}

/** Why `type` is no field type, or undefined. */
export const fieldTypeProblem = (type: string): string | undefined =>
  (FIELD_TYPES as readonly string[]).includes(type)
    ? undefined
    : `Unknown field type "${type}".${didYouMean(type, FIELD_TYPES)} Types: ${FIELD_TYPES.join(', ')}.`;

/** Parses `name:type[:Target][:nullable][:mappedBy=field][:inversedBy=field]`; throws an Error saying what is wrong. */
export function parseFieldSpec(text: string): FieldSpec {
  const [name = '', type = 'string', ...rest] = text.split(':');
  const problem = fieldNameProblem(name) ?? fieldTypeProblem(type);
  if (problem) throw new Error(`--field ${text}: ${problem}`);
  const settings = new Map(
    rest.filter((part) => part.includes('=')).map((part) => part.split('=', 2) as [string, string]),
  );
  const flags = rest.filter((part) => !part.includes('='));
  const unknownSetting = [...settings.keys()].find((key) => key !== 'mappedBy' && key !== 'inversedBy');
  if (unknownSetting) throw new Error(`--field ${text}: unknown setting "${unknownSetting}" (mappedBy=, inversedBy=).`);
  if (type === 'toOne' || type === 'toMany') {
    const [target, ...others] = flags;
    if (!target || resourceNameProblem(target))
      throw new Error(`--field ${text}: a ${type} field names its target resource: ${name}:${type}:Author.`);
    if (others.length > 0) throw new Error(`--field ${text}: unexpected "${others.join(':')}".`);
    if (type === 'toOne' && settings.has('mappedBy'))
      throw new Error(`--field ${text}: mappedBy belongs on the to-many side.`);
    return {
      name,
      type,
      target,
      ...(settings.has('mappedBy') ? { mappedBy: settings.get('mappedBy')! } : {}),
      ...(settings.has('inversedBy') ? { inversedBy: settings.get('inversedBy')! } : {}),
    };
  }
  const unexpected = flags.filter((flag) => flag !== 'nullable');
  if (unexpected.length > 0 || settings.size > 0)
    throw new Error(`--field ${text}: a ${type} field takes only ":nullable".`);
  return { name, type: type as ScalarType, nullable: flags.includes('nullable') };
}
