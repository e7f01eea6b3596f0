/** docs/errors.md and the error catalog list the same codes with the same statuses. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '@resource-api/core';

const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Map([...doc.matchAll(/^\| `(API_ERR_[A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));

describe('the error catalog and docs/errors.md', () => {
  it('documents every code of the catalog with its status', () => {
    for (const { code, status } of Object.values(ERRORS)) expect(documented.get(code), code).toBe(status);
  });

  it('documents no code the catalog does not have', () => {
    const codes = new Set(Object.values(ERRORS).map((e) => e.code));
    for (const code of documented.keys()) expect(codes.has(code), code).toBe(true);
  });
});
