/** A small secured app: users, notes owned by them, a role-protected report, shared by the security tests. */
import { compare, defineResource, Email, NotBlank, Unique, type ResourceApiOptions } from '@resource-api/core';

export const SECRET = 'a-test-secret-that-is-long-enough-0123456789';

export const User = defineResource({
  name: 'User',
  fields: {
    email: { type: 'string', groups: ['user'], constraints: [NotBlank(), Email(), Unique()] },
    plainPassword: { type: 'password', column: 'password', groups: ['user'] },
    roles: { type: 'string[]', default: ['ROLE_USER'], groups: ['admin'] },
    isCompany: { type: 'boolean', default: false, readable: false, immutable: true, groups: ['user'] },
    nickname: {
      type: 'string',
      nullable: true,
      groups: ['user'],
      security: "is_granted('ROLE_ADMIN') or object == user",
    },
  },
  operations: [
    { kind: 'post' },
    { kind: 'getCollection', security: "is_granted('ROLE_ADMIN')" },
    { kind: 'get', security: "is_granted('ROLE_ADMIN') or object == user" },
    { kind: 'patch', security: "is_granted('ROLE_ADMIN') or object == user" },
    { kind: 'delete', security: "is_granted('ROLE_ADMIN')" },
  ],
  // Admins see and write roles; nobody else does.
  normalizationGroups: ({ roles }) => (roles.includes('ROLE_ADMIN') ? ['admin', 'user'] : ['user']),
  denormalizationGroups: ({ roles }) => (roles.includes('ROLE_ADMIN') ? ['admin', 'user'] : ['user']),
});

export const Note = defineResource({
  name: 'Note',
  fields: {
    text: { type: 'string' },
    owner: { toOne: 'User', currentUser: 'default' },
    author: { toOne: 'User', currentUser: 'always', nullable: true },
  },
  security: "is_granted('ROLE_USER')",
  operations: [
    'getCollection',
    { kind: 'get' },
    {
      kind: 'post',
      securityPostDenormalize: 'object.owner == user',
      securityPostDenormalizeMessage: 'You can only create your own notes.',
    },
    {
      kind: 'patch',
      security: 'object.owner == user',
      securityMessage: 'Only the owner can edit this note.',
      securityPostDenormalize: 'object.owner == user',
    },
    { kind: 'delete', security: "is_granted('ROLE_ADMIN') or object.owner == user" },
  ],
  collectionFilter: ({ user, roles }) =>
    roles.includes('ROLE_ADMIN') ? [] : [compare('owner', '=', (user?.id as number) ?? 0)],
});

export const Report = defineResource({
  name: 'Report',
  fields: { title: { type: 'string' } },
  // A rule that answers with a promise, as one that asks the database would: the flow waits for it.
  security: async (context) => {
    await new Promise((resolve) => setImmediate(resolve));
    return context.isGranted('ROLE_ADMIN');
  },
  securityMessage: 'Reports are for admins.',
});

export const Public = defineResource({ name: 'Page', fields: { title: { type: 'string' } } });

export const securityOptions = (
  overrides: Partial<NonNullable<ResourceApiOptions['security']>> = {},
): NonNullable<ResourceApiOptions['security']> => ({
  jwt: { secret: SECRET },
  users: {
    resource: 'User',
    onRegister: (user) => {
      if (user.isCompany === true) user.roles = [...(user.roles as string[]), 'ROLE_COMPANY'];
    },
  },
  ...overrides,
});
