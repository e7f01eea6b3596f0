/**
 * A cache key for a set of serialization groups, whatever their names: the sorted names as JSON, so no name (one
 * holding a separator, or `*`) can make two different sets, or a set and "no groups" (null), share a key.
 */
export const toGroupsKey = (groups: ReadonlySet<string> | null): string =>
  groups === null ? 'null' : JSON.stringify([...groups].sort());
