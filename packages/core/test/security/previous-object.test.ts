/** `previous_object` in securityPostDenormalize is the stored state, not the new one (PATCH and PUT, REST and GraphQL). */
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { call, useApp } from '../helpers.js';

const Doc = defineResource({
  name: 'Memo',
  fields: { title: { type: 'string' }, tags: { type: 'string[]', default: [] } },
  operations: [
    'post',
    'get',
    {
      kind: 'patch',
      securityPostDenormalize: "previous_object.title == 'old' and object.title == 'new' and previous_object != null",
    },
    { kind: 'put', securityPostDenormalize: "previous_object.title == 'old' and object.title == 'new'" },
  ],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('previous_object on $name', (database) => {
  const app = useApp(database, { resources: [Doc] });

  it('PATCH and PUT see the stored title as previous_object.title', async () => {
    expect((await call(app(), { method: 'POST', url: '/api/memos', payload: { title: 'old' } })).status).toBe(201);
    const patch = await call(app(), {
      method: 'PATCH',
      url: '/api/memos/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: { title: 'new' },
    });
    expect(patch.status, patch.text).toBe(200);
    expect((await call(app(), { method: 'POST', url: '/api/memos', payload: { title: 'old' } })).status).toBe(201);
    const put = await call(app(), { method: 'PUT', url: '/api/memos/2', payload: { title: 'new' } });
    expect(put.status, put.text).toBe(200);
    expect((await call(app(), { method: 'POST', url: '/api/memos', payload: { title: 'old' } })).status).toBe(201);
    const gql = await call(app(), {
      method: 'POST',
      url: '/graphql',
      payload: { query: 'mutation { updateMemo(input: { id: "/api/memos/3", title: "new" }) { memo { title } } }' },
    });
    expect(gql.body.errors, gql.text).toBeUndefined();
    expect(gql.body.data.updateMemo.memo.title).toBe('new');
  });
});
