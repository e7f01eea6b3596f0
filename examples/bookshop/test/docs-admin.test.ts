/**
 * API Platform Admin (`@api-platform/admin`, unmodified, built with Vite from `admin-fixture/`) in Debian's Chromium
 * against the bookshop: it discovers the API from the Hydra documentation alone, then lists, creates and edits a book,
 * choosing the author by name in a select.
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminServer, buildAdmin, serveAdmin } from '../admin-fixture/serve.js';
import { buildBookshop } from '../src/app.js';

const CHROMIUM = '/usr/bin/chromium';

describe('API Platform Admin on the bookshop, in Chromium', () => {
  let app: FastifyInstance;
  let admin: AdminServer;
  let browser: Browser;
  let page: Page;
  const writes: string[] = [];
  const failures: string[] = [];
  /** The URLs of the page's event streams (EventSource requests), and how many times the page loaded. */
  const subscriptions: string[] = [];
  let navigated = 0;

  let inFlight = 0;
  let lastActivity = Date.now();
  /** Resolves once the page has had no request in flight for half a second (react-admin's forms reset as data arrives). */
  const settled = () =>
    expect.poll(() => inFlight === 0 && Date.now() - lastActivity > 500, { timeout: 20_000, interval: 100 }).toBe(true);

  /** Types `value` into the title and saves, again if the form was reset under the typing, until the write is sent. */
  async function saveTitle(value: string, method: 'POST' | 'PUT'): Promise<void> {
    const title = page.locator('input[name="title"]');
    const save = page.getByRole('button', { name: 'Save' });
    for (let attempt = 0; attempt < 5; attempt++) {
      await settled();
      if ((await title.inputValue()) !== value) await title.fill(value);
      if (!(await save.isEnabled())) continue;
      const sent = page
        .waitForRequest((r) => r.method() === method && r.url().includes('/api/books'), { timeout: 5_000 })
        .then(
          () => true,
          () => false,
        );
      await save.click({ timeout: 5_000 }).catch(() => {});
      if (await sent) return;
    }
    throw new Error(`The form never sent the ${method}.`);
  }

  /** Opens the author select and picks `name`, again if the options did not open (a re-render can swallow the click). */
  async function chooseAuthor(name: string): Promise<void> {
    const author = page.getByLabel('author');
    const option = page.getByRole('option', { name });
    for (let attempt = 0; attempt < 5; attempt++) {
      await settled();
      await author.click({ timeout: 10_000 }).catch(() => {});
      const shown = await option.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      );
      if (
        shown &&
        (await option.click({ timeout: 5_000 }).then(
          () => true,
          () => false,
        ))
      )
        return;
    }
    throw new Error(`The author select never offered ${name}.`);
  }

  /** Opens the book form to create and waits until both required inputs and the cover are there. */
  async function openCreateForm(): Promise<void> {
    await page.goto(`${admin.url}/#/books/create`);
    await page.locator('input[name="title"]').waitFor({ timeout: 20_000 });
    // hydra:required (NotBlank on the title, a non-nullable author) marks both inputs as required.
    const labels = async () =>
      (await page.locator('form .MuiInputLabel-root').allInnerTexts()).map((label) => label.replace(/\s+/g, ' '));
    await expect.poll(labels, { timeout: 20_000 }).toEqual(['Title *', 'Author *', 'Cover']);
  }

  const api = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${admin.url}${path}`, {
      ...init,
      headers: { 'content-type': 'application/ld+json', ...init?.headers },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it).`);
    const dir = await buildAdmin();
    app = await buildBookshop({ database: 'sqlite::memory:', jwtSecret: 'a-test-secret-of-at-least-32-bytes!!' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    admin = await serveAdmin({ dir, apiPort: typeof address === 'object' && address ? address.port : 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage();
    page.on('request', (request) => {
      if (request.method() !== 'GET') writes.push(`${request.method()} ${request.url().slice(admin.url.length)}`);
    });
    page.on('pageerror', (error) => failures.push(String(error)));
    page.on('request', (request) => {
      if (request.resourceType() === 'eventsource') subscriptions.push(request.url());
    });
    page.on('load', () => {
      navigated++;
    });
    // An event stream (the Mercure subscription of the lists) stays open: it is never "in flight".
    page.on('request', (request) => {
      if (request.resourceType() === 'eventsource') return;
      inFlight++;
      lastActivity = Date.now();
    });
    const done = (request: { resourceType(): string }) => {
      if (request.resourceType() === 'eventsource') return;
      inFlight--;
      lastActivity = Date.now();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    await api('/api/authors', { method: 'POST', body: JSON.stringify({ name: 'Ursula K. Le Guin' }) });
    await api('/api/authors', { method: 'POST', body: JSON.stringify({ name: 'Octavia E. Butler' }) });
    await api('/api/books', { method: 'POST', body: JSON.stringify({ title: 'Kindred', author: '/api/authors/2' }) });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await admin?.close();
    await app?.close();
  });

  it('discovers every collection from the Hydra documentation and lists the books', async () => {
    await page.goto(`${admin.url}/#/books`);
    await expect.poll(() => page.locator('.RaSidebar-fixed').innerText(), { timeout: 30_000 }).toContain('Books');
    const menu = await page.locator('.RaSidebar-fixed').innerText();
    for (const name of ['Authors', 'Books', 'Users', 'Comments', 'Categories', 'Brands', 'Products', 'Articles'])
      expect(menu).toContain(name);
    const row = page.locator('tr', { hasText: 'Kindred' });
    await row.waitFor({ timeout: 30_000 });
    // The author shows by name (schema.org/name), not by IRI.
    await expect.poll(() => row.innerText()).toContain('Octavia E. Butler');
    expect(failures).toEqual([]);
  }, 60_000);

  it('creates a book, choosing its author by name', async () => {
    await openCreateForm();
    await chooseAuthor('Ursula K. Le Guin');
    await saveTitle('The Dispossessed', 'POST');
    await expect
      .poll(async () => (await api('/api/books/2')).body, { timeout: 20_000 })
      .toMatchObject({ title: 'The Dispossessed', author: '/api/authors/1' });
    expect(writes).toContain('POST /api/books');
  }, 60_000);

  it('shows a violation the API finds under its field (the ConstraintViolationList context expands it)', async () => {
    await openCreateForm();
    await chooseAuthor('Ursula K. Le Guin');
    // Two characters pass the form (only required) and break the API's Length min 3: a 400 ConstraintViolationList.
    await saveTitle('ab', 'POST');
    const helper = page.locator('form .ra-input-title .MuiFormHelperText-root');
    await expect
      .poll(() => helper.innerText().catch(() => ''), { timeout: 20_000 })
      .toContain('This value is too short. It should have 3 characters or more.');
    expect((await api('/api/books?title=ab')).body['hydra:totalItems']).toBe(0);
  }, 60_000);

  it('edits the book, with PUT, and shows the new title in the list', async () => {
    await page.goto(`${admin.url}/#/books/${encodeURIComponent('/api/books/2')}`);
    const title = page.locator('input[name="title"]');
    await expect.poll(() => title.inputValue(), { timeout: 20_000 }).toBe('The Dispossessed');
    await expect
      .poll(() => page.locator('form .ra-input-author').innerText(), { timeout: 20_000 })
      .toContain('Ursula K. Le Guin');
    await saveTitle('The Dispossessed: An Ambiguous Utopia', 'PUT');
    await expect
      .poll(async () => (await api('/api/books/2')).body.title, { timeout: 20_000 })
      .toBe('The Dispossessed: An Ambiguous Utopia');
    expect(writes).toContain('PUT /api/books/2');
    await page.goto(`${admin.url}/#/books`);
    await page.locator('tr', { hasText: 'The Dispossessed: An Ambiguous Utopia' }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: '/tmp/admin-books.png' });
    expect(failures).toEqual([]);
  }, 60_000);

  it('shows in the open list a title changed through the API, without a reload (Mercure)', async () => {
    await page.goto(`${admin.url}/#/books`);
    await page.locator('tr', { hasText: 'Kindred' }).waitFor({ timeout: 30_000 });
    // The admin subscribed to the hub the Link header names (through the same origin).
    await expect
      .poll(() => subscriptions.some((url) => url.includes('/.well-known/mercure')), { timeout: 20_000 })
      .toBe(true);
    await settled();
    const navigations = navigated;
    const changed = await api('/api/books/1', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ title: 'Kindred: A Graphic Novel Adaptation' }),
    });
    expect(changed.status).toBe(200);
    await page.locator('tr', { hasText: 'Kindred: A Graphic Novel Adaptation' }).waitFor({ timeout: 20_000 });
    expect(navigated).toBe(navigations);
    await page.screenshot({ path: '/tmp/admin-books-live.png' });
    expect(failures).toEqual([]);
  }, 60_000);
});
