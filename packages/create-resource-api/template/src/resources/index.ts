import { Book } from './book.js';

/** Every resource of the API: the server (src/app.ts) and the `resource-api` command (resource-api.config.js) use it. */
export const resources = [Book];
