/**
 * Several instances' tests: POSTs a book titled `title` to the app at `origin`, expects 201, and returns its IRI.
 */
import { expect } from 'vitest';

export async function postBook(origin: string, title: string): Promise<string> {
  const response = await fetch(`${origin}/api/books`, {
    method: 'POST',
    headers: { 'content-type': 'application/ld+json' },
    body: JSON.stringify({ title }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { '@id': string })['@id'];
}
