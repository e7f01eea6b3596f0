// @ts-nocheck — compiled next to the client generated for client.test.ts's newsroom (which strips this line), not here.
/**
 * Typed use of the newsroom's custom operations (client-fixtures/newsroom.ts): a method per operation, named after
 * it, with its path variables, its body (an input shape, the resource's changes, or none) and its answer (an output
 * shape, the resource, or nothing); the computed field in the read type only. Each `@ts-expect-error` line must be
 * refused.
 */
import {
  createClient,
  type Article,
  type ArticleCreate,
  type ArticleDraft,
  type ArticlePreview,
  type AuthorStats,
  type ChangePassword,
} from './api/index.js';

const client = createClient({ baseUrl: 'http://127.0.0.1:8000' });

export async function compiles(): Promise<unknown[]> {
  const published: Article = await client.articles.publish(1);
  const byIri: Article = await client.articles.publish('/api/articles/1');
  const renamed: Article = await client.articles.rename(1, { title: 'Another title' });
  const stats: AuthorStats = await client.authors.stats(1);
  const count: number = stats.articleCount;
  const latest: string | null | undefined = stats.latestTitle;
  const bySlug: Article = await client.articles.bySlug('hello-world');
  const draft: ArticleDraft = { title: 'Draft', body: 'a few words' };
  const preview: ArticlePreview = await client.articles.preview(draft);
  const archived: void = await client.articles.archive(1);
  const change: ChangePassword = { currentPassword: 'old one', newPassword: 'a new password' };
  const changed: void = await client.users.changePassword(1, change);
  const words: number | null | undefined = published.wordCount;
  return [byIri, renamed, count, latest, bySlug, preview.words, archived, changed, words, stats['@type']];
}

export async function refuses(article: Article, body: ArticleCreate): Promise<void> {
  // @ts-expect-error — publish takes no body
  await client.articles.publish(1, { title: 'x' });
  // @ts-expect-error — changePassword needs the current password
  await client.users.changePassword(1, { newPassword: 'a new password' });
  // @ts-expect-error — changePassword answers 204: nothing to read
  (await client.users.changePassword(1, { currentPassword: 'a', newPassword: 'b' })).id;
  // @ts-expect-error — stats sends the shape, not the author
  void (await client.authors.stats(1)).name;
  // @ts-expect-error — a computed field is never written
  await client.articles.rename(1, { wordCount: 3 });
  // @ts-expect-error — a computed field is no field of a create body either
  void body.wordCount;
  // @ts-expect-error — published is read-only, the article's fields are all the rename body takes
  await client.articles.rename(1, { published: true });
  // @ts-expect-error — the preview's draft needs a title
  await client.articles.preview({ body: 'words' });
  // @ts-expect-error — the slug is a path variable: bySlug takes it and nothing else
  await client.articles.bySlug();
  // @ts-expect-error — a shape's output has no id
  void (await client.articles.preview({ title: 't' })).id;
  void article.wordCount;
}
