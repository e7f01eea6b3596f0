/**
 * Writes one SQL statement as text and its bound values, a `?` for each (the statement runner turns them into the
 * database's own placeholders): the order of the values is the order they are written in, by construction.
 * Identifiers are quoted (`"t0"."title"`: both databases read double quotes).
 */
import { BoundedMemo } from '../../bounded-memo.js';

export const quote = (identifier: string): string => {
  // A page's statement is written per request when it is filtered: its few identifiers are quoted once.
  return quotedIdentifiers.get(identifier) ?? quotedIdentifiers.keep(identifier, quoteParts(identifier));
};

const quoteParts = (identifier: string): string =>
  identifier
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');

const quotedIdentifiers = new BoundedMemo<string, string>(1024);

export class SqlWriter {
  private text = '';
  readonly bindings: unknown[] = [];

  /** SQL text as it is. */
  sql(text: string): this {
    this.text += text;
    return this;
  }

  /** A quoted identifier: a column (`t0.title`), a table or an alias. */
  id(identifier: string): this {
    this.text += quote(identifier);
    return this;
  }

  /** A bound value. */
  value(value: unknown): this {
    this.bindings.push(value);
    this.text += '?';
    return this;
  }

  /**
   * SQL in knex's raw notation, as the dialects write their fragments: `??` is an identifier, `?` a value, each taken
   * from `bindings` in order.
   */
  raw(sql: string, bindings: readonly unknown[]): this {
    let next = 0;
    const parts = sql.split(/(\?\??)/);
    for (const part of parts) {
      if (part === '??') this.id(String(bindings[next++]));
      else if (part === '?') this.value(bindings[next++]);
      else this.text += part;
    }
    if (next !== bindings.length) throw new Error(`SQL "${sql}" takes ${next} values, ${bindings.length} given.`);
    return this;
  }

  /** Where the text stands: a part written since can be told apart (`since`). */
  get length(): number {
    return this.text.length;
  }

  toString(): string {
    return this.text;
  }
}
