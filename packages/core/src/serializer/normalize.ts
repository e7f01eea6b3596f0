/**
 * Normalization: an entity → the object sent to the client, in JSON-LD (`@id`, `@type`, IRIs for relations) or plain
 * JSON (the same without `@` keys). Which fields are rendered and how is worked out once per resource at start-up;
 * per item only the values are converted. Null values are left out, as API Platform 3 does by default.
 */
import type { FieldMetadata, MetadataRegistry, ResourceMetadata } from '../metadata/types.js';
import type { Entity } from '../state/contracts.js';
import { formatDateTime } from './datetime.js';
import { iriOf } from './iri.js';
import type { OutputFormat } from './vocabulary.js';

type ValueWriter = (value: unknown) => unknown;

interface FieldWriter {
  readonly name: string;
  readonly write: ValueWriter;
}

export interface Normalizer {
  /** A member of a collection, or an embedded item: `@id`, `@type`, then the fields. */
  item(resource: ResourceMetadata, entity: Entity, format: OutputFormat): Record<string, unknown>;
  /** A whole item response: the same with `@context` first (JSON-LD). */
  document(resource: ResourceMetadata, entity: Entity, format: OutputFormat): Record<string, unknown>;
}

export function createNormalizer(registry: MetadataRegistry, options: { skipNullValues: boolean }): Normalizer {
  const writerOf = (field: FieldMetadata): ValueWriter => {
    if (field.kind === 'toOne') {
      const target = registry.resource(field.target);
      return (id) => iriOf(target, id as number);
    }
    if (field.kind === 'toMany') {
      const target = registry.resource(field.target);
      return (ids) => (ids as number[]).map((id) => iriOf(target, id));
    }
    if (field.type === 'datetime') return (value) => formatDateTime(value as Date);
    return (value) => value;
  };

  const writers = new Map<string, readonly FieldWriter[]>(
    registry.resources.map((resource) => [
      resource.name,
      resource.fields.filter((f) => f.readable).map((f) => ({ name: f.name, write: writerOf(f) })),
    ]),
  );

  function fill(target: Record<string, unknown>, resource: ResourceMetadata, entity: Entity): Record<string, unknown> {
    target.id = entity.id;
    for (const { name, write } of writers.get(resource.name)!) {
      const value = entity[name];
      if (value === null || value === undefined) {
        if (!options.skipNullValues) target[name] = null;
        continue;
      }
      target[name] = write(value);
    }
    return target;
  }

  return {
    item(resource, entity, format) {
      if (format === 'json') return fill({}, resource, entity);
      return fill({ '@id': iriOf(resource, entity.id!), '@type': resource.name }, resource, entity);
    },
    document(resource, entity, format) {
      if (format === 'json') return fill({}, resource, entity);
      return fill(
        { '@context': `${registry.prefix}/contexts/${resource.name}`, '@id': iriOf(resource, entity.id!), '@type': resource.name },
        resource,
        entity,
      );
    },
  };
}
