/**
 * Every write the clients sent and what the app answered: a 201 or 200 is an acknowledged write, which must be in the
 * database with its values at the end; a 503 is a write of unknown outcome (the statement may have committed just
 * before the connection broke), allowed to be there or not. Each client writes only its own books, one request at a
 * time, so the last acknowledged title of a book is the one it must have, unless a later unknown-outcome PATCH
 * replaced it. The same rule checks what a client reads back of its own books.
 */

interface BookEntry {
  readonly id: number;
  readonly authorId: number;
  acked: string;
  /** Titles of PATCHes answered 503 since the last acknowledged one. */
  unknown: string[];
}

export interface Verification {
  readonly ackedBooks: number;
  readonly ackedAuthors: number;
  readonly ackedPatches: number;
  /** Acknowledged writes missing or with other values: must be none. */
  readonly lost: string[];
  /** Rows no request wrote: must be none. */
  readonly phantoms: string[];
  /** Writes answered 503 that the database holds anyway (allowed, reported). */
  readonly committedDespite503: number;
  readonly unknownOutcome: number;
}

export class Ledger {
  private readonly books = new Map<number, BookEntry>();
  private readonly authors = new Map<number, string>();
  private readonly unknownCreates = new Set<string>();
  private unknownPatches = 0;
  private patches = 0;

  ackAuthor(id: number, name: string): void {
    this.authors.set(id, name);
  }
  ackBook(id: number, title: string, authorId: number): void {
    this.books.set(id, { id, authorId, acked: title, unknown: [] });
  }
  ackPatch(id: number, title: string): void {
    const entry = this.books.get(id)!;
    entry.acked = title;
    entry.unknown = [];
    this.patches++;
  }
  /** A POST answered 503: the title (or name) may or may not be in the database. */
  unknownCreate(text: string): void {
    this.unknownCreates.add(text);
  }
  unknownPatch(id: number, title: string): void {
    this.books.get(id)!.unknown.push(title);
    this.unknownPatches++;
  }
  get bookCount(): number {
    return this.books.size;
  }
  /** The titles a book may have now. */
  allowedTitles(id: number): readonly string[] {
    const entry = this.books.get(id)!;
    return [entry.acked, ...entry.unknown];
  }

  /** Compares the ledger with the rows of the `book` and `author` tables. */
  verify(rows: {
    books: ReadonlyArray<{ id: number; title: string; author_id: number }>;
    authors: ReadonlyArray<{ id: number; name: string }>;
  }): Verification {
    const lost: string[] = [];
    const phantoms: string[] = [];
    let committedDespite503 = 0;
    const bookRows = new Map(rows.books.map((row) => [Number(row.id), row]));
    const authorRows = new Map(rows.authors.map((row) => [Number(row.id), row]));
    for (const [id, entry] of this.books) {
      const row = bookRows.get(id);
      if (!row) lost.push(`book ${id} ("${entry.acked}") is missing`);
      else if (!this.allowedTitles(id).includes(row.title))
        lost.push(`book ${id} has title "${row.title}", acknowledged "${entry.acked}"`);
      else if (Number(row.author_id) !== entry.authorId)
        lost.push(`book ${id} has author ${row.author_id}, acknowledged ${entry.authorId}`);
      if (row && row.title !== entry.acked) committedDespite503++;
    }
    for (const [id, name] of this.authors) {
      const row = authorRows.get(id);
      if (!row || row.name !== name) lost.push(`author ${id} ("${name}") is ${row ? `"${row.name}"` : 'missing'}`);
    }
    for (const [id, row] of bookRows) {
      if (this.books.has(id)) continue;
      if (this.unknownCreates.has(row.title)) committedDespite503++;
      else phantoms.push(`book ${id} ("${row.title}")`);
    }
    for (const [id, row] of authorRows) {
      if (this.authors.has(id)) continue;
      if (this.unknownCreates.has(row.name)) committedDespite503++;
      else phantoms.push(`author ${id} ("${row.name}")`);
    }
    return {
      ackedBooks: this.books.size,
      ackedAuthors: this.authors.size,
      ackedPatches: this.patches,
      lost,
      phantoms,
      committedDespite503,
      unknownOutcome: this.unknownCreates.size + this.unknownPatches,
    };
  }
}
