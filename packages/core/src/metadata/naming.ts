/** Names derived from a short name: snake_case, the English plural of the path, column names. */
import pluralize from 'pluralize';

/** `BookReview` → `book_review`; `createdAt` → `created_at`. */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** `Category` → `categories`; `BookReview` → `book_reviews` (API Platform's default path segments). */
export function toPathSegment(shortName: string): string {
  return pluralize(toSnakeCase(shortName));
}

/** `Book` → `book` (API Platform's `lcfirst`, used for entrypoint keys). */
export function toLowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** The sub-paths of the refresh and logout routes, under the login path. */
export const REFRESH_SUBPATH = '/refresh';
export const LOGOUT_SUBPATH = '/logout';
