/**
 * User — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/users`. The password is write-only and stored hashed (scrypt); `isCompany` is write-only and create-only.
 */
import { defineResource } from '@resource-api/core';

// Access rules (contract): `POST` public (registration; client `roles` ignored unless the caller is an admin);
// collection `GET` `ROLE_ADMIN`; item `GET`/`PUT`/`PATCH` `ROLE_ADMIN` or the user themself; `DELETE` `ROLE_ADMIN` —
// arrive with the security issue (with JWT login on `POST /api/auth`, `JWT_SECRET` and `ADMIN_EMAIL`).
export const User = defineResource({
  name: 'User',
  description: 'Someone who can log in.',
  fields: {
    // Validation (contract): NotBlank, Email, unique (`This value is already used.`) — arrive with the validation issue.
    email: { type: 'string', description: 'The e-mail address, used to log in.' },
    // Validation (contract): NotBlank and Length min 8 on create — arrive with the validation issue.
    plainPassword: { type: 'password', column: 'password', description: 'The password (write-only; stored hashed).' },
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
