/** Every constraint with its Symfony message, unit by unit (no database needed for value checks). */
import { describe, expect, it } from 'vitest';
import {
  Blank,
  Choice,
  Count,
  DateString,
  DateTimeString,
  Email,
  EqualTo,
  GreaterThan,
  GreaterThanOrEqual,
  IsNull,
  Length,
  LessThan,
  LessThanOrEqual,
  Negative,
  NegativeOrZero,
  NotBlank,
  NotEqualTo,
  NotNull,
  Positive,
  PositiveOrZero,
  Range,
  Regex,
  Url,
  Uuid,
} from '@resource-api/core';
import { checkConstraint } from '../../src/validation/check-constraint.js';

const messages = (value: unknown, constraint: Parameters<typeof checkConstraint>[1]) =>
  checkConstraint(value, constraint).map((f) => f.message);

describe('constraint messages', () => {
  it('NotBlank, NotNull, Blank, IsNull', () => {
    for (const blank of [null, undefined, '', [], false])
      expect(messages(blank, NotBlank())).toEqual(['This value should not be blank.']);
    expect(messages('x', NotBlank())).toEqual([]);
    expect(messages(0, NotBlank())).toEqual([]);
    expect(messages(null, NotBlank({ allowNull: true }))).toEqual([]);
    expect(messages(null, NotNull())).toEqual(['This value should not be null.']);
    expect(messages('', NotNull())).toEqual([]);
    expect(messages('x', Blank())).toEqual(['This value should be blank.']);
    expect(messages('', Blank())).toEqual([]);
    expect(messages('x', IsNull())).toEqual(['This value should be null.']);
    expect(messages(null, IsNull())).toEqual([]);
  });

  it('Length with singular and plural forms, counting characters not bytes', () => {
    expect(messages('ab', Length({ min: 3 }))).toEqual([
      'This value is too short. It should have 3 characters or more.',
    ]);
    expect(messages('', Length({ min: 1 }))).toEqual(['This value is too short. It should have 1 character or more.']);
    expect(messages('abcdef', Length({ max: 5 }))).toEqual([
      'This value is too long. It should have 5 characters or less.',
    ]);
    expect(messages('ab', Length({ max: 1 }))).toEqual(['This value is too long. It should have 1 character or less.']);
    expect(messages('abcd', Length({ exactly: 5 }))).toEqual(['This value should have exactly 5 characters.']);
    expect(messages('ab', Length({ exactly: 1 }))).toEqual(['This value should have exactly 1 character.']);
    expect(messages('😀😀😀', Length({ min: 3, max: 3 }))).toEqual([]);
    expect(messages(null, Length({ min: 3 }))).toEqual([]);
    expect(messages('ab', Length({ min: 3, message: 'Too short: {{ limit }}!' }))).toEqual(['Too short: 3!']);
  });

  it('Count', () => {
    expect(messages([], Count({ min: 1 }))).toEqual(['This collection should contain 1 element or more.']);
    expect(messages([1, 2, 3], Count({ max: 2 }))).toEqual(['This collection should contain 2 elements or less.']);
    expect(messages([1], Count({ exactly: 2 }))).toEqual(['This collection should contain exactly 2 elements.']);
    expect(messages([1, 2], Count({ min: 1, max: 2 }))).toEqual([]);
  });

  it('Range, on numbers and dates', () => {
    expect(messages(7, Range({ min: 1, max: 5 }))).toEqual(['This value should be between 1 and 5.']);
    expect(messages(0, Range({ min: 1 }))).toEqual(['This value should be 1 or more.']);
    expect(messages(6, Range({ max: 5 }))).toEqual(['This value should be 5 or less.']);
    expect(messages(3, Range({ min: 1, max: 5 }))).toEqual([]);
    expect(
      messages(new Date('2020-01-01T00:00:00Z'), Range({ min: '2021-01-01T00:00:00Z', max: '2022-01-01T00:00:00Z' })),
    ).toEqual(['This value should be between 2021-01-01T00:00:00Z and 2022-01-01T00:00:00Z.']);
    expect(messages('abc', Range({ min: 1 }))).toEqual(['This value should be a valid number.']);
  });

  it('signs and comparisons', () => {
    expect(messages(0, Positive())).toEqual(['This value should be positive.']);
    expect(messages(-1, PositiveOrZero())).toEqual(['This value should be either positive or zero.']);
    expect(messages(0, PositiveOrZero())).toEqual([]);
    expect(messages(0, Negative())).toEqual(['This value should be negative.']);
    expect(messages(1, NegativeOrZero())).toEqual(['This value should be either negative or zero.']);
    expect(messages(10, LessThan({ value: 10 }))).toEqual(['This value should be less than 10.']);
    expect(messages(11, LessThanOrEqual({ value: 10 }))).toEqual(['This value should be less than or equal to 10.']);
    expect(messages(5, GreaterThan({ value: 5 }))).toEqual(['This value should be greater than 5.']);
    expect(messages(4, GreaterThanOrEqual({ value: 5 }))).toEqual(['This value should be greater than or equal to 5.']);
    expect(messages('b', EqualTo({ value: 'a' }))).toEqual(['This value should be equal to "a".']);
    expect(messages('a', NotEqualTo({ value: 'a' }))).toEqual(['This value should not be equal to "a".']);
    expect(messages(new Date('2030-01-01T00:00:00Z'), LessThan({ value: '2025-01-01T00:00:00Z' }))).toEqual([
      'This value should be less than "2025-01-01T00:00:00Z".',
    ]);
  });

  it('Choice, single and multiple', () => {
    expect(messages('purple', Choice({ choices: ['red', 'green'] }))).toEqual([
      'The value you selected is not a valid choice.',
    ]);
    expect(messages('red', Choice({ choices: ['red', 'green'] }))).toEqual([]);
    expect(messages(['red', 'blue'], Choice({ choices: ['red', 'green'], multiple: true }))).toEqual([
      'One or more of the given values is invalid.',
    ]);
    expect(messages(['red'], Choice({ choices: ['red', 'green'], multiple: true, min: 2 }))).toEqual([
      'You must select at least 2 choices.',
    ]);
    expect(messages(['red', 'green'], Choice({ choices: ['red', 'green'], multiple: true, max: 1 }))).toEqual([
      'You must select at most 1 choice.',
    ]);
  });

  it('formats: Email, Url, Uuid, Regex, Date, DateTime', () => {
    expect(messages('not-an-email', Email())).toEqual(['This value is not a valid email address.']);
    expect(messages('ann@example.com', Email())).toEqual([]);
    expect(messages('ann@localhost', Email())).toEqual(['This value is not a valid email address.']);
    expect(messages('ftp://example.com', Url())).toEqual(['This value is not a valid URL.']);
    expect(messages('https://example.com/a?b', Url())).toEqual([]);
    expect(messages('ftp://example.com', Url({ protocols: ['ftp'] }))).toEqual([]);
    expect(messages('123', Uuid())).toEqual(['This is not a valid UUID.']);
    expect(messages('9b2d1f5e-6c3a-4b8e-9f0a-1c2d3e4f5a6b', Uuid())).toEqual([]);
    expect(messages('abc', Regex({ pattern: '^\\d+$' }))).toEqual(['This value is not valid.']);
    expect(messages('123', Regex({ pattern: '^\\d+$', match: false }))).toEqual(['This value is not valid.']);
    expect(messages('2021-02-30', DateString())).toEqual(['This value is not a valid date.']);
    expect(messages('2024-02-29', DateString())).toEqual([]);
    expect(messages('2024-02-29 10:00', DateTimeString())).toEqual(['This value is not a valid datetime.']);
    expect(messages('2024-02-29T10:00:00+01:00', DateTimeString())).toEqual([]);
  });
});
