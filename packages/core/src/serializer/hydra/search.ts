/**
 * `hydra:search`: an IriTemplate listing every filter variable of a collection, with one `IriTemplateMapping` per
 * variable, so Hydra clients (API Platform Admin) discover the filters. Built once per resource.
 */
import { BoundedMemo } from '../../bounded-memo.js';
import type { FilterParameter, ResourceMetadata } from '../../metadata/types.js';

/** A collection path's search template, and its JSON: the same for every page of the path, so made once. */
export interface SearchTemplate {
  readonly template: Record<string, unknown>;
  /** A large part of a Hydra page's body, serialized once (figures: docs/performance.md). */
  readonly json: string;
}

/** Per resource, per path; bounded, as subresource paths vary with the parent's identifier. */
const cache = new WeakMap<ResourceMetadata, BoundedMemo<string, SearchTemplate | null>>();

/** Every parameter of the resource's filters, in declaration order. */
export const describeFilterParameters = (resource: ResourceMetadata): FilterParameter[] =>
  resource.filters.flatMap((f) => f.describe(resource));

/** The search template of the collection served at `path` (the collection path, or a subresource path). */
export function buildSearch(resource: ResourceMetadata, path: string): SearchTemplate | null {
  let byPath = cache.get(resource);
  if (!byPath) cache.set(resource, (byPath = new BoundedMemo(1000)));
  return byPath.remember(path, () => writeSearch(resource, path));
}

function writeSearch(resource: ResourceMetadata, path: string): SearchTemplate | null {
  const parameters = describeFilterParameters(resource);
  let search: SearchTemplate | null = null;
  if (parameters.length > 0) {
    const template = {
      '@type': 'hydra:IriTemplate',
      'hydra:template': `${path}{?${parameters.map((p) => p.variable).join(',')}}`,
      'hydra:variableRepresentation': 'BasicRepresentation',
      'hydra:mapping': parameters.map((p) => ({
        '@type': 'IriTemplateMapping',
        variable: p.variable,
        property: p.property,
        required: p.required,
      })),
    };
    search = { template, json: JSON.stringify(template) };
  }
  return search;
}
