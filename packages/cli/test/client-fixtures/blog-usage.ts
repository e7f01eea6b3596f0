// @ts-nocheck — compiled next to the client generated for client.test.ts's blog (which strips this line), not here.
/**
 * The blog of client.test.ts: read groups that differ by operation (no `Post` alias then), a cursor, exists, date and
 * boolean filters, a JSON field, a subresource, `requireIfMatch`, a prefix of its own and a default base URL
 * (`createClient()` without options).
 */
import {
  createClient,
  type PostCreatePostWrite,
  type PostPostDetailPostRead,
  type PostPostRead,
  type PostReplacePostWrite,
} from './api/index.js';

const blog = createClient();

export async function compiles(): Promise<unknown[]> {
  const page = await blog.posts.list({
    id: { lt: 10 },
    exists: { publishedAt: true },
    publishedAt: { after: new Date(0), strictly_before: '2030-01-01' },
    draft: false,
  });
  const member: PostPostRead | undefined = page['hydra:member'][0];
  const detail: PostPostDetailPostRead = await blog.posts.get(1);
  const created = await blog.posts.create({ title: 'Hello', meta: { tags: ['a', 1, null] }, tag: { label: 'news' } });
  const replaced: PostReplacePostWrite = { title: 'Hello again', tag: null };
  await blog.posts.replace(created.id, replaced, { ifMatch: '"etag"' });
  await blog.posts.delete(created['@id'], { ifMatch: '"etag"', headers: { 'x-request-id': 'one' } });
  const tag = await blog.tags.create({ label: 'news' });
  const tags = await blog.posts.tags(created.id, { page: 2 });
  return [member?.tag?.label, detail.body, tag.label, tags['hydra:member'][0]?.label];
}

export async function refuses(member: PostPostRead, body: PostCreatePostWrite): Promise<void> {
  // @ts-expect-error — the collection reads without `post:detail`: no body
  void member.body;
  // @ts-expect-error — `publishedAt` is not in the write groups
  await blog.posts.update(1, { publishedAt: '2024-01-01' }, { ifMatch: '"etag"' });
  // @ts-expect-error — there is no `publishedAt` in a body at all
  void body.publishedAt;
  // @ts-expect-error — a PUT replaces the whole post: `title` is required
  await blog.posts.replace(1, { draft: true }, { ifMatch: '"etag"' });
  // @ts-expect-error — the exists filter takes booleans
  await blog.posts.list({ exists: { publishedAt: 'yes' } });
  // @ts-expect-error — the cursor is a number
  await blog.posts.list({ id: { gt: 'abc' } });
  // @ts-expect-error — tags have no collection operation
  await blog.tags.list();
  // @ts-expect-error — posts are written with If-Match only (requireIfMatch)
  await blog.posts.update(1, { title: 'Hello' });
  // @ts-expect-error — the If-Match header is an ETag string
  await blog.posts.delete(1, { ifMatch: undefined });
  // @ts-expect-error — a post's tags have no filter
  await blog.posts.tags(1, { label: 'news' });
}
