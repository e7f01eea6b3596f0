/**
 * mercurius declares JSON schemas on its routes (the GraphQL request's querystring and body, and the response), and
 * Fastify compiles a route's schemas when the route is registered, that is before the server listens. The first
 * of them is the first ajv compilation of the process, paid while ajv's own code is still cold: in all about 70 ms
 * of the example app's start on a slow host, for a route many deployments rarely call.
 *
 * In the GraphQL routes' context the schemas are compiled on each route's first request instead, by the compilers
 * Fastify uses by default (@fastify/ajv-compiler with its default ajv settings, @fastify/fast-json-stringify-compiler):
 * the same validation, coercion and serialization, compiled later. The validator keeps ajv's convention that Fastify
 * reads (it returns `false` and holds the `errors`), so the answers to an invalid GraphQL request are unchanged.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifySchema, FastifySchemaCompiler, FastifySchemaValidationError, FastifySerializerCompiler } from 'fastify';

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };
type Serialize = (data: unknown) => string;

export function compileSchemasOnFirstUse(app: FastifyInstance): void {
  // Fastify's defaults when the server is given no `ajv` option: no custom ajv options, no ajv plugins.
  const buildValidator = AjvCompiler()({}, { customOptions: {}, plugins: [] }) as unknown as FastifySchemaCompiler<FastifySchema>;
  const buildSerializer = SerializerSelector()({}, {}) as unknown as FastifySerializerCompiler<FastifySchema>;

  app.setValidatorCompiler((route) => {
    let validate: Validate | undefined;
    const firstUse: Validate = (data) => {
      validate ??= buildValidator(route) as Validate;
      const valid = validate(data);
      firstUse.errors = validate.errors;
      return valid;
    };
    return firstUse;
  });

  app.setSerializerCompiler((route) => {
    let serialize: Serialize | undefined;
    return (data) => (serialize ??= buildSerializer(route) as Serialize)(data);
  });
}
