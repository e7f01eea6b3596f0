/**
 * User — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/users`. The password is write-only and stored hashed (scrypt); `isCompany` is write-only and create-only.
 * A custom operation, `POST /api/users/{id}/password`, changes the password of the caller (the user themself only),
 * with an input shape that asks for the current one.
 */
import {
  Email,
  type Entity,
  type GroupsDeclaration,
  Length,
  NotBlank,
  type ProcessContext,
  type ProcessNext,
  type StateProcessor,
  Unique,
  UserPassword,
  defineResource,
  defineShape,
  hashPassword,
} from '@resource-api/core';

const ADMIN_OR_SELF = "is_granted('ROLE_ADMIN') or object == user";
/** `roles` is read and written by admins only: they get the `admin` group on top of `user`. */
const byRole: GroupsDeclaration = ({ roles }) => (roles.includes('ROLE_ADMIN') ? ['user', 'admin'] : ['user']);
const USER = ['user'];

/**
 * The body of `POST /api/users/{id}/password`. Unknown keys are ignored; neither value is ever sent back (the
 * operation answers 204). `UserPassword` checks `currentPassword` against the caller's stored hash. The fields are in
 * the `user` group: the operation reads its body with User's denormalization groups, as every User operation does.
 */
export const ChangePassword = defineShape({
  name: 'ChangePassword',
  description: 'A password change: the current password and the new one.',
  fields: {
    currentPassword: {
      type: 'password',
      groups: USER,
      constraints: [UserPassword()],
      description: 'The current password of the user.',
    },
    newPassword: {
      type: 'password',
      groups: USER,
      constraints: [NotBlank(), Length({ min: 8 })],
      description: 'The new password (8 characters or more).',
    },
  },
});

/**
 * The processor of `changePassword`: the body was validated (the current password is right, the new one long enough);
 * it stores the new password's hash in the user's password field through the built-in processor (`next`, with the
 * user as read), in the write's transaction.
 */
export const changePassword: StateProcessor = {
  async process(data: Entity, context: ProcessContext, next: ProcessNext) {
    await next({ ...context.previous!, plainPassword: await hashPassword(data.newPassword as string) });
  },
};

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
    // The user themself only: an admin changing someone else's password gets 403 too (admins use PUT or PATCH).
    {
      kind: 'post',
      name: 'changePassword',
      uriTemplate: '/users/{id}/password',
      input: ChangePassword,
      output: false,
      security: 'object == user',
      description: "Changes the user's password, given the current one (the user themself only).",
      processor: changePassword,
    },
  ],
  fields: {
    // Unique regardless of letter case (Unique ignores case on an Email() field: an index on lower(email)).
    email: {
      type: 'string',
      groups: USER,
      constraints: [NotBlank(), Email(), Unique()],
      description: 'The e-mail address, used to log in.',
    },
    // Required on create only (POST runs the `create` group too; later a left-out password keeps its value); a new
    // one is 8 characters or more on every write, as registration and the password change demand.
    plainPassword: {
      type: 'password',
      column: 'password',
      groups: USER,
      constraints: [NotBlank({ groups: ['create'] }), Length({ min: 8 })],
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
    comments: {
      toMany: 'Comment',
      mappedBy: 'user',
      subresource: true,
      groups: USER,
      description: 'The comments the user wrote.',
    },
  },
});
