/**
 * JSON-LD documents that are not items: the context of each type (`/api/contexts/Book`, and of each shape custom
 * operations send, `/api/contexts/AuthorStats`), of errors, violation lists and the entrypoint, and the entrypoint
 * itself (`GET /api`). `@vocab` is absolute, on the request's own host, so Hydra clients expand types to the classes
 * of the API documentation.
 */
import type { RESERVED_CONTEXT_NAMES } from '../../metadata/reserved-names.js';
import { findBuiltinOperation } from '../../metadata/builtin-operation.js';
import type { MetadataRegistry } from '../../metadata/types.js';
import { toLowerFirst } from '../../metadata/naming.js';
import { HYDRA_NS } from '../vocabulary.js';

/** Context names that exist besides the resources. */
export const BUILTIN_CONTEXTS = [
  'Entrypoint',
  'Error',
  'ConstraintViolationList',
] as const satisfies typeof RESERVED_CONTEXT_NAMES;

/** The URL of the Hydra API documentation, `http://host/api/docs.jsonld`. */
export const buildDocsUrl = (origin: string, registry: MetadataRegistry): string =>
  `${origin}${registry.prefix}/docs.jsonld`;

/** The context document of `name`, or undefined when no such type exists. */
export function buildContext(
  name: string,
  registry: MetadataRegistry,
  origin: string,
): Record<string, unknown> | undefined {
  const base: Record<string, unknown> = { '@vocab': `${buildDocsUrl(origin, registry)}#`, hydra: HYDRA_NS };
  // The violation list's terms expand through `@vocab` alone, as under API Platform's base context: `violations` is
  // `…/docs.jsonld#violations`, `propertyPath` `…/docs.jsonld#propertyPath`. API Platform Admin finds a violation's
  // field and message under exactly those IRIs (the part before `#` of the `violations` key, then `#propertyPath`);
  // under any other it shows a notification instead of the message under its field.
  if (name === 'Error' || name === 'ConstraintViolationList') return { '@context': base };
  if (name === 'Entrypoint') {
    for (const resource of listEntrypointResources(registry)) {
      base[toLowerFirst(resource.name)] = { '@id': `Entrypoint/${toLowerFirst(resource.name)}`, '@type': '@id' };
    }
    return { '@context': base };
  }
  // A resource's type, or a shape's (the output of a custom operation is rendered with `/api/contexts/<Shape>`).
  const resource = registry.resources.find((r) => r.name === name) ?? registry.shapes.find((s) => s.name === name);
  if (!resource) return undefined;
  for (const field of resource.fields) {
    base[field.name] = field.kind === 'scalar' ? field.iri : { '@id': field.iri, '@type': '@id' };
  }
  return { '@context': base };
}

/** Resources listed by the entrypoint: those with a collection GET, by name. */
export function listEntrypointResources(registry: MetadataRegistry) {
  return registry.resources
    .filter((r) => findBuiltinOperation(r, 'getCollection'))
    .sort((a, b) => toLowerFirst(a.name).localeCompare(toLowerFirst(b.name)));
}

/** `GET /api` as JSON-LD: one link per collection. */
export function buildEntrypoint(registry: MetadataRegistry): Record<string, unknown> {
  const body: Record<string, unknown> = {
    '@context': `${registry.prefix}/contexts/Entrypoint`,
    '@id': registry.prefix || '/',
    '@type': 'Entrypoint',
  };
  for (const resource of listEntrypointResources(registry)) body[toLowerFirst(resource.name)] = resource.collectionPath;
  return body;
}
