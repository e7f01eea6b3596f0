/** GraphQL names from short names, as API Platform's GraphQL names them: `book`, `books`, `createBook`, `BookCursorConnection`. */
import pluralize from 'pluralize';
import { toLowerFirst } from '../metadata/naming.js';

export const itemQueryName = (name: string): string => toLowerFirst(name);
export const collectionQueryName = (name: string): string => toLowerFirst(pluralize(name));
export const mutationName = (verb: 'create' | 'update' | 'delete', name: string): string => `${verb}${name}`;
/** A query-string variable as a GraphQL name: `author.name` → `author_name`. */
export const argumentName = (variable: string): string => variable.replace(/\./g, '_');
