/**
 * Every resource of the bookshop. Four are declared with decorators (Author, Book, Category, Product) and five with
 * plain objects (Brand, User, Comment, Article, AuditEntry, MediaObject); the plugin takes both forms in one list.
 */
import type { ResourceInput } from '@resource-api/core';
import { Article } from './article.js';
import { AuditEntry } from './audit-entry.js';
import { Author } from './author.js';
import { Book } from './book.js';
import { Brand } from './brand.js';
import { Category } from './category.js';
import { Comment } from './comment.js';
import { MediaObject } from './media-object.js';
import { Product } from './product.js';
import { User } from './user.js';

export { Article, AuditEntry, Author, Book, Brand, Category, Comment, MediaObject, Product, User };

/** The resources, in the order the API lists them. */
export const resources: readonly ResourceInput[] = [
  Author,
  Book,
  User,
  Comment,
  Category,
  Brand,
  Product,
  Article,
  AuditEntry,
  MediaObject,
];
