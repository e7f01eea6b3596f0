/**
 * The checks of the value constraints (everything but Unique, Valid and Callback, which need the database, nesting
 * or user code): a value and a constraint in, the violations out. Null passes every check but NotNull and NotBlank,
 * as in Symfony.
 */
import type { Constraint } from '../metadata/constraints.js';
import { checkFile } from './check-file.js';
import { type Finding, formatMessage, type MessageDefinition, MESSAGES, printValue } from './messages.js';

export type { Finding } from './messages.js';

const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function finding(
  definition: MessageDefinition,
  constraint: Constraint,
  parameters: Record<string, unknown> = {},
): Finding {
  return { message: formatMessage(constraint.message ?? definition.message, parameters), code: definition.code };
}

const isBlank = (value: unknown) =>
  value === null ||
  value === undefined ||
  value === '' ||
  value === false ||
  (Array.isArray(value) && value.length === 0);

/** Numbers compare as numbers; dates (Date values, or ISO strings against a Date) as instants; strings as strings. */
function comparable(value: unknown, against: unknown): [number | string, number | string] | undefined {
  if (value instanceof Date) {
    const other =
      against instanceof Date ? against.getTime() : typeof against === 'string' ? Date.parse(against) : Number.NaN;
    return Number.isNaN(other) ? undefined : [value.getTime(), other];
  }
  if (typeof value === 'number' && typeof against === 'number') return [value, against];
  if (typeof value === 'string' && typeof against === 'string') return [value, against];
  return undefined;
}

const validDate = (value: string): boolean => {
  const match = DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return (
    date.getUTCFullYear() === Number(match[1]) &&
    date.getUTCMonth() === Number(match[2]) - 1 &&
    date.getUTCDate() === Number(match[3])
  );
};

function sizeCheck(
  size: number,
  constraint: { min?: number; max?: number; exactly?: number } & Constraint,
  forms: { short: MessageDefinition; long: MessageDefinition; exact: MessageDefinition },
): Finding[] {
  if (constraint.exactly !== undefined)
    return size === constraint.exactly ? [] : [finding(forms.exact, constraint, { limit: constraint.exactly })];
  if (constraint.min !== undefined && size < constraint.min)
    return [finding(forms.short, constraint, { limit: constraint.min })];
  if (constraint.max !== undefined && size > constraint.max)
    return [finding(forms.long, constraint, { limit: constraint.max })];
  return [];
}

const COMPARISONS = {
  LessThan: { message: MESSAGES.lessThan, holds: (a: number | string, b: number | string) => a < b },
  LessThanOrEqual: { message: MESSAGES.lessThanOrEqual, holds: (a: number | string, b: number | string) => a <= b },
  GreaterThan: { message: MESSAGES.greaterThan, holds: (a: number | string, b: number | string) => a > b },
  GreaterThanOrEqual: {
    message: MESSAGES.greaterThanOrEqual,
    holds: (a: number | string, b: number | string) => a >= b,
  },
  EqualTo: { message: MESSAGES.equalTo, holds: (a: number | string, b: number | string) => a === b },
  NotEqualTo: { message: MESSAGES.notEqualTo, holds: (a: number | string, b: number | string) => a !== b },
} as const;

const SIGNS = {
  Positive: { message: MESSAGES.positive, holds: (n: number) => n > 0 },
  PositiveOrZero: { message: MESSAGES.positiveOrZero, holds: (n: number) => n >= 0 },
  Negative: { message: MESSAGES.negative, holds: (n: number) => n < 0 },
  NegativeOrZero: { message: MESSAGES.negativeOrZero, holds: (n: number) => n <= 0 },
} as const;

