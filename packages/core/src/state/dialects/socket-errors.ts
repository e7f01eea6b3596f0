/**
 * The socket's error codes that mean the database server cannot be reached now (down, restarting, unreachable, its
 * name not resolved): the same on every networked database, since they come from Node.js, not from the driver. Each
 * dialect adds its server's own codes.
 */
export const SOCKET_UNAVAILABLE_CODES: readonly string[] = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
];
