/**
 * The soak's ledger (soak/ledger.ts) is what decides "no acknowledged write was lost": these tests show it catches a
 * lost or altered write and a row nobody wrote, and allows what a 503 left undecided.
 */
import { describe, expect, it } from 'vitest';
import { Ledger } from '../soak/ledger.js';

function ledger(): Ledger {
  const book = new Ledger();
  book.ackAuthor(1, 'author one');
  book.ackBook(10, 'first', 1);
  book.ackBook(11, 'second', 1);
  book.ackPatch(11, 'second, renamed');
  return book;
}
const authors = [{ id: 1, name: 'author one' }];

describe('the soak ledger', () => {
  it('passes a database holding every acknowledged write with its last acknowledged values', () => {
    const result = ledger().verify({
      books: [
        { id: 10, title: 'first', author_id: 1 },
        { id: 11, title: 'second, renamed', author_id: 1 },
      ],
      authors,
    });
    expect(result).toMatchObject({
      ackedBooks: 2,
      ackedAuthors: 1,
      ackedPatches: 1,
      lost: [],
      phantoms: [],
      committedDespite503: 0,
    });
  });

  it('reports a missing row, an overwritten acknowledged PATCH and a changed author as lost', () => {
    const result = ledger().verify({ books: [{ id: 11, title: 'second', author_id: 2 }], authors: [] });
    expect(result.lost).toEqual([
      'book 10 ("first") is missing',
      'book 11 has title "second", acknowledged "second, renamed"',
      'author 1 ("author one") is missing',
    ]);
  });

  it('allows the title of a PATCH answered 503 after the last acknowledged one, and counts it as committed anyway', () => {
    const book = ledger();
    book.unknownPatch(10, 'maybe');
    expect(book.allowedTitles(10)).toEqual(['first', 'maybe']);
    const result = book.verify({
      books: [
        { id: 10, title: 'maybe', author_id: 1 },
        { id: 11, title: 'second, renamed', author_id: 1 },
      ],
      authors,
    });
    expect(result).toMatchObject({ lost: [], committedDespite503: 1, unknownOutcome: 1 });
    // An acknowledged PATCH after it settles the title again.
    book.ackPatch(10, 'settled');
    expect(book.allowedTitles(10)).toEqual(['settled']);
  });

  it('reports a row that no request wrote as a phantom, and a POST answered 503 that committed as allowed', () => {
    const book = ledger();
    book.unknownCreate('posted during the outage');
    const result = book.verify({
      books: [
        { id: 10, title: 'first', author_id: 1 },
        { id: 11, title: 'second, renamed', author_id: 1 },
        { id: 12, title: 'posted during the outage', author_id: 1 },
        { id: 13, title: 'nobody wrote this', author_id: 1 },
      ],
      authors,
    });
    expect(result.phantoms).toEqual(['book 13 ("nobody wrote this")']);
    expect(result.committedDespite503).toBe(1);
  });
});
