import { describe, expect, it } from 'vitest';
import { compileTopicSelector, isEachSelected, isAnySelected } from './topic-selector.js';

const matches = (selector: string, topic: string) => compileTopicSelector(selector)(topic);

describe('topic selectors', () => {
  it('match every topic with *, and a plain string exactly', () => {
    expect(matches('*', 'https://example.com/books/1')).toBe(true);
    expect(matches('https://example.com/books/1', 'https://example.com/books/1')).toBe(true);
    expect(matches('https://example.com/books/1', 'https://example.com/books/10')).toBe(false);
    expect(matches('https://example.com/books/1', 'HTTPS://example.com/books/1')).toBe(false);
  });

  it('match URI templates as RFC 6570 expands them', () => {
    expect(matches('https://example.com/books/{id}', 'https://example.com/books/1')).toBe(true);
    expect(matches('https://example.com/books/{id}', 'https://example.com/books/a-b_c.d~e%20')).toBe(true);
    // A simple expression stays in one segment; reserved expansion crosses them.
    expect(matches('https://example.com/books/{id}', 'https://example.com/books/1/reviews')).toBe(false);
    expect(matches('https://example.com/{+path}', 'https://example.com/books/1/reviews')).toBe(true);
    expect(matches('https://example.com/books{/id}', 'https://example.com/books')).toBe(true);
    expect(matches('https://example.com/books{/id}', 'https://example.com/books/7')).toBe(true);
    expect(matches('https://example.com/books{?page}', 'https://example.com/books?page=2')).toBe(true);
    expect(matches('https://example.com/{type}/{id}', 'https://example.com/authors/3')).toBe(true);
    expect(matches('https://example.com/books/{id}', 'https://example.org/books/1')).toBe(false);
    // A dot in the literal part is a dot, not "any character".
    expect(matches('https://a.b/{id}', 'https://aXb/1')).toBe(false);
  });

  it('compare a malformed template exactly', () => {
    expect(matches('https://example.com/{id', 'https://example.com/{id')).toBe(true);
    expect(matches('https://example.com/{id', 'https://example.com/1')).toBe(false);
    expect(matches('https://example.com/{!x}', 'https://example.com/1')).toBe(false);
  });

  it('take linear time on a template made to make a backtracking matcher explode', () => {
    const template = `https://example.com/${'{+a}/'.repeat(40)}x`;
    const topic = `https://example.com/${'/'.repeat(5000)}y`;
    const started = performance.now();
    expect(matches(template, topic)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('tell whether some selector matches some topic, and whether each topic is matched', () => {
    const selectors = ['https://example.com/books/{id}', 'https://example.com/me'].map(compileTopicSelector);
    expect(isAnySelected(selectors, ['https://example.com/authors/1', 'https://example.com/me'])).toBe(true);
    expect(isAnySelected(selectors, ['https://example.com/authors/1'])).toBe(false);
    expect(isEachSelected(selectors, ['https://example.com/books/1', 'https://example.com/me'])).toBe(true);
    expect(isEachSelected(selectors, ['https://example.com/books/1', 'https://example.com/authors/1'])).toBe(false);
  });
});
