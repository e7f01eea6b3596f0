/**
 * mercurius declares JSON schemas on its routes (the GraphQL request's querystring and body, and the response), and
 * Fastify compiles a route's schemas when the route is registered, that is before the server listens. The first
 * of them is the first ajv compilation of the process, paid while ajv's own code is still cold: a visible part of the
 * example app's start (docs/performance.md).
 *
 * In the GraphQL routes' context the schemas are compiled later instead, by the compilers Fastify uses by default
 * (@fastify/ajv-compiler with its default ajv settings, @fastify/fast-json-stringify-compiler): the same validation,
 * coercion and serialization. Each one is compiled by the warm-up right after the server listens
 * (`production/warm-up.ts`), or by the route's first request if that comes sooner. The validator keeps ajv's
 * convention that Fastify reads (it returns `false` and holds the `errors`), so the answers to an invalid GraphQL
 * request are unchanged.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type {
  FastifyInstance,
  FastifySchema,
  FastifySchemaCompiler,
  FastifySchemaValidationError,
  FastifySerializerCompiler,
} from 'fastify';

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };
type Serialize = (data: unknown) => string;

export interface FirstUseSchemas {
  /** Makes the context's validator and serializer compilers compile each schema when it is first needed. */
  install(app: FastifyInstance): void;
  /** The compilations not done yet, one step each. */
  pending(): (() => void)[];
}

/**
 * mercurius's response schema declares each error's `path` as strings, so the serializer wrote a list index as `"0"`;
 * the GraphQL specification (§7.1.2) has it a number. The schema gets its path members as numbers or strings.
 */
function withNumberedPaths(schema: FastifySchema): FastifySchema {
  const path = (
    schema as
      | { properties?: { errors?: { items?: { properties?: { path?: { items?: { type?: unknown } } } } } } }
      | undefined
  )?.properties?.errors?.items?.properties?.path;
  if (path?.items?.type !== 'string') return schema;
  const copy = structuredClone(schema) as FastifySchema & {
    properties: { errors: { items: { properties: { path: { items: unknown } } } } };
  };
  copy.properties.errors.items.properties.path.items = { type: ['integer', 'string'] };
  return copy;
}

export function createFirstUseSchemas(): FirstUseSchemas {
  // Made when first needed, too (an ajv instance): Fastify's defaults when the server is given no `ajv` option, that
  // is no custom ajv options and no ajv plugins.
  let validators: FastifySchemaCompiler<FastifySchema> | undefined;
  let serializers: FastifySerializerCompiler<FastifySchema> | undefined;
  const buildValidator: FastifySchemaCompiler<FastifySchema> = (route) =>
    (validators ??= AjvCompiler()(
      {},
      { customOptions: {}, plugins: [] },
    ) as unknown as FastifySchemaCompiler<FastifySchema>)(route);
  const buildSerializer: FastifySerializerCompiler<FastifySchema> = (route) =>
    (serializers ??= SerializerSelector()({}, {}) as unknown as FastifySerializerCompiler<FastifySchema>)(route);
  /** The compilations still to do; each removes itself when done. */
  const waiting = new Set<() => void>();

  /** `compile`, done once: by `pending()`'s step or by the first call, whichever comes first. */
  function once<T>(compile: () => T): () => T {
    let done: T | undefined;
    const get = (): T => {
      if (done === undefined) {
        done = compile();
        waiting.delete(get);
      }
      return done;
    };
    waiting.add(get);
    return get;
  }

  return {
    install(app) {
      app.setValidatorCompiler((route) => {
        const validate = once(() => buildValidator(route) as Validate);
        const firstUse: Validate = (data) => {
          const compiled = validate();
          const valid = compiled(data);
          firstUse.errors = compiled.errors;
          return valid;
        };
        return firstUse;
      });
      app.setSerializerCompiler((route) => {
        const serialize = once(
          () => buildSerializer({ ...route, schema: withNumberedPaths(route.schema) }) as Serialize,
        );
        return (data) => serialize()(data);
      });
    },
    // A copy: the warm-up takes steps off its list, and each compilation removes itself from `waiting`.
    pending: () => [...waiting],
  };
}
