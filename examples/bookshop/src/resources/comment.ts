/**
 * Comment — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/comments`. `createdAt` is set by the service on create and is read-only.
 */
import { Length, NotBlank, NotNull, defineResource } from '@resource-api/core';

// Access rules (contract): `GET` public; `POST` `ROLE_USER`; `PUT`/`PATCH` `ROLE_USER` and the comment's user is the
// current user; `DELETE` `ROLE_ADMIN` or the comment's user — arrive with the security issue.
export const Comment = defineResource({
  name: 'Comment',
  description: 'A comment written by a user.',
  operations: [
    'getCollection',
    'get',
    { kind: 'post', validationGroups: ['create'] },
    { kind: 'put', validationGroups: ['update'] },
    { kind: 'patch', validationGroups: ['update'] },
    'delete',
  ],
  filters: [
    { type: 'search', properties: { user: 'exact' } },
    { type: 'order', properties: ['createdAt', 'id'] },
  ],
  fields: {
    // POST runs the `create` group, PUT and PATCH the `update` group (see `operations`).
    content: {
      type: 'string',
      constraints: [NotBlank({ groups: ['create'] }), NotNull({ groups: ['update'] }), Length({ min: 10, groups: ['update'] })],
      description: 'The text of the comment.',
    },
    // Owner (contract): set to the current user on create, client value ignored on create and update — arrives with
    // the security issue. Until then an ordinary, required, writable relation.
    user: { toOne: 'User', inversedBy: 'comments', description: 'Who wrote the comment.' },
    createdAt: { type: 'datetime', default: 'now', writable: false, description: 'When the comment was written.' },
  },
});
