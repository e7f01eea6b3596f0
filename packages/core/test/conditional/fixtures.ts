/**
 * Resources of the conditional-request tests: a writer and its novels (embedded in the novel's GET through groups, and
 * a subresource), a ledger that requires If-Match, and a barrier that holds writers after their preconditions passed.
 */
import { defineResource, NotBlank } from '@resource-api/core';

export const Writer = defineResource({
  name: 'Writer',
  fields: {
    name: { type: 'string', groups: ['novel:read', 'writer:read'] },
    novels: { toMany: 'Novel', mappedBy: 'writer', subresource: true, groups: ['writer:read'] },
  },
  normalizationGroups: ['writer:read'],
});

/**
 * Writers of PUT and PATCH wait at `barrier` (when set) once their preconditions have passed and their body is
 * applied, just before the write: every writer has then checked the same state, and only the database can order them.
 */
export const gate: { barrier: Barrier | null } = { barrier: null };

export const Novel = defineResource({
  name: 'Novel',
  normalizationGroups: ['novel:read'],
  denormalizationGroups: ['novel:write'],
  securityPostDenormalize: async () => {
    await gate.barrier?.arrive();
    return true;
  },
  fields: {
    title: { type: 'string', constraints: [NotBlank()], groups: ['novel:read', 'novel:write'] },
    pages: { type: 'integer', default: 100, groups: ['novel:read', 'novel:write'] },
    tags: { type: 'string[]', default: [], groups: ['novel:read', 'novel:write'] },
    writer: { toOne: 'Writer', inversedBy: 'novels', nullable: true, groups: ['novel:read', 'novel:write'] },
  },
});

export const Ledger = defineResource({
  name: 'Ledger',
  requireIfMatch: true,
  fields: { label: { type: 'string' }, balance: { type: 'integer', default: 0 } },
});

export const resources = [Writer, Novel, Ledger];

/** Lets `parties` callers through together: each `arrive()` resolves once all of them have arrived. */
export interface Barrier {
  arrive(): Promise<void>;
}

export function createBarrier(parties: number): Barrier {
  let arrived = 0;
  let release!: () => void;
  const everyone = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    arrive() {
      arrived += 1;
      if (arrived === parties) release();
      return everyone;
    },
  };
}

/** A strong entity tag as the API sends it: a quoted base64url SHA-1. */
export const STRONG_ETAG = /^"[A-Za-z0-9_-]{27}"$/;

export const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' } as const;
