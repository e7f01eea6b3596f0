/**
 * docs/errors.md and the error catalog agree: one row per code of `ERRORS`, with its status and its title word for
 * word, a "when" and a typical detail; no row for a code the catalog lacks; and the start-up errors' codes named.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DeclarationError, ERRORS, SchemaNotMigratedError } from '@resource-api/core';

const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');

/** The cells of each row of the codes table (`| \`API_ERR_…\` | … |`), with `\|` read as a literal bar. */
const rows = new Map(
  doc
    .split('\n')
    .filter((line) => /^\| `API_ERR_[A-Z_]+` \|/.test(line))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|'));
      return [cells[0]!.replace(/`/g, ''), cells.slice(1)] as const;
    }),
);

describe('the error catalog and docs/errors.md', () => {
  it('documents every code of the catalog with its status, its title, when it happens and a typical detail', () => {
    for (const { code, status, title } of Object.values(ERRORS)) {
      const cells = rows.get(code);
      expect(cells, `${code} has no row in docs/errors.md`).toBeDefined();
      const [documentedStatus, documentedTitle, when, detail] = cells!;
      expect([code, Number(documentedStatus), documentedTitle]).toEqual([code, status, title]);
      expect(when, `${code}: when`).toMatch(/\w/);
      expect(detail, `${code}: typical detail`).toMatch(/\w/);
    }
  });

  it('documents no code the catalog does not have', () => {
    const codes = new Set(Object.values(ERRORS).map((e) => e.code));
    for (const code of rows.keys()) expect(codes.has(code), code).toBe(true);
  });

  it('names the codes of the start-up errors', () => {
    for (const code of [new DeclarationError('x').code, new SchemaNotMigratedError('x').code])
      expect(doc).toContain(`\`${code}\``);
  });
});
