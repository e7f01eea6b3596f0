/**
 * The fuzz test's model of the bookshop's data: every item as the accepted writes left it, keyed by IRI. A write the
 * API accepted (200, 201, 204) updates the model; anything else leaves it alone. `expectStoredAsModelled` then
 * reads every collection through the API, and the row counts straight from the database, and insists on equality.
 *
 * Items are compared by their own fields: relations by IRI (an embedded category or brand by its `@id`, its name
 * checked against the model of that item), inverse to-many fields (an author's `books`, a user's `comments`)
 * recomputed from the model of the other side.
 *
 * The audit trail too: every accepted write of a book or an article adds exactly one `AuditEntry` (naming the item and
 * the action), and nothing else does: the entries are counted against the accepted writes.
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { bearer, call } from './support.js';
import { COLLECTIONS, type Collection, type Ref } from './fuzz-arbitraries.js';

type Item = Record<string, unknown>;

/** Table per collection, for the row counts. */
const TABLES: Record<Collection, string> = {
  authors: 'author',
  books: 'book',
  users: 'user',
  comments: 'comment',
  categories: 'category',
  brands: 'brand',
  products: 'product',
  articles: 'article',
};

/** Fields that are the inverse side of a relation: they change when the other side is written. */
const INVERSE: Partial<Record<Collection, { field: string; of: Collection; by: string }>> = {
  authors: { field: 'books', of: 'books', by: 'author' },
  users: { field: 'comments', of: 'comments', by: 'user' },
};

export const collectionOf = (iri: string): Collection => iri.split('/')[2] as Collection;
const idOf = (iri: string): number => Number(iri.split('/').pop());

/** An item with embedded relations reduced to their IRIs, inverse fields and the `@context` of item responses left out. */
function project(item: Item): Item {
  const collection = collectionOf(item['@id'] as string);
  const projected: Item = {};
  for (const [key, value] of Object.entries(item)) {
    if (INVERSE[collection]?.field === key || key === '@context') continue;
    projected[key] =
      value !== null && typeof value === 'object' && !Array.isArray(value) && '@id' in value
        ? (value as Item)['@id']
        : value;
  }
  return projected;
}

/** The bookshop's relation fields: only their values are IRIs of other items (a name may look like one). */
const RELATIONS = new Set(['author', 'books', 'owner', 'user', 'comments', 'category', 'brand', 'products']);

/** IRIs of the items a response item points at (relations, embedded or not). */
function relatedIris(item: Item): string[] {
  const found: string[] = [];
  for (const [key, value] of Object.entries(item)) {
    if (!RELATIONS.has(key)) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v === 'string' && /^\/api\/[a-z]+\/\d+$/.test(v)) found.push(v);
      else if (v !== null && typeof v === 'object' && typeof (v as Item)['@id'] === 'string')
        found.push((v as Item)['@id'] as string);
    }
  }
  return found;
}

/** The collections whose writes the audit trail records. */
const AUDITED = new Set<Collection>(['books', 'articles']);
const ACTIONS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

export class BookshopModel {
  private readonly items = new Map<string, Item>();
  /** The audit entries the accepted writes should have added, after those found by `load()`: `[action, resource]`. */
  private audited: [string, string][] = [];
  private auditedBefore = 0;

  constructor(
    private readonly app: FastifyInstance,
    private readonly adminToken: string,
  ) {}

  /** The IRIs of a collection's items, in id order. */
  iris(collection: Collection): string[] {
    return [...this.items.keys()].filter((iri) => collectionOf(iri) === collection).sort((a, b) => idOf(a) - idOf(b));
  }

  /** The path segment a Ref stands for: an existing item's id (wrapping around), or its missing id. */
  resolve(ref: Ref): string {
    if (ref.missing !== undefined) return ref.missing;
    const iris = this.iris(ref.collection);
    return iris.length === 0 ? '99999' : String(idOf(iris[ref.index % iris.length]!));
  }

  get(iri: string): Item | undefined {
    return this.items.get(iri);
  }

