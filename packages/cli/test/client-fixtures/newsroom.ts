/**
 * The newsroom of client.test.ts and debug-resources.test.ts: resources with custom operations and shapes (an output
 * shape, an input shape, a shape-less body written as an update, no body, a path variable of the operation's own, a
 * collection-level operation with a shape each way, a status of its own) and a computed field. Loaded by vitest (the
 * client test builds its metadata and app from it), not compiled with the generated client.
 */
import {
  ApiError,
  defineResource,
  defineShape,
  Length,
  NotBlank,
  type Entity,
  type StateContext,
} from '@resource-api/core';

export const AuthorStats = defineShape({
  name: 'AuthorStats',
  description: 'What an author has written.',
  fields: {
    articleCount: { type: 'integer', description: 'The number of articles.' },
    latestTitle: { type: 'string', nullable: true },
  },
});

export const ChangePassword = defineShape({
  name: 'ChangePassword',
  fields: {
    currentPassword: { type: 'string', constraints: [NotBlank()] },
    newPassword: { type: 'string', constraints: [NotBlank(), Length({ min: 8 })] },
  },
});

export const ArticleDraft = defineShape({
  name: 'ArticleDraft',
  fields: { title: { type: 'string', constraints: [NotBlank()] }, body: { type: 'text', nullable: true } },
});
export const ArticlePreview = defineShape({
  name: 'ArticlePreview',
  fields: { title: { type: 'string' }, words: { type: 'integer' }, draftedAt: { type: 'datetime' } },
});

const words = (text: unknown) => (typeof text === 'string' ? text.split(/\s+/).filter(Boolean).length : 0);

export const Author = defineResource({
  name: 'Author',
  operations: [
    'getCollection',
    'get',
    'post',
    {
      kind: 'get',
      name: 'stats',
      uriTemplate: '/authors/{id}/stats',
      output: AuthorStats,
      provider: {
        async provide(context: StateContext, next) {
          const author = (await next()) as Entity | null;
          if (!author) return null;
          const articles = (await context
            .db('article')
            .where({ author_id: author.id })
            .orderBy('id', 'desc')
            .select('title')) as { title: string }[];
          return { articleCount: articles.length, latestTitle: articles[0]?.title ?? null };
        },
      },
    },
  ],
  fields: { name: { type: 'string', constraints: [NotBlank()] } },
});

export const Article = defineResource({
  name: 'Article',
  operations: [
    'getCollection',
    'get',
    'post',
    'patch',
    {
      kind: 'post',
      name: 'publish',
      uriTemplate: '/articles/{id}/publish',
      input: false,
      processor: {
        async process(_data: Entity, context, next) {
          return next({ ...context.previous!, published: true });
        },
      },
    },
    {
      kind: 'post',
      name: 'rename',
      uriTemplate: '/articles/{id}/rename',
      description: 'Gives the article another title.',
    },
    {
      kind: 'get',
      name: 'bySlug',
      uriTemplate: '/articles/by-slug/{slug}',
      provider: {
        async provide(context: StateContext) {
          const row = (await context
            .db('article')
            .where({ slug: context.uriVariables.slug ?? '' })
            .first('id')) as { id: number } | undefined;
          if (!row) return null;
          const article = (await context.db('article').where({ id: row.id }).first()) as Record<string, unknown>;
          return {
            id: row.id,
            title: article.title,
            slug: article.slug,
            body: article.body,
            published: Boolean(article.published),
            author: article.author_id ?? null,
          };
        },
      },
    },
    {
      kind: 'post',
      name: 'preview',
      uriTemplate: '/articles/preview',
      input: ArticleDraft,
      output: ArticlePreview,
      processor: {
        async process(data: Entity) {
          return { title: data.title, words: words(data.body), draftedAt: new Date(Date.UTC(2024, 0, 2)) };
        },
      },
    },
    {
      kind: 'post',
      name: 'archive',
      uriTemplate: '/articles/{id}/archive',
      input: false,
      output: false,
      status: 204,
      processor: {
        async process(_data: Entity, context) {
          await context.db('article').where({ id: context.id }).update({ published: false });
        },
      },
    },
  ],
  fields: {
    title: { type: 'string', constraints: [NotBlank()] },
    slug: { type: 'string', nullable: true },
    body: { type: 'text', nullable: true },
    published: { type: 'boolean', default: false, writable: false },
    author: { toOne: 'Author', nullable: true },
    // Computed: read, never written. (Nullable: the core's validation asks a value of a non-nullable computed field on writes.)
    wordCount: { type: 'integer', nullable: true, computed: (article) => words(article.body) },
  },
});

export const User = defineResource({
  name: 'User',
  operations: [
    'get',
    'post',
    {
      kind: 'post',
      name: 'changePassword',
      uriTemplate: '/users/{id}/change-password',
      input: ChangePassword,
      output: false,
      processor: {
        async process(data: Entity, context) {
          const previous = context.previous as Entity;
          if (previous.secret !== data.currentPassword)
            throw new ApiError('FORBIDDEN', 'The current password is wrong.');
          await context.db('user').where({ id: previous.id }).update({ secret: data.newPassword });
        },
      },
    },
  ],
  fields: { email: { type: 'string', constraints: [NotBlank()] }, secret: { type: 'string', readable: false } },
});

export const newsroom = [Author, Article, User];
