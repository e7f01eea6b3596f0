/**
 * Swagger UI in a real browser: Debian's Chromium, driven by playwright-core, opens `GET /api` of the bookshop
 * listening on 127.0.0.1, sees every operation of every resource, authorizes with a token from `POST /api/auth`, and
 * runs a protected request from the page ("Try it out" → "Execute"). Every file the page loads comes from the API
 * itself (no CDN).
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBookshop } from '../src/app.js';

const CHROMIUM = '/usr/bin/chromium';
const ADMIN = { email: 'admin@bookshop.test', password: 'admin-password-42' };

describe('Swagger UI at /api in Chromium', () => {
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let base = '';
  const requested: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it).`);
    app = await buildBookshop({
      database: 'sqlite::memory:',
      jwtSecret: 'a-test-secret-of-at-least-32-bytes!!',
      admin: ADMIN,
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage();
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${base}/api`);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows the Swagger UI page to a browser, and JSON-LD to everyone else', async () => {
    expect(await page.title()).toBe('Bookshop API');
    const html = await fetch(`${base}/api`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const accept of ['*/*', 'application/ld+json']) {
      const entrypoint = await fetch(`${base}/api`, { headers: { accept } });
      expect(entrypoint.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
      expect(((await entrypoint.json()) as Record<string, unknown>)['@type']).toBe('Entrypoint');
    }
  });

  it('lists every operation of every resource, and the login routes', async () => {
    const expected = app.resourceApi.metadata.resources.flatMap((r) =>
      r.operations.map((o) => `operations-${r.name}-${o.name}`),
    );
    expect(expected.length).toBeGreaterThan(40);
    const shown = await page.locator('.opblock').evaluateAll((blocks) => blocks.map((b) => b.id));
    expect(shown.sort()).toEqual(
      [
        ...expected,
        'operations-Login-login_check_post',
        'operations-Login-login_refresh_post',
        'operations-Login-login_logout_post',
      ].sort(),
    );
  });

  it('loads nothing from outside the API', () => {
    expect(requested.length).toBeGreaterThan(3);
    expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    expect(requested).toContain(`${base}/api/docs/ui/static/swagger-ui-bundle.js`);
  });

  it('authorizes with a token from POST /api/auth and runs a protected request from the page', async () => {
    const anonymous = await fetch(`${base}/api/users`);
    expect(anonymous.status).toBe(401);
    const login = await fetch(`${base}/api/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.auth-container').filter({ hasText: 'JWT' });
    await dialog.locator('input').fill(token);
    await dialog.locator('button.modal-btn.authorize').click();
    await expect.poll(() => dialog.innerText()).toContain('Authorized');
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('#operations-User-api_users_get_collection');
    await operation.locator('.opblock-summary-control').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${base}/api/users`) && r.request().method() === 'GET'),
      operation.getByRole('button', { name: 'Execute' }).click(),
    ]);
    expect(response.request().headers().authorization).toBe(`Bearer ${token}`);
    expect(response.status()).toBe(200);
    const live = operation.locator('.live-responses-table tbody');
    await expect.poll(() => live.locator('.response-col_status').first().innerText()).toBe('200');
    await expect.poll(() => live.locator('.response-col_description').first().innerText()).toContain(ADMIN.email);
    await page.screenshot({ path: '/tmp/swagger-ui.png', fullPage: false });
  }, 60_000);
});
