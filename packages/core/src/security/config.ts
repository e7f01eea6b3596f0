/**
 * Security settings of the plugin: how tokens are checked (and issued), where users live, and the role hierarchy.
 * Checked once at start-up against the metadata.
 */
import type { KeyObject } from 'node:crypto';
import { assertCount, DeclarationError } from '../errors.js';
import { formatDidYouMean } from '../metadata/did-you-mean.js';
import type { Entity, MetadataRegistry, ResourceMetadata } from '../metadata/types.js';
import { collectDeclaredRoles } from './role-writes.js';

/** How bearer tokens are checked (a secret, a public key or a JWKS URL) and, with a secret, issued. */
export interface JwtOptions {
  /** HS256 secret: tokens are checked with it, and `POST /api/auth` issues them. */
  readonly secret?: string;
  /** A public key (PEM, SPKI or X.509) for RS256/ES256 tokens issued elsewhere. */
  readonly publicKey?: string | KeyObject;
  /** A JWKS URL for tokens issued elsewhere (keys fetched and cached by jose); not with `publicKey`. */
  readonly jwksUrl?: string;
  /** Accepted algorithms (default: HS256 with a secret, RS256 and ES256 with keys). `none` is never accepted. */
  readonly algorithms?: readonly string[];
  /** Required `iss`, when set. */
  readonly issuer?: string;
  /** Required `aud`, when set. */
  readonly audience?: string;
  /** Clock tolerance for `exp` and `nbf`, in seconds (default 5; from 0 up). */
  readonly clockTolerance?: number;
  /**
   * Lifetime of issued (access) tokens, in seconds (default 3600; from 1 up). Keep it short: refresh tokens renew them.
   */
  readonly ttl?: number;
  /**
   * Lifetime of the refresh tokens the login route issues beside the access token, in seconds (default 2,592,000: 30
   * days; from 1 up). Each refresh gives a new one, for this long again.
   */
  readonly refreshTtl?: number;
}

/** Users stored as items of one of your resources. */
export interface UserResourceOptions {
  /** The short name of the user resource, e.g. `User`. */
  readonly resource: string;
  /** The field used to log in (default `email`). */
  readonly identifier?: string;
  /** The `password` field (default `plainPassword`). */
  readonly password?: string;
  /** The `string[]` field of roles (default `roles`). */
  readonly roles?: string;
  /**
   * Called on registration (POST of the user resource) with the new user and the caller; may change its roles, for
   * example `ROLE_COMPANY` when `isCompany` is true. Roles always end up holding `ROLE_USER`, without duplicates.
   * The user is the new state before validation (the password not hashed yet): annotate it as
   * `Unvalidated<InferWriteData<typeof User>>` for typed fields (a method-style type, so the annotation fits).
   */
  readonly onRegister?: {
    bivarianceHack(
      user: Entity,
      context: { readonly caller: Entity | null; readonly callerRoles: readonly string[] },
    ): void | Promise<void>;
  }['bivarianceHack'];
}

/** The plugin's `security`: access control with JWT bearer tokens and users stored in one of your resources. */
export interface SecurityOptions {
  /** The tokens: how they are checked and issued. */
  readonly jwt: JwtOptions;
  /** The user resource and its login, password and roles fields. */
  readonly users: UserResourceOptions;
  /** Which roles include which (default `ROLE_SUPER_ADMIN` → `ROLE_ADMIN` → `ROLE_USER`). */
  readonly roleHierarchy?: Readonly<Record<string, readonly string[]>>;
  /**
   * The roles a user's roles field may hold: a value written that is not one is refused with Symfony's Choice message
   * (`The value you selected is not a valid choice.`). Default: `ROLE_USER`, every role the hierarchy names, and every
   * role an access rule names in `is_granted('…')`. List them when a role appears in none of these (one only a hook or
   * your own code grants).
   */
  readonly declaredRoles?: readonly string[];
  /** The login path under the prefix (default `/auth` with a `jwt.secret`, none without); `false` for none. */
  readonly loginPath?: string | false;
}

export interface ResolvedSecurity {
  readonly jwt: JwtOptions & { readonly clockTolerance: number; readonly ttl: number; readonly refreshTtl: number };
  readonly resource: ResourceMetadata;
  readonly identifier: string;
  readonly password: string;
  readonly roles: string;
  readonly onRegister: UserResourceOptions['onRegister'];
  readonly roleHierarchy: Readonly<Record<string, readonly string[]>>;
  /** The roles a user's roles field may hold (`declaredRoles`, or what the hierarchy and the rules name). */
  readonly declaredRoles: ReadonlySet<string>;
  readonly loginPath: string | false;
}

/**
 * The login route's path under the prefix: the option, else `/auth` with a secret to sign tokens with, none without.
 */
