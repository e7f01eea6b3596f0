/**
 * Optional peer dependencies (`pg`, `ioredis`, `mercurius`): missing, they stop the start with the package's name and the command
 * that installs it. The packed-install test (packages/create-resource-api) sees it for a real app without pg; here,
 * the rule itself: only "this package is missing" becomes that error.
 */
import { describe, expect, it } from 'vitest';
import { DeclarationError } from '../../src/errors.js';
import { importIfInstalled, importOptionalPackage } from '../../src/optional-package.js';

const missing = 'resource-api-no-such-package';

describe('importOptionalPackage', () => {
  it('names the package and how to install it when it is not installed', async () => {
    const load = () => import(missing);
    const failure = importOptionalPackage(missing, 'A test database', load);
    await expect(failure).rejects.toBeInstanceOf(DeclarationError);
    await expect(failure).rejects.toThrow(
      `A test database needs the "${missing}" package, which is not installed: add it to your app (npm install ${missing}).`,
    );
  });

  it('loads an installed package, and leaves any other failure as it is', async () => {
    const { default: pg } = await importOptionalPackage('pg', 'A PostgreSQL database', () => import('pg'));
    expect(typeof pg.Pool).toBe('function');
    const broken = new Error("Cannot find package 'something-pg-needs'");
    Object.assign(broken, { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importOptionalPackage('pg', 'A PostgreSQL database', () => Promise.reject(broken))).rejects.toBe(
      broken,
    );
  });
});

describe('importIfInstalled', () => {
  it('gives undefined for a package that is not installed, and the module for one that is', async () => {
    expect(await importIfInstalled(missing, () => import(missing))).toBeUndefined();
    const routes = await importIfInstalled('mercurius', () => import('../../src/graphql/graphql-routes.js'));
    expect(typeof routes?.registerGraphQLRoutes).toBe('function');
  });

  it('leaves any other failure as it is', async () => {
    const broken = new Error("Cannot find package 'something-mercurius-needs'");
    Object.assign(broken, { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importIfInstalled('mercurius', () => Promise.reject(broken))).rejects.toBe(broken);
  });
});
