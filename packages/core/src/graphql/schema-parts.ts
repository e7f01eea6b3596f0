/** What the builders of the schema's fields share: the metadata, its read model, the types and the names taken. */
import type { MetadataRegistry } from '../metadata/types.js';
import type { InputTypes } from './input-types.js';
import type { NameClaims } from './name-claims.js';
import type { OutputTypes } from './output-types.js';
import type { ReadModel } from './read-model.js';

export interface SchemaParts {
  readonly registry: MetadataRegistry;
  readonly model: ReadModel;
  readonly types: OutputTypes;
  readonly inputs: InputTypes;
  readonly names: NameClaims;
}
