/**
 * Security headers (helmet, on by default) on every kind of response: operations, errors, the documents, Swagger UI,
 * GraphiQL, the health routes. A request that accepts HTML gets the pages' set (a policy under which Swagger UI and
 * GraphiQL run, GraphiQL's inline start-up script on its page only); any other gets the API's, smaller and stricter.
 */
import { describe, expect, it } from 'vitest';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

const [sqlite] = testDatabases(undefined);
const OBSOLETE = [
  'x-xss-protection',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-dns-prefetch-control',
  'origin-agent-cluster',
];
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
/** The policy of a response to a request that does not accept HTML (an API client's). */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

describe('security headers by default', () => {
  const app = useApp(sqlite!, { resources: [Author, Book], production: {} });

  it('sends nosniff, DENY framing, HSTS and no X-Powered-By on operations, errors, documents, 404s of the API and health routes', async () => {
    await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'Ursula K. Le Guin' } });
    const requests = [
      { method: 'GET', url: '/api/authors/1' },
      { method: 'GET', url: '/api/authors/999' },
      { method: 'POST', url: '/api/authors', payload: '{not json', headers: { 'content-type': 'application/json' } },
      { method: 'GET', url: '/api/docs.jsonld' },
      { method: 'GET', url: '/api/contexts/Author' },
      { method: 'GET', url: '/api/nowhere' },
      { method: 'GET', url: '/health' },
    ] as const;
    for (const request of requests) {
      for (const accept of ['application/ld+json', '*/*', undefined, HTML]) {
        const response = await call(app(), {
          ...request,
          headers: { ...('headers' in request ? request.headers : {}), ...(accept ? { accept } : {}) },
        });
        const where = `${request.method} ${request.url} (Accept: ${accept}) → ${response.status}`;
        expect(response.headers['x-content-type-options'], where).toBe('nosniff');
        expect(response.headers['x-frame-options'], where).toBe('DENY');
        expect(response.headers['strict-transport-security'], where).toBe('max-age=31536000; includeSubDomains');
        expect(response.headers['referrer-policy'], where).toBe('no-referrer');
        expect(response.headers['cross-origin-resource-policy'], where).toBe('same-origin');
        expect(response.headers['x-powered-by'], where).toBeUndefined();
        expect(response.headers['content-security-policy'], where).toContain("frame-ancestors 'none'");
        if (accept === HTML) {
          // What a browser's navigation gets: the pages' policy, and the opener policy of documents.
          expect(response.headers['content-security-policy'], where).toContain("script-src 'self';");
          expect(response.headers['cross-origin-opener-policy'], where).toBe('same-origin');
        } else {
          // An API client's: a document that loads nothing; no header that applies to documents only.
          expect(response.headers['content-security-policy'], where).toBe(API_POLICY);
          expect(response.headers['cross-origin-opener-policy'], where).toBeUndefined();
        }
        // helmet's headers for browsers of the past, or for HTML pages only, are off (docs/production.md).
        for (const obsolete of OBSOLETE) expect(response.headers[obsolete], `${where}: ${obsolete}`).toBeUndefined();
      }
    }
  });

  it("gives Swagger UI a policy of the API's own scripts, which is where all of its files come from", async () => {
    const page = await call(app(), { method: 'GET', url: '/api', headers: { accept: HTML } });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toContain('upgrade-insecure-requests');
    // Every script of the page is a file of the API: allowed by 'self'.
    const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/api\/docs\/ui\/static\//);
      expect(body!.trim()).toBe('');
    }
    const bundle = await app().inject({ method: 'GET', url: '/api/docs/ui/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
  });

  it("allows GraphiQL's inline start-up script on the GraphiQL page, and nowhere else", async () => {
    const page = await call(app(), { method: 'GET', url: '/graphql', headers: { accept: HTML } });
    expect(page.text).toContain('GraphiQL.createFetcher');
    expect(page.headers['content-security-policy']).toContain("script-src 'self' 'unsafe-inline';");
    expect(page.headers['x-frame-options']).toBe('DENY');

    const query = await call(app(), {
      method: 'GET',
      url: '/graphql?query=%7B__typename%7D',
      headers: { accept: HTML },
    });
    expect(query.headers['content-security-policy']).toContain("script-src 'self';");
    const asset = await call(app(), { method: 'GET', url: '/graphql/graphiql/graphiql.js' });
    expect(asset.status).toBe(200);
    // A file of the page is no page: the API's policy (a classic script runs under its page's policy).
    expect(asset.headers['content-security-policy']).toBe(API_POLICY);
    const api = await call(app(), { method: 'GET', url: '/api/authors', headers: { accept: HTML } });
    expect(api.headers['content-security-policy']).toContain("script-src 'self';");
  });

  it("gives the pages' set to whatever may be answered with a page: text/html or text/* in any letter case", async () => {
    for (const accept of ['TEXT/HTML', 'text/*', 'Text/*;q=0.5']) {
      const ui = await call(app(), { method: 'GET', url: '/api', headers: { accept } });
      // Each of them is answered with Swagger UI, which runs under the pages' policy only.
      expect(ui.headers['content-type'], accept).toBe('text/html; charset=utf-8');
      expect(ui.headers['content-security-policy'], accept).toContain("script-src 'self';");
      expect(ui.headers['cross-origin-opener-policy'], accept).toBe('same-origin');
    }
  });
});