export const loginPathOf = (options: Pick<SecurityOptions, 'jwt' | 'loginPath'>): string | false =>
  options.loginPath ?? (options.jwt?.secret ? '/auth' : false);

/** 30 days, in seconds. */
export const DEFAULT_REFRESH_TTL = 2_592_000;

export const DEFAULT_ROLE_HIERARCHY = Object.freeze({ ROLE_SUPER_ADMIN: ['ROLE_ADMIN'], ROLE_ADMIN: ['ROLE_USER'] });

export function resolveSecurity(options: SecurityOptions, registry: MetadataRegistry): ResolvedSecurity {
  const { jwt, users } = options;
  if (!jwt || (!jwt.secret && !jwt.publicKey && !jwt.jwksUrl)) {
    throw new DeclarationError('security.jwt needs a "secret" (HS256), a "publicKey" or a "jwksUrl".');
  }
  if (jwt.secret !== undefined && Buffer.byteLength(jwt.secret) < 32)
    throw new DeclarationError('security.jwt.secret must be at least 32 bytes long.');
  // One source of keys for tokens issued elsewhere: with both, the JWKS would never be read.
  if (jwt.publicKey && jwt.jwksUrl)
    throw new DeclarationError('security.jwt takes a "publicKey" or a "jwksUrl", not both.');
  // jose refuses every token when the tolerance is negative or not a number: a typo would lock every user out.
  if (jwt.clockTolerance !== undefined && !(Number.isFinite(jwt.clockTolerance) && jwt.clockTolerance >= 0)) {
    throw new DeclarationError(
      `security.jwt.clockTolerance must be a number of seconds from 0 up, got ${String(jwt.clockTolerance)}.`,
    );
  }
  assertCount('security.jwt.ttl', jwt.ttl, 'seconds');
  assertCount('security.jwt.refreshTtl', jwt.refreshTtl, 'seconds');
  // Login issues tokens signed with the secret: without one there is no login route, and asking for one is a mistake.
  if (!jwt.secret && typeof options.loginPath === 'string') {
    throw new DeclarationError(
      'security.loginPath needs security.jwt.secret: the login route issues tokens signed with it (with a public key or a JWKS URL, tokens come from elsewhere).',
    );
  }
  const names = registry.resources.map((r) => r.name);
  if (!names.includes(users.resource))
    throw new DeclarationError(
      `security.users.resource: unknown resource "${users.resource}".${formatDidYouMean(users.resource, names)}`,
    );
  const resource = registry.resource(users.resource);
  const field = (option: string, name: string, accepts: (type: string | undefined) => boolean, what: string) => {
    const found = resource.fieldsByName.get(name);
    if (!found)
      throw new DeclarationError(
        `security.users.${option}: "${name}" is not a field of "${resource.name}".${formatDidYouMean(
          name,
          resource.fields.map((f) => f.name),
        )}`,
      );
    if (!accepts(found.kind === 'scalar' ? found.type : undefined))
      throw new DeclarationError(`security.users.${option}: "${name}" must be ${what}.`);
    return name;
  };
  for (const other of registry.resources) {
    for (const f of other.fields) {
      if (f.kind === 'toOne' && f.currentUser && f.target !== resource.name) {
        throw new DeclarationError(
          `Resource "${other.name}", field "${f.name}": currentUser needs a relation to the user resource "${resource.name}", not "${f.target}".`,
        );
      }
      if (f.kind === 'toOne' && f.blame && f.target !== resource.name) {
        throw new DeclarationError(
          `Resource "${other.name}", field "${f.name}": blame needs a relation to the user resource "${resource.name}", not "${f.target}".`,
        );
      }
    }
  }
  return {
    jwt: {
      ...jwt,
      clockTolerance: jwt.clockTolerance ?? 5,
      ttl: jwt.ttl ?? 3600,
      refreshTtl: jwt.refreshTtl ?? DEFAULT_REFRESH_TTL,
    },
    resource,
    identifier: field(
      'identifier',
      users.identifier ?? 'email',
      (t) => t === 'string' || t === 'text',
      'a string field',
    ),
    password: field('password', users.password ?? 'plainPassword', (t) => t === 'password', 'a password field'),
    roles: field('roles', users.roles ?? 'roles', (t) => t === 'string[]', 'a string[] field'),
    onRegister: users.onRegister,
    roleHierarchy: options.roleHierarchy ?? DEFAULT_ROLE_HIERARCHY,
    declaredRoles: collectDeclaredRoles(
      options.declaredRoles,
      options.roleHierarchy ?? DEFAULT_ROLE_HIERARCHY,
      registry,
    ),
    loginPath: loginPathOf(options),
  };
}
