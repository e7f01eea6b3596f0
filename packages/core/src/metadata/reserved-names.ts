/**
 * Names the framework keeps for itself. The state selects a page's count and the columns of the items joined to a page
 * beside the table's own columns, under names with this prefix: a declared column may not start with it, so the two
 * never meet in one row (where the later would silently win).
 */
export const RESERVED_COLUMN_PREFIX = 'resource_api_';

/** The JSON-LD contexts the framework serves itself (`/api/contexts/Error`): no resource or shape may take the name. */
export const RESERVED_CONTEXT_NAMES: readonly string[] = ['Entrypoint', 'Error', 'ConstraintViolationList'];