  private async read(iri: string): Promise<Item> {
    const response = await call(this.app, { method: 'GET', url: iri, headers: bearer(this.adminToken) });
    expect(response.status, `GET ${iri}: ${response.text.slice(0, 300)}`).toBe(200);
    return response.body as Item;
  }

  /** Loads every item the API lists: the starting point. */
  async load(): Promise<void> {
    this.items.clear();
    this.audited = [];
    this.auditedBefore = (await this.auditTrail()).length;
    for (const collection of COLLECTIONS)
      for (const item of await this.list(collection)) this.items.set(item['@id'] as string, project(item));
  }

  /**
   * An accepted write: the item as stored, or gone. The item is read back as the admin (who sees every field); the
   * write's own response must show the same values (it may show fewer fields: a user does not see `roles`). Items
   * it points at that the model does not know (created by a cascade), or that a nested write may have changed, are
   * read back too.
   */
  async accept(method: string, iri: string, body: Item | undefined, nestedWrite: boolean): Promise<void> {
    if (AUDITED.has(collectionOf(iri))) this.audited.push([ACTIONS[method]!, iri]);
    if (method === 'DELETE') {
      this.items.delete(iri);
      return;
    }
    const stored = project(await this.read(iri));
    const answered = project(body!);
    for (const [key, value] of Object.entries(answered))
      expect(stored[key], `${iri}.${key} as answered and as stored`).toEqual(value);
    this.items.set(iri, stored);
    for (const related of relatedIris(body!)) {
      if (!this.items.has(related) || nestedWrite) this.items.set(related, project(await this.read(related)));
    }
  }

  private async list(collection: Collection): Promise<Item[]> {
    const response = await call(this.app, {
      method: 'GET',
      url: `/api/${collection}?pagination=false`,
      headers: bearer(this.adminToken),
    });
    expect(response.status, `GET /api/${collection}: ${response.text.slice(0, 300)}`).toBe(200);
    return response.body['hydra:member'] as Item[];
  }

  /** Every audit entry, in id order, as `[action, resource]`. */
  private async auditTrail(): Promise<[string, string][]> {
    const response = await call(this.app, {
      method: 'GET',
      url: '/api/audit_entries?pagination=false&order[id]=asc',
      headers: bearer(this.adminToken),
    });
    expect(response.status, `GET /api/audit_entries: ${response.text.slice(0, 300)}`).toBe(200);
    return (response.body['hydra:member'] as Item[]).map((entry) => [entry.action as string, entry.resource as string]);
  }

  /** Every collection, read through the API and counted in the database, is exactly the model; so is the audit trail. */
  async expectStoredAsModelled(): Promise<void> {
    expect((await this.auditTrail()).slice(this.auditedBefore), 'audit entries of the accepted writes').toEqual(
      this.audited,
    );
    const { knex } = this.app.resourceApi.database;
    for (const collection of COLLECTIONS) {
      const listed = await this.list(collection);
      const expected = this.iris(collection).map((iri) => this.items.get(iri));
      expect(listed.map(project), `${collection} as listed`).toEqual(expected);
      // Comments are soft-deleted: their rows stay, stamped, and only the live ones are the model's.
      const rows = knex(TABLES[collection]);
      if (collection === 'comments') rows.whereNull('deleted_at');
      const [counted] = await rows.count({ n: '*' });
      expect(Number(counted?.n), `${collection} rows`).toBe(expected.length);
      for (const item of listed) this.expectConsistent(collection, item);
    }
  }

  /** What an item shows of other items agrees with the model of those items. */
  private expectConsistent(collection: Collection, item: Item): void {
    const inverse = INVERSE[collection];
    if (inverse && inverse.field in item) {
      const pointing = this.iris(inverse.of).filter((iri) => this.items.get(iri)![inverse.by] === item['@id']);
      expect(item[inverse.field], `${item['@id'] as string}.${inverse.field}`).toEqual(pointing);
    }
    for (const value of Object.values(item)) {
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'name' in value) {
        const embedded = value as Item;
        expect(embedded.name, `${embedded['@id'] as string} embedded in ${item['@id'] as string}`).toBe(
          this.items.get(embedded['@id'] as string)?.name,
        );
      }
    }
  }
}
