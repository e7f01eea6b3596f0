/**
 * Comment — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/comments`. `createdAt` is set by the service on create and is read-only. DELETE is a soft delete: the row
 * stays with `deletedAt` set, and the comment is gone from every read; admins list the deleted ones with
 * `GET /api/comments?deleted=true` and bring one back with `PATCH /api/comments/{id}/restore` (403 for anyone else).
 * Changes are pushed with Mercure (`mercure`).
 */
import { Length, NotBlank, NotNull, defineResource } from '@resource-api/core';

export const Comment = defineResource({
  name: 'Comment',
  description: 'A comment written by a user.',
  softDelete: { list: "is_granted('ROLE_ADMIN')", restore: "is_granted('ROLE_ADMIN')" },
  // Every change is pushed to the Mercure hub's subscribers: topic the comment's IRI (a DELETE: its @id and @type).
  mercure: true,
  operations: [
    'getCollection',
    'get',
    { kind: 'post', validationGroups: ['create'], security: "is_granted('ROLE_USER')" },
    // The comment's user only (an admin who is not the author gets 403 too).
    { kind: 'put', validationGroups: ['update'], security: "is_granted('ROLE_USER') and object.user == user" },
    { kind: 'patch', validationGroups: ['update'], security: "is_granted('ROLE_USER') and object.user == user" },
    { kind: 'delete', security: "is_granted('ROLE_ADMIN') or object.user == user" },
  ],
  filters: [
    { type: 'search', properties: { user: 'exact' } },
    { type: 'order', properties: ['createdAt', 'id'] },
  ],
  fields: {
    // POST runs the `create` group, PUT and PATCH the `update` group (see `operations`).
    content: {
      type: 'string',
      constraints: [
        NotBlank({ groups: ['create'] }),
        NotNull({ groups: ['update'] }),
        Length({ min: 10, groups: ['update'] }),
      ],
      description: 'The text of the comment.',
    },
    // Always the caller: set on create, a client value ignored on create and on update.
    user: { toOne: 'User', inversedBy: 'comments', currentUser: 'always', description: 'Who wrote the comment.' },
    createdAt: { type: 'datetime', default: 'now', writable: false, description: 'When the comment was written.' },
  },
});
