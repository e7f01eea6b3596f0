/**
 * The NUL character (U+0000) has no place in text: PostgreSQL refuses it in text and jsonb columns, SQLite would store
 * it. Input carrying one is refused up front, the same way on every database.
 */

/** The property path of the first string (value or key) holding U+0000, or undefined. `''` is the root. */
export function findNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findNul(value[index], `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, member] of Object.entries(value)) {
    const child = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return child;
    const found = findNul(member, child);
    if (found !== undefined) return found;
  }
  return undefined;
}
