/**
 * What API Platform Admin makes of a 400 violation list, without a browser: the body expanded with the `jsonld`
 * package (the one Admin expands error bodies with), its context fetched from the bookshop as Admin's document loader
 * fetches it, then read by Admin's own `getSubmissionErrors`. Admin shows a violation under its field only when that
 * finds the field: the context must expand `violations`, `propertyPath` and `message` under the documentation's
 * vocabulary (`…/api/docs.jsonld#violations`, `#propertyPath`, `#message`), as API Platform's base context does.
 */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { call, databases, useBookshop } from './support.js';

// Admin's own modules, as installed: `jsonld` resolved from Admin's folder (its dependency), and its schema analyzer.
const adminFolder = dirname(realpathSync(createRequire(import.meta.url).resolve('@api-platform/admin')));
const adminRequire = createRequire(join(adminFolder, 'index.js'));
// biome-ignore lint/suspicious/noExplicitAny: jsonld's expanded documents are untyped JSON, walked freely by the test
const jsonld = adminRequire('jsonld') as { expand(input: unknown, options: Record<string, unknown>): Promise<any[]> };
const loadAnalyzer = async () =>
  (
    (await import(pathToFileURL(join(adminFolder, 'hydra', 'schemaAnalyzer.js')).href)) as {
      default: () => { getSubmissionErrors(error: { body: unknown }): Record<string, string> | null };
    }
  ).default();

describe.each(databases)('API Platform Admin reads violations of the bookshop on $name', (database) => {
  const shop = useBookshop(database);

  it('finds each violation under its field, through the ConstraintViolationList context', async () => {
    const { app } = shop();
    const refused = await call(app, {
      method: 'POST',
      url: '/api/books',
      headers: { host: 'shop.example' },
      payload: { title: 'ab', author: '/api/authors/99' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body['@context']).toBe('/api/contexts/ConstraintViolationList');
    const documentLoader = async (url: string) => {
      const response = await call(app, {
        method: 'GET',
        url: new URL(url).pathname,
        headers: { host: 'shop.example', accept: 'application/ld+json' },
      });
      expect(response.status, url).toBe(200);
      return { contextUrl: null, documentUrl: url, document: response.body };
    };
    const expanded = await jsonld.expand(refused.body, { base: 'http://shop.example/api/docs.jsonld', documentLoader });
    const vocabulary = 'http://shop.example/api/docs.jsonld#';
    expect(Object.keys(expanded[0])).toContain(`${vocabulary}violations`);
    expect(Object.keys(expanded[0][`${vocabulary}violations`][0]).sort()).toEqual([
      `${vocabulary}code`,
      `${vocabulary}message`,
      `${vocabulary}propertyPath`,
    ]);
    const messages = Object.fromEntries(
      refused.body.violations.map((v: { propertyPath: string; message: string }) => [v.propertyPath, v.message]),
    );
    expect((await loadAnalyzer()).getSubmissionErrors({ body: expanded })).toEqual(messages);
    expect(Object.keys(messages)).toContain('title');
  });
});
