/**
 * The channel an app's instances hand each other their updates on, by default: one per schema of the database, so that
 * two apps sharing a database in schemas of their own (or a Redis) keep their updates apart. PostgreSQL limits a
 * channel's name to 63 bytes, which the Redis bus keeps to as well: both buses name an app's channel alike.
 */
export const toBusChannel = (schema: string | undefined): string =>
  `resource_api_mercure:${schema ?? 'public'}`.slice(0, 63);
