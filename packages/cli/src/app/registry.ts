/** The frozen metadata of the config's resources, built with the config's naming options as the plugin builds it. */
import { buildMetadata, type MetadataRegistry, type ResourceMetadata } from '@resource-api/core';
import type { ResourceApiConfig } from '../config/config.js';

/** Whether the resource is stored in a table: not when it reads and writes through its own provider and processor. */
export const hasTable = (resource: ResourceMetadata): boolean => !(resource.provider && resource.processor);

export function buildRegistry(config: ResourceApiConfig): MetadataRegistry {
  return buildMetadata({
    resources: config.resources,
    ...(config.prefix === undefined ? {} : { prefix: config.prefix }),
    ...(config.pagination === undefined ? {} : { pagination: config.pagination }),
    ...(config.orderParameterName === undefined ? {} : { orderParameterName: config.orderParameterName }),
    ...(config.existsParameterName === undefined ? {} : { existsParameterName: config.existsParameterName }),
  });
}
