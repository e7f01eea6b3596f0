/** Dates on the wire: RFC 3339 with an explicit offset, as API Platform writes them (`2015-03-01T10:00:00+00:00`). */

/**
 * `2015-03-01T10:00:00+00:00`, with milliseconds only when there are some, so a value read back equals what was sent.
 */
export function formatDateTime(value: Date): string {
  const iso = value.toISOString();
  return `${iso.endsWith('.000Z') ? iso.slice(0, -5) : iso.slice(0, -1)}+00:00`;
}
