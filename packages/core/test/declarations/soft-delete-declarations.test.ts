/** The `softDelete` option, with decorators and with plain objects: the same metadata, and clear start-up errors. */
import { describe, expect, it } from 'vitest';
import { ApiProperty, ApiResource, buildMetadata, DeclarationError, defineResource } from '@resource-api/core';

const PlainNote = defineResource({
  name: 'Note',
  softDelete: { list: "is_granted('ROLE_ADMIN')", listMessage: 'Admins only.' },
  fields: { text: { type: 'string' } },
});

@ApiResource({ softDelete: { list: "is_granted('ROLE_ADMIN')", listMessage: 'Admins only.' } })
class Note {
  @ApiProperty({ type: 'string' }) text!: string;
}

const build = (declaration: object) =>
  buildMetadata({
    resources: [defineResource({ name: 'Memo', fields: { text: { type: 'string' } }, ...declaration })],
  });

describe('declaring softDelete', () => {
  it('gives the same metadata with a decorator and with a plain object, with the field declared for it', () => {
    const plain = buildMetadata({ resources: [PlainNote] }).resource('Note');
    const decorated = buildMetadata({ resources: [Note] }).resource('Note');
    const { filter, ...rest } = plain.softDelete!;
    expect(rest).toEqual({
      field: 'deletedAt',
      column: 'deleted_at',
      list: { rule: "is_granted('ROLE_ADMIN')", message: 'Admins only.' },
    });
    const { filter: decoratedFilter, ...decoratedRest } = decorated.softDelete!;
    expect(decoratedRest).toEqual(rest);
    expect(decorated.fields).toEqual(plain.fields);
    expect(plain.fieldsByName.get('deletedAt')).toMatchObject({
      kind: 'scalar',
      type: 'datetime',
      nullable: true,
      writable: false,
      readable: true,
      column: 'deleted_at',
    });
    // The resource's filters end with the one every collection read applies; `deleted` is described.
    expect(plain.filters.at(-1)).toBe(filter);
    expect(filter.describe(plain).map((p) => p.variable)).toEqual(['deleted']);
    expect(decoratedFilter.describe(decorated).map((p) => p.variable)).toEqual(['deleted']);
  });

  it('takes true, a field name, or nothing', () => {
    expect(build({ softDelete: true }).resource('Memo').softDelete).toMatchObject({ field: 'deletedAt', list: null });
    expect(build({ softDelete: 'removedAt' }).resource('Memo').softDelete).toMatchObject({
      field: 'removedAt',
      column: 'removed_at',
    });
    expect(build({}).resource('Memo').softDelete).toBeNull();
    expect(build({ softDelete: false }).resource('Memo').softDelete).toBeNull();
    // Without a list rule the deleted items cannot be asked for: no parameter.
    const memo = build({ softDelete: true }).resource('Memo');
    expect(memo.softDelete!.filter.describe(memo)).toEqual([]);
  });

  it('refuses a wrong declaration at start-up, saying what is wrong', () => {
    const refused = (declaration: object, message: RegExp) => {
      expect(() => build(declaration)).toThrow(DeclarationError);
      expect(() => build(declaration)).toThrow(message);
    };
    refused({ softDelete: 3 }, /"softDelete" must be true, a field name or \{ field, list, restore \}/);
    refused({ softDelete: { fild: 'x' } }, /unknown option "fild"/);
    refused({ softDelete: 'text' }, /the field "text" must be a stored, nullable datetime field/);
    refused(
      { softDelete: 'gone', fields: { text: { type: 'string' }, gone: { type: 'datetime', nullable: true } } },
      /the field "gone" must not be writable/,
    );
    refused({ softDelete: { list: 'is_granted(' } }, /softDelete\.list/);
    refused({ softDelete: { restore: 'is_granted(' } }, /Resource "Memo", operation "restore"/);
    refused(
      { softDelete: { restore: 3 } },
      /operation "restore": "security" must be an expression string or a function/,
    );
    // A declared operation of the same name, or on the same route, is refused as two custom operations would be.
    refused(
      {
        softDelete: { restore: "is_granted('ROLE_ADMIN')" },
        operations: ['get', { kind: 'post', name: 'restore', uriTemplate: '/memos/{id}/undelete', input: false }],
      },
      /operation "restore": another custom operation of "Memo" has this name/,
    );
    refused(
      {
        softDelete: { restore: "is_granted('ROLE_ADMIN')" },
        operations: ['get', { kind: 'patch', name: 'undelete', uriTemplate: '/memos/{id}/restore', input: false }],
      },
      /PATCH \/api\/memos\/\{id\}\/restore/,
    );
  });

  it('adds the restore operation when a restore rule is declared, the same both ways', () => {
    @ApiResource({
      operations: [{ kind: 'get', normalizationGroups: ['read'] }],
      softDelete: { restore: "is_granted('ROLE_ADMIN')", restoreMessage: 'Admins restore.' },
    })
    class Entry {
      @ApiProperty({ type: 'string', groups: ['read'] }) text!: string;
    }
    const PlainEntry = defineResource({
      name: 'Entry',
      operations: [{ kind: 'get', normalizationGroups: ['read'] }],
      softDelete: { restore: "is_granted('ROLE_ADMIN')", restoreMessage: 'Admins restore.' },
      fields: { text: { type: 'string', groups: ['read'] } },
    });
    const plain = buildMetadata({ resources: [PlainEntry] }).resource('Entry');
    const decorated = buildMetadata({ resources: [Entry] }).resource('Entry');
    expect(decorated.operations).toEqual(plain.operations);
    const restore = plain.operations.find((operation) => operation.restores)!;
    expect(restore).toMatchObject({
      kind: 'patch',
      customName: 'restore',
      name: 'api_entries_id_restore_patch',
      method: 'PATCH',
      uriTemplate: '/api/entries/{id}/restore',
      status: 200,
      inputFormats: [],
      input: null,
      writeMode: null,
      // As its GET renders the item.
      normalizationGroups: ['read'],
      security: { rule: "is_granted('ROLE_ADMIN')", message: 'Admins restore.' },
      stages: { read: true, deserialize: false, validate: true, write: true, serialize: true },
    });
    expect(plain.operations.filter((operation) => operation.restores)).toHaveLength(1);
    // Without a restore rule, no such operation; the default operations are kept beside it.
    expect(
      build({ softDelete: true })
        .resource('Memo')
        .operations.some((o) => o.restores),
    ).toBe(false);
    const defaults = build({ softDelete: { restore: "is_granted('ROLE_ADMIN')" } }).resource('Memo').operations;
    expect(defaults.map((o) => o.customName ?? o.kind)).toEqual([
      'getCollection',
      'post',
      'get',
      'put',
      'patch',
      'delete',
      'restore',
    ]);
  });
});
