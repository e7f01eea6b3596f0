/**
 * `hydra:search`: an IriTemplate listing every filter variable of a collection, with one `IriTemplateMapping` per
 * variable, so Hydra clients (API Platform Admin) discover the filters. Built once per resource.
 */
import type { ResourceMetadata } from '../../metadata/types.js';
import type { FilterParameter } from '../../query/filter.js';

const cache = new WeakMap<ResourceMetadata, Map<string, Record<string, unknown> | null>>();

/** Every parameter of the resource's filters, in declaration order. */
export const filterParameters = (resource: ResourceMetadata): FilterParameter[] => resource.filters.flatMap((f) => f.describe(resource));

/** The search template of the collection served at `path` (the collection path, or a subresource path). */
export function buildSearch(resource: ResourceMetadata, path: string): Record<string, unknown> | null {
  let byPath = cache.get(resource);
  if (!byPath) cache.set(resource, (byPath = new Map()));
  if (byPath.has(path)) return byPath.get(path)!;
  if (byPath.size > 1000) byPath.clear(); // subresource paths vary with the parent id: keep the cache bounded
  const parameters = filterParameters(resource);
  const search =
    parameters.length === 0
      ? null
      : {
          '@type': 'hydra:IriTemplate',
          'hydra:template': `${path}{?${parameters.map((p) => p.variable).join(',')}}`,
          'hydra:variableRepresentation': 'BasicRepresentation',
          'hydra:mapping': parameters.map((p) => ({ '@type': 'IriTemplateMapping', variable: p.variable, property: p.property, required: p.required })),
        };
  byPath.set(path, search);
  return search;
}

const serialized = new WeakMap<Record<string, unknown>, string>();

/**
 * The JSON of a search template from `buildSearch`, serialized once: the same object comes back for every page of a
 * collection path, and it is about 40 % of a Hydra page's body and of the time JSON.stringify spends on one.
 */
export function searchJson(search: Record<string, unknown>): string {
  let json = serialized.get(search);
  if (json === undefined) serialized.set(search, (json = JSON.stringify(search)));
  return json;
}
