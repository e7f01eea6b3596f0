/**
 * `hydra:search`: an IriTemplate listing every filter variable of a collection, with one `IriTemplateMapping` per
 * variable, so Hydra clients (API Platform Admin) discover the filters. Built once per resource.
 */
import type { ResourceMetadata } from '../../metadata/types.js';
import type { FilterParameter } from '../../query/filter.js';

const cache = new WeakMap<ResourceMetadata, Record<string, unknown> | null>();

/** Every parameter of the resource's filters, in declaration order. */
export const filterParameters = (resource: ResourceMetadata): FilterParameter[] => resource.filters.flatMap((f) => f.describe(resource));

export function buildSearch(resource: ResourceMetadata): Record<string, unknown> | null {
  if (cache.has(resource)) return cache.get(resource)!;
  const parameters = filterParameters(resource);
  const search =
    parameters.length === 0
      ? null
      : {
          '@type': 'hydra:IriTemplate',
          'hydra:template': `${resource.collectionPath}{?${parameters.map((p) => p.variable).join(',')}}`,
          'hydra:variableRepresentation': 'BasicRepresentation',
          'hydra:mapping': parameters.map((p) => ({ '@type': 'IriTemplateMapping', variable: p.variable, property: p.property, required: p.required })),
        };
  cache.set(resource, search);
  return search;
}
