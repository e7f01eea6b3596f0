import { describe, expect, it } from 'vitest';
import { computeEntityTag, ifMatchHolds, ifNoneMatchMatches, parseEntityTags } from './entity-tag.js';

describe('entity tags', () => {
  it('hashes the bytes into a strong, quoted tag that changes with any byte', () => {
    const tag = computeEntityTag('{"title":"Dune"}');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(computeEntityTag('{"title":"Dune"}')).toBe(tag);
    expect(computeEntityTag('{"title":"Dune" }')).not.toBe(tag);
    expect(computeEntityTag('{"title":"Düne"}')).not.toBe(computeEntityTag('{"title":"Dune"}'));
  });

  it('parses *, lists, weak tags, and skips what is not a tag', () => {
    expect(parseEntityTags(' * ')).toBe('*');
    expect(parseEntityTags('"a", W/"b",  "c"')).toEqual([
      { opaque: '"a"', weak: false },
      { opaque: '"b"', weak: true },
      { opaque: '"c"', weak: false },
    ]);
    expect(parseEntityTags('')).toEqual([]);
    expect(parseEntityTags('abc, "unterminated')).toEqual([]);
    expect(parseEntityTags('"", *')).toEqual([{ opaque: '""', weak: false }]);
  });

  it('If-Match compares strongly: a weak tag never matches', () => {
    expect(ifMatchHolds('"a"', ['"a"'])).toBe(true);
    expect(ifMatchHolds('"x", "a"', ['"b"', '"a"'])).toBe(true);
    expect(ifMatchHolds('W/"a"', ['"a"'])).toBe(false);
    expect(ifMatchHolds('"b"', ['"a"'])).toBe(false);
    expect(ifMatchHolds('a', ['"a"'])).toBe(false);
    expect(ifMatchHolds('*', [])).toBe(true);
  });

  it('If-None-Match compares weakly', () => {
    expect(ifNoneMatchMatches('W/"a"', ['"a"'])).toBe(true);
    expect(ifNoneMatchMatches('"a"', ['W/"a"'])).toBe(true);
    expect(ifNoneMatchMatches('"x",W/"a"', ['"a"'])).toBe(true);
    expect(ifNoneMatchMatches('*', ['"a"'])).toBe(true);
    expect(ifNoneMatchMatches('"b"', ['"a"'])).toBe(false);
    expect(ifNoneMatchMatches('', ['"a"'])).toBe(false);
  });
});
