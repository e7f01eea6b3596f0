/**
 * Article — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/articles`. Owned by a user. A custom operation, `POST /api/articles/{id}/publish`, publishes it (its owner or
 * an admin); `published` and `publishedAt` are written by that operation only. `createdAt` and `updatedAt` are
 * timestamps the framework sets. Every successful write adds an
 * `AuditEntry` (the `auditTrail` hooks).
 */
import {
  type Entity,
  NotBlank,
  type ProcessContext,
  type ProcessNext,
  type StateProcessor,
  defineResource,
  validationError,
} from '@resource-api/core';
import { auditTrail } from './audit-entry.js';

const OWNER_ONLY = 'Only the owner can edit this article.';
// After the payload is applied, the owner must still be the caller: a payload naming someone else changes nothing.
const STILL_MINE = { securityPostDenormalize: 'object.owner == user', securityPostDenormalizeMessage: OWNER_ONLY };

/**
 * The processor of `publish`: refuses an article published already (400, on `published`), else sets `published` and
 * `publishedAt` and hands the item to the built-in processor (`next`), in the write's transaction.
 */
export const publishArticle: StateProcessor = {
  async process(data: Entity, context: ProcessContext, next: ProcessNext) {
    if (context.previous?.published === true) {
      throw validationError([{ propertyPath: 'published', message: 'This article is already published.' }]);
    }
    return next({ ...data, published: true, publishedAt: new Date() });
  },
};

export const Article = defineResource({
  name: 'Article',
  description: 'An article, edited by its owner.',
  hooks: auditTrail,
  operations: [
    'getCollection',
    'get',
    { kind: 'post', security: "is_granted('ROLE_USER')", ...STILL_MINE },
    // Admins included: an admin who is not the owner gets 403 too.
    { kind: 'put', security: 'object.owner == user', securityMessage: OWNER_ONLY, ...STILL_MINE },
    { kind: 'patch', security: 'object.owner == user', securityMessage: OWNER_ONLY, ...STILL_MINE },
    { kind: 'delete', security: "is_granted('ROLE_ADMIN') or object.owner == user" },
    // No body (or `{}`): the item is read (404 when missing), checked against the rule, then published. 200 with the
    // article.
    {
      kind: 'post',
      name: 'publish',
      uriTemplate: '/articles/{id}/publish',
      input: false,
      security: "is_granted('ROLE_ADMIN') or object.owner == user",
      securityMessage: 'Only the owner can publish this article.',
      description: 'Publishes the article: sets published and publishedAt (its owner or an admin).',
      processor: publishArticle,
    },
  ],
  fields: {
    title: { type: 'string', constraints: [NotBlank()], description: 'The title of the article.' },
    body: { type: 'text', nullable: true, description: 'The text of the article (optional).' },
    // The caller when the client gives none; writable, but the post-denormalize rule keeps it the caller's.
    owner: { toOne: 'User', currentUser: 'default', description: 'Who owns the article.' },
    // Written by the `publish` operation only: ignored on POST, PUT and PATCH.
    published: { type: 'boolean', default: false, writable: false, description: 'Whether the article is published.' },
    publishedAt: {
      type: 'datetime',
      nullable: true,
      writable: false,
      description: 'When the article was published, or null.',
    },
    // Set by the framework: once on create, and on every successful write (PUT, PATCH, publish).
    createdAt: { type: 'datetime', timestamp: 'create', description: 'When the article was created.' },
    updatedAt: { type: 'datetime', timestamp: 'update', description: 'When the article was last written.' },
  },
});
