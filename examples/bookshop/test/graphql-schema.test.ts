/** The bookshop's GraphQL schema, as SDL, kept in a readable snapshot: a change to it shows in review. */
import { describe, expect, it } from 'vitest';
import { buildMetadata, printGraphQLSchema } from '@resource-api/core';
import { resources } from '../src/app.js';

describe('the bookshop GraphQL schema', () => {
  it('matches the reviewed SDL in bookshop.graphql', async () => {
    await expect(printGraphQLSchema(buildMetadata({ resources }))).toMatchFileSnapshot(
      './__snapshots__/bookshop.graphql',
    );
  });
});
