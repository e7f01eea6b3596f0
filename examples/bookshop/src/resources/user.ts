/**
 * User — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/users`. The password is write-only and stored hashed (scrypt); `isCompany` is write-only and create-only.
 */
import { Email, Length, NotBlank, Unique, defineResource } from '@resource-api/core';

// Access rules (contract): `POST` public (registration; client `roles` ignored unless the caller is an admin);
// collection `GET` `ROLE_ADMIN`; item `GET`/`PUT`/`PATCH` `ROLE_ADMIN` or the user themself; `DELETE` `ROLE_ADMIN` —
// arrive with the security issue (with JWT login on `POST /api/auth`, `JWT_SECRET` and `ADMIN_EMAIL`).
export const User = defineResource({
  name: 'User',
  description: 'Someone who can log in.',
  operations: ['getCollection', { kind: 'post', validationGroups: ['Default', 'create'] }, 'get', 'put', 'patch', 'delete'],
  fields: {
    email: { type: 'string', constraints: [NotBlank(), Email(), Unique()], description: 'The e-mail address, used to log in.' },
    // Checked on create only (POST runs the `create` group too); later a left-out password keeps its value.
    plainPassword: {
      type: 'password',
      column: 'password',
      constraints: [NotBlank({ groups: ['create'] }), Length({ min: 8, groups: ['create'] })],
      description: 'The password (write-only; stored hashed).',
    },
    // Serialization groups (contract): readable and writable only by `ROLE_ADMIN`; the effective list always holds
    // `ROLE_USER`, without duplicates — arrive with the security issue.
    roles: { type: 'string[]', default: ['ROLE_USER'], description: 'The roles of the user.' },
    // Registration (contract): when true, registration also grants `ROLE_COMPANY` — arrives with the security issue.
    isCompany: {
      type: 'boolean',
      default: false,
      readable: false,
      immutable: true,
      description: 'Registers a company (write-only, on create only).',
    },
    // The subresource `GET /api/users/{id}/comments`, with Comment's filters (`?order[createdAt]=desc`).
    comments: { toMany: 'Comment', mappedBy: 'user', subresource: true, description: 'The comments the user wrote.' },
  },
});
