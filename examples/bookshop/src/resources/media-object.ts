/**
 * MediaObject — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/media_objects`: an image uploaded with `multipart/form-data` (one part, `file`), judged by its bytes (PNG,
 * JPEG or WebP, up to 2 MB), stored by the plugin's `uploads` storage and served at its `contentUrl` (`/media/<name>`).
 * A book's `cover` points to one. See docs/uploads.md.
 */
import { defineResource, type Entity, File, isStoredFile, NotNull } from '@resource-api/core';

/** The stored file of a media object (its `file` field is never sent: the fields below show it). */
const storedFileOf = (item: Entity) => (isStoredFile(item.file) ? item.file : null);

export const MediaObject = defineResource({
  name: 'MediaObject',
  description: 'An image (a book cover), uploaded with multipart/form-data.',
  // Its items' @type, as API Platform's MediaObject example declares it.
  types: ['https://schema.org/MediaObject'],
  // POST ROLE_USER; GET (item and collection) public.
  operations: ['getCollection', 'get', { kind: 'post', security: "is_granted('ROLE_USER')" }],
  fields: {
    file: {
      type: 'file',
      description: 'The image: PNG, JPEG or WebP (judged from its bytes), up to 2 MB.',
      constraints: [NotNull(), File({ maxSize: '2M', mimeTypes: ['image/png', 'image/jpeg', 'image/webp'] })],
    },
    contentUrl: {
      type: 'string',
      iri: 'https://schema.org/contentUrl',
      description: 'Where the image is served.',
      computed: (item) => `/media/${storedFileOf(item)?.name}`,
    },
    contentSize: {
      type: 'integer',
      iri: 'https://schema.org/contentSize',
      description: 'Its size in bytes.',
      computed: (item) => storedFileOf(item)?.size,
    },
    encodingFormat: {
      type: 'string',
      iri: 'https://schema.org/encodingFormat',
      description: 'Its media type, judged from its bytes.',
      computed: (item) => storedFileOf(item)?.mimeType,
    },
  },
});