export function checkConstraint(value: unknown, constraint: Constraint): Finding[] {
  switch (constraint.kind) {
    case 'NotBlank':
      if (constraint.allowNull && (value === null || value === undefined)) return [];
      return isBlank(value) ? [finding(MESSAGES.notBlank, constraint)] : [];
    case 'NotNull':
      return value === null || value === undefined ? [finding(MESSAGES.notNull, constraint)] : [];
    case 'Blank':
      return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0)
        ? []
        : [finding(MESSAGES.blank, constraint)];
    case 'IsNull':
      return value === null || value === undefined ? [] : [finding(MESSAGES.isNull, constraint)];
  }
  if (value === null || value === undefined) return [];
  // As in Symfony, format constraints leave the empty string to NotBlank.
  if (value === '' && ['Email', 'Url', 'Uuid', 'Regex', 'Date', 'DateTime'].includes(constraint.kind)) return [];
  switch (constraint.kind) {
    case 'Length':
      return typeof value === 'string'
        ? sizeCheck([...value].length, constraint, {
            short: MESSAGES.tooShort,
            long: MESSAGES.tooLong,
            exact: MESSAGES.exactLength,
          })
        : [];
    case 'Count':
      return Array.isArray(value)
        ? sizeCheck(value.length, constraint, {
            short: MESSAGES.tooFew,
            long: MESSAGES.tooMany,
            exact: MESSAGES.exactCount,
          })
        : [];
    case 'Range': {
      const low = constraint.min === undefined ? undefined : comparable(value, constraint.min);
      const high = constraint.max === undefined ? undefined : comparable(value, constraint.max);
      if ((constraint.min !== undefined && !low) || (constraint.max !== undefined && !high))
        return [finding(MESSAGES.invalidNumber, constraint)];
      const tooLow = low !== undefined && low[0] < low[1];
      const tooHigh = high !== undefined && high[0] > high[1];
      if (!tooLow && !tooHigh) return [];
      if (constraint.min !== undefined && constraint.max !== undefined)
        return [finding(MESSAGES.notInRange, constraint, { min: constraint.min, max: constraint.max })];
      return tooLow
        ? [finding(MESSAGES.tooLow, constraint, { limit: constraint.min })]
        : [finding(MESSAGES.tooHigh, constraint, { limit: constraint.max })];
    }
    case 'Positive':
    case 'PositiveOrZero':
    case 'Negative':
    case 'NegativeOrZero': {
      const sign = SIGNS[constraint.kind];
      return typeof value === 'number' && !sign.holds(value)
        ? [finding(sign.message, constraint, { compared_value: 0 })]
        : [];
    }
    case 'LessThan':
    case 'LessThanOrEqual':
    case 'GreaterThan':
    case 'GreaterThanOrEqual':
    case 'EqualTo':
    case 'NotEqualTo': {
      const comparison = COMPARISONS[constraint.kind];
      const pair = comparable(value, constraint.value);
      const holds = pair
        ? comparison.holds(pair[0], pair[1])
        : constraint.kind === 'NotEqualTo'
          ? value !== constraint.value
          : constraint.kind === 'EqualTo'
            ? value === constraint.value
            : true;
      return holds ? [] : [finding(comparison.message, constraint, { compared_value: printValue(constraint.value) })];
    }
    case 'Choice': {
      if (!constraint.multiple)
        return constraint.choices.includes(value as never) ? [] : [finding(MESSAGES.noSuchChoice, constraint)];
      if (!Array.isArray(value) || value.some((v) => !constraint.choices.includes(v)))
        return [finding(MESSAGES.noSuchChoices, constraint)];
      if (constraint.min !== undefined && value.length < constraint.min)
        return [finding(MESSAGES.tooFewChoices, constraint, { limit: constraint.min })];
      if (constraint.max !== undefined && value.length > constraint.max)
        return [finding(MESSAGES.tooManyChoices, constraint, { limit: constraint.max })];
      return [];
    }
    case 'Email':
      return typeof value === 'string' && !EMAIL.test(value) ? [finding(MESSAGES.email, constraint)] : [];
    case 'Url': {
      if (typeof value !== 'string') return [];
      const protocols = constraint.protocols ?? ['http', 'https'];
      let ok = false;
      try {
        const url = new URL(value);
        ok = protocols.includes(url.protocol.slice(0, -1)) && url.hostname !== '' && !/\s/.test(value);
      } catch {
        ok = false;
      }
      return ok ? [] : [finding(MESSAGES.url, constraint)];
    }
    case 'Uuid':
      return typeof value === 'string' && !UUID.test(value) ? [finding(MESSAGES.uuid, constraint)] : [];
    case 'Regex': {
      if (typeof value !== 'string') return [];
      const matches = new RegExp(constraint.pattern, constraint.flags).test(value);
      return matches === (constraint.match ?? true) ? [] : [finding(MESSAGES.regex, constraint)];
    }
    case 'Date':
      return typeof value === 'string' && !validDate(value) ? [finding(MESSAGES.date, constraint)] : [];
    case 'File':
    case 'Image':
      return checkFile(value, constraint);
    case 'DateTime':
      return typeof value === 'string' &&
        !(DATE_TIME.test(value) && validDate(value.slice(0, 10)) && !Number.isNaN(Date.parse(value)))
        ? [finding(MESSAGES.dateTime, constraint)]
        : [];
    default:
      return [];
  }
}
