/** The frozen metadata of the config's resources, built with the config's naming options as the plugin builds it. */
import { buildMetadata, type MetadataRegistry } from '@resource-api/core';
import type { ResourceApiConfig } from '../config/config.js';

export function buildRegistry(config: ResourceApiConfig): MetadataRegistry {
  return buildMetadata({
    resources: config.resources,
    ...(config.prefix === undefined ? {} : { prefix: config.prefix }),
    ...(config.pagination === undefined ? {} : { pagination: config.pagination }),
    ...(config.orderParameterName === undefined ? {} : { orderParameterName: config.orderParameterName }),
    ...(config.existsParameterName === undefined ? {} : { existsParameterName: config.existsParameterName }),
  });
}
