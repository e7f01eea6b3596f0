/**
 * The contract's "Timestamps, soft delete, uploads" → Article, end to end: `createdAt` and `updatedAt` are read-only
 * date-times set by the framework, `createdAt` once on create, `updatedAt` on create and on every successful PUT, PATCH
 * and publish; a refused write changes neither; a client's values are ignored. REST and GraphQL, OpenAPI too.
 */
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { bearer, call, databases, DATETIME, MERGE_PATCH, registerAndLogin, useBookshop } from './support.js';

const LONG_AGO = '2001-01-01T00:00:00+00:00';
/** Successive writes land in distinct milliseconds. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe.each(databases)('article timestamps on $name', (database) => {
  const shop = useBookshop(database);
  const get = (app: FastifyInstance, url: string) => call(app, { method: 'GET', url });

  it('sets createdAt and updatedAt on create, the same instant, ignoring the values a client sends', async () => {
    const { app } = shop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const before = Date.now();
    const created = await call(app, {
      method: 'POST',
      url: '/api/articles',
      headers: ada.auth,
      payload: { title: 'First', createdAt: LONG_AGO, updatedAt: LONG_AGO },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      '@context': '/api/contexts/Article',
      '@id': '/api/articles/1',
      '@type': 'Article',
      id: 1,
      title: 'First',
      owner: ada.iri,
      published: false,
      createdAt: expect.stringMatching(DATETIME),
      updatedAt: created.body.createdAt,
    });
    expect(Date.parse(created.body.createdAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(created.body.createdAt)).toBeLessThanOrEqual(Date.now());
    expect((await get(app, '/api/articles/1')).body).toEqual(created.body);
  });

  it('moves updatedAt on every successful PUT, PATCH and publish, and never createdAt', async () => {
    const { app } = shop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const created = await call(app, {
      method: 'POST',
      url: '/api/articles',
      headers: ada.auth,
      payload: { title: 'A' },
    });
    const { createdAt } = created.body;
    let last = Date.parse(created.body.updatedAt);
    const expectMoved = (body: Record<string, unknown>) => {
      expect(body.createdAt).toBe(createdAt);
      expect(body.updatedAt).toMatch(DATETIME);
      expect(Date.parse(body.updatedAt as string)).toBeGreaterThan(last);
      last = Date.parse(body.updatedAt as string);
    };

    await tick();
    const put = await call(app, {
      method: 'PUT',
      url: '/api/articles/1',
      headers: ada.auth,
      payload: { title: 'B', createdAt: LONG_AGO, updatedAt: LONG_AGO },
    });
    expect(put.status, put.text).toBe(200);
    expectMoved(put.body);

    await tick();
    const patch = await call(app, {
      method: 'PATCH',
      url: '/api/articles/1',
      headers: { ...ada.auth, ...MERGE_PATCH },
      payload: { body: 'Text', createdAt: LONG_AGO },
    });
    expect(patch.status, patch.text).toBe(200);
    expectMoved(patch.body);

    await tick();
    const publish = await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth });
    expect(publish.status, publish.text).toBe(200);
    expectMoved(publish.body);
    expect(publish.body.published).toBe(true);

    expect((await get(app, '/api/articles/1')).body).toEqual(publish.body);
  });

  it('leaves both as they were when a write is refused (403, 400, a second publish)', async () => {
    const { app } = shop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const grace = await registerAndLogin(app, 'grace@example.com');
    await call(app, { method: 'POST', url: '/api/articles', headers: ada.auth, payload: { title: 'Kept' } });
    await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth });
    const stored = (await get(app, '/api/articles/1')).body;

    await tick();
    const refused = [
      await call(app, {
        method: 'PATCH',
        url: '/api/articles/1',
        headers: { ...grace.auth, ...MERGE_PATCH },
        payload: { title: 'X' },
      }),
      await call(app, { method: 'PUT', url: '/api/articles/1', headers: ada.auth, payload: { title: '' } }),
      await call(app, { method: 'POST', url: '/api/articles/1/publish', headers: ada.auth }),
    ];
    expect(refused.map((response) => response.status)).toEqual([403, 400, 400]);
    expect((await get(app, '/api/articles/1')).body).toEqual(stored);
  });

  it('sets them through GraphQL, whose article inputs have neither', async () => {
    const { app } = shop();
    const ada = await registerAndLogin(app, 'ada@example.com');
    const gql = (query: string) =>
      call(app, { method: 'POST', url: '/graphql', headers: bearer(ada.token), payload: { query } });
    const created = await gql(
      'mutation { createArticle(input: { title: "G" }) { article { id createdAt updatedAt } } }',
    );
    expect(created.body.errors, created.text).toBeUndefined();
    const article = created.body.data.createArticle.article;
    expect(article.createdAt).toMatch(DATETIME);
    expect(article.updatedAt).toBe(article.createdAt);

    await tick();
    const published = await gql(
      `mutation { publishArticle(input: { id: "${article.id}" }) { article { createdAt updatedAt } } }`,
    );
    expect(published.body.errors, published.text).toBeUndefined();
    expect(published.body.data.publishArticle.article.createdAt).toBe(article.createdAt);
    expect(Date.parse(published.body.data.publishArticle.article.updatedAt)).toBeGreaterThan(
      Date.parse(article.updatedAt),
    );

    const refused = await gql(
      `mutation { updateArticle(input: { id: "${article.id}", createdAt: "${LONG_AGO}" }) { article { id } } }`,
    );
    expect(refused.body.errors?.[0]?.message).toMatch(/createdAt/);
    expect((await get(app, article.id)).body.createdAt).toBe(article.createdAt);
  });

  it('documents both as read-only date-times, absent from the write schemas', async () => {
    const { app } = shop();
    const { schemas } = (await get(app, '/api/docs.jsonopenapi')).body.components;
    for (const name of ['createdAt', 'updatedAt']) {
      expect(schemas['Article.jsonld'].properties[name]).toMatchObject({
        type: 'string',
        format: 'date-time',
        readOnly: true,
      });
      for (const write of ['Article.create', 'Article.replace', 'Article.update'])
        expect(schemas[write].properties, write).not.toHaveProperty(name);
    }
  });
});
