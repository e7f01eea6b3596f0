import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toLiteral, toMigrationName, writeMigrationFile } from './write-migration.js';

describe('toLiteral', () => {
  it('prints strings in single quotes, escaping quotes, backslashes and line breaks', () => {
    expect(toLiteral("it's")).toBe("'it\\'s'");
    expect(toLiteral('a\\b')).toBe("'a\\\\b'");
    expect(toLiteral('say "hi"\n')).toBe('\'say "hi"\\n\'');
  });

  it('prints arrays, plain objects, numbers, booleans and null as JavaScript', () => {
    expect(toLiteral(['a', 1, true, null])).toBe("['a', 1, true, null]");
    expect(toLiteral({ indexName: 'x', useConstraint: false, 'odd-key': 1 })).toBe(
      "{ indexName: 'x', useConstraint: false, 'odd-key': 1 }",
    );
  });
});

describe('migration file names', () => {
  let folder = '';
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('makes a name of letters, digits and underscores', () => {
    expect(toMigrationName('Add book: publisher!')).toBe('add_book_publisher');
    expect(toMigrationName('---')).toBe('schema');
  });

  it('gives a file written in the same second (or with a clock behind) a prefix after every existing one', async () => {
    folder = mkdtempSync(join(tmpdir(), 'write-migration-'));
    const now = new Date('2024-05-01T10:00:00Z');
    const first = await writeMigrationFile({ directory: folder, name: 'one', source: '', now });
    const second = await writeMigrationFile({ directory: folder, name: 'two', source: '', now });
    const third = await writeMigrationFile({
      directory: folder,
      name: 'three',
      source: '',
      now: new Date('2020-01-01T00:00:00Z'),
    });
    expect([first, second, third].map((p) => p.slice(folder.length + 1))).toEqual([
      '20240501100000_one.mjs',
      '20240501100001_two.mjs',
      '20240501100002_three.mjs',
    ]);
    expect(readdirSync(folder).sort()).toEqual([
      '20240501100000_one.mjs',
      '20240501100001_two.mjs',
      '20240501100002_three.mjs',
    ]);
  });
});
