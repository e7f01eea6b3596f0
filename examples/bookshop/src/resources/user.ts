/**
 * User — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/users`. The password is write-only and stored hashed (scrypt); `isCompany` is write-only and create-only.
 */
import { Email, type GroupsDeclaration, Length, NotBlank, Unique, defineResource } from '@resource-api/core';

const ADMIN_OR_SELF = "is_granted('ROLE_ADMIN') or object == user";
/** `roles` is read and written by admins only: they get the `admin` group on top of `user`. */
const byRole: GroupsDeclaration = ({ roles }) => (roles.includes('ROLE_ADMIN') ? ['user', 'admin'] : ['user']);
const USER = ['user'];

export const User = defineResource({
  name: 'User',
  description: 'Someone who can log in.',
  normalizationGroups: byRole,
  denormalizationGroups: byRole,
  operations: [
    { kind: 'getCollection', security: "is_granted('ROLE_ADMIN')" },
    // Registration: public. Client roles are ignored unless an admin writes them (groups).
    { kind: 'post', validationGroups: ['Default', 'create'] },
    { kind: 'get', security: ADMIN_OR_SELF },
    { kind: 'put', security: ADMIN_OR_SELF },
    { kind: 'patch', security: ADMIN_OR_SELF },
    { kind: 'delete', security: "is_granted('ROLE_ADMIN')" },
  ],
  fields: {
    email: { type: 'string', groups: USER, constraints: [NotBlank(), Email(), Unique()], description: 'The e-mail address, used to log in.' },
    // Checked on create only (POST runs the `create` group too); later a left-out password keeps its value.
    plainPassword: {
      type: 'password',
      column: 'password',
      groups: USER,
      constraints: [NotBlank({ groups: ['create'] }), Length({ min: 8, groups: ['create'] })],
      description: 'The password (write-only; stored hashed).',
    },
    // Stored with ROLE_USER always and without duplicates (the framework's user handling).
    roles: { type: 'string[]', default: ['ROLE_USER'], groups: ['admin'], description: 'The roles of the user.' },
    // When true, registration also grants ROLE_COMPANY (the onRegister hook in app.ts).
    isCompany: {
      groups: USER,
      type: 'boolean',
      default: false,
      readable: false,
      immutable: true,
      description: 'Registers a company (write-only, on create only).',
    },
    // The subresource `GET /api/users/{id}/comments`, with Comment's filters (`?order[createdAt]=desc`).
    comments: { toMany: 'Comment', mappedBy: 'user', subresource: true, groups: USER, description: 'The comments the user wrote.' },
  },
});