describe('the securityHeaders option', () => {
  it('turns every security header off with false', async () => {
    const app = await buildTestApp({
      database: sqlite!,
      resources: [Author, Book],
      production: { securityHeaders: false },
    });
    try {
      const response = await call(app, { method: 'GET', url: '/api/authors' });
      expect(response.status).toBe(200);
      for (const header of [
        'x-content-type-options',
        'x-frame-options',
        'content-security-policy',
        'strict-transport-security',
      ]) {
        expect(response.headers[header], header).toBeUndefined();
      }
    } finally {
      await app.close();
    }
  });

  it('merges helmet options over the defaults, key by key', async () => {
    const app = await buildTestApp({
      database: sqlite!,
      resources: [Author, Book],
      production: {
        securityHeaders: {
          referrerPolicy: { policy: 'same-origin' },
          strictTransportSecurity: false,
          xXssProtection: true,
          originAgentCluster: true,
        },
      },
    });
    try {
      const response = await call(app, { method: 'GET', url: '/api/authors' });
      expect(response.headers['referrer-policy']).toBe('same-origin');
      expect(response.headers['x-xss-protection']).toBe('0');
      expect(response.headers['origin-agent-cluster']).toBe('?1');
      expect(response.headers['x-download-options']).toBeUndefined();
      expect(response.headers['strict-transport-security']).toBeUndefined();
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toBe(API_POLICY);
    } finally {
      await app.close();
    }
  });

  it("sends a policy and an opener policy of the application's own on every response, a page's or not", async () => {
    const app = await buildTestApp({
      database: sqlite!,
      resources: [Author, Book],
      production: {
        securityHeaders: {
          contentSecurityPolicy: { directives: { 'default-src': ["'self'"], 'frame-ancestors': ["'self'"] } },
          crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
        },
      },
    });
    try {
      const policies = new Set<unknown>();
      for (const accept of ['application/ld+json', HTML]) {
        const response = await call(app, { method: 'GET', url: '/api/authors', headers: { accept } });
        expect(response.status, accept).toBe(200);
        expect(response.headers['content-security-policy'], accept).toContain("frame-ancestors 'self'");
        expect(response.headers['cross-origin-opener-policy'], accept).toBe('same-origin-allow-popups');
        policies.add(response.headers['content-security-policy']);
      }
      expect(policies.size).toBe(1);
    } finally {
      await app.close();
    }
  });
});
