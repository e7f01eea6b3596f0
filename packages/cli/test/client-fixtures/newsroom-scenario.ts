// @ts-nocheck — compiled next to the client generated for client.test.ts's newsroom (which strips this line), not here.
/**
 * The newsroom's generated client against the running app: each custom operation called through its method, the
 * answers handed back for client.test.ts to check.
 */
import { ApiClientError, createClient } from './api/index.js';

async function failure(call: () => Promise<unknown>): Promise<{ status: number; violations: string[] } | 'no error'> {
  try {
    await call();
    return 'no error';
  } catch (error) {
    if (!(error instanceof ApiClientError)) throw error;
    return { status: error.status, violations: error.violations.map((v) => `${v.propertyPath}: ${v.message}`) };
  }
}

export async function scenario(baseUrl: string) {
  const client = createClient({ baseUrl });
  const author = await client.authors.create({ name: 'Ursula' });
  const article = await client.articles.create({
    title: 'Hello world',
    slug: 'hello-world',
    body: 'one two three',
    author: author['@id'],
  });
  await client.articles.create({ title: 'Second thoughts', author: author['@id'] });

  const published = await client.articles.publish(article.id);
  const publishedByIri = await client.articles.publish(article['@id']);
  const renamed = await client.articles.rename(article.id, { title: 'Hello again' });
  const stats = await client.authors.stats(author.id);
  const bySlug = await client.articles.bySlug('hello-world');
  const preview = await client.articles.preview({ title: 'Draft', body: 'four words right here' });
  const archived = await client.articles.archive(article.id);
  const afterArchive = await client.articles.get(article.id);
  const missing = await failure(() => client.authors.stats(9999));

  const user = await client.users.create({ email: 'reader@example.com', secret: 'the old secret' });
  const changed = await client.users.changePassword(user.id, {
    currentPassword: 'the old secret',
    newPassword: 'a brand new secret',
  });
  const wrong = await failure(() =>
    client.users.changePassword(user.id, { currentPassword: 'the old secret', newPassword: 'another secret' }),
  );
  const tooShort = await failure(() =>
    client.users.changePassword(user.id, { currentPassword: 'a brand new secret', newPassword: 'short' }),
  );
  return {
    author,
    article,
    published,
    publishedByIri,
    renamed,
    stats,
    bySlug,
    preview,
    archived,
    afterArchive,
    missing,
    changed,
    wrong,
    tooShort,
  };
}
