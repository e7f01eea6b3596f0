/**
 * GraphQL names from short names, as API Platform's GraphQL names them: `book`, `books`, `createBook`,
 * `BookCursorConnection`.
 */
import pluralize from 'pluralize';
import { toLowerFirst } from '../metadata/naming.js';

export const toItemQueryName = (name: string): string => toLowerFirst(name);
export const toCollectionQueryName = (name: string): string => toLowerFirst(pluralize(name));
export const toMutationName = (verb: 'create' | 'update' | 'delete', name: string): string => `${verb}${name}`;
/** A custom read's query: the resource, then the operation's name (`Author` + `stats` → `authorStats`). */
export const toCustomQueryName = (resource: string, operation: string): string =>
  `${toLowerFirst(resource)}${operation.charAt(0).toUpperCase()}${operation.slice(1)}`;
/**
 * A custom write's mutation: the operation's name, then the resource (`publish` + `Article` → `publishArticle`), as API
 * Platform names them.
 */
export const toCustomMutationName = (operation: string, resource: string): string => `${operation}${resource}`;
/** A query-string variable as a GraphQL name: `author.name` → `author_name`. */
export const toArgumentName = (variable: string): string => variable.replace(/\./g, '_');
