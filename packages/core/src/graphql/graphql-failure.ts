/**
 * An error a resolver or a GraphQL hook throws: its message, the `extensions` the response's error carries, and the
 * HTTP status of a response that has no data. The shape mercurius reads (it looks for `extensions` and `statusCode`,
 * as on its own `ErrorWithProps`), defined here so that the schema and its resolvers load without mercurius: only the
 * endpoint needs it, and mercurius is an optional package (docs/graphql.md).
 */
export class GraphQLFailure extends Error {
  constructor(
    message: string,
    readonly extensions?: Record<string, unknown>,
    readonly statusCode = 200,
  ) {
    super(message);
  }
}
