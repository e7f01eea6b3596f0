/**
 * Packages the framework loads only for an app that uses them: `pg` for a PostgreSQL URL, `ioredis` for a Redis rate
 * limit store or Mercure bus. They are optional peer dependencies (issue 36): an app on SQLite installs neither. An app
 * that needs one and lacks it stops at start-up with the package's name and the command that installs it, not with
 * Node's "Cannot find package".
 */
import { DeclarationError } from './errors.js';

/** Whether `error` is Node's "Cannot find package" for `name` itself (not for something `name` imports). */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(`'${name}'`)
  );
}

/**
 * `load()` (an `import()` of `name`), or a DeclarationError naming the package when it is not installed. `usedFor`
 * says what needs it: `DATABASE_URL postgres://…`.
 */
export async function importOptionalPackage<T>(name: string, usedFor: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new DeclarationError(
      `${usedFor} needs the "${name}" package, which is not installed: add it to your app (npm install ${name}).`,
    );
  }
}

/**
 * `load()` (an `import()` of something that imports `name`), or undefined when `name` is not installed: for a feature
 * that is on by default when its package is there, as GraphQL is with mercurius.
 */
export async function importIfInstalled<T>(name: string, load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    return undefined;
  }
}
