/**
 * The limits of a GraphQL document: the number of fields an operation selects, fragments expanded (a fragment spread
 * twice counts twice), how deep its fields nest, how many aliases it uses (fragments expanded too: each alias is one
 * more run of a resolver, as `b1: books … b30: books` runs the collection query 30 times) and how many root fields its
 * mutations hold (each is a write of its own, run one after the other). They are checked before graphql-js validates
 * the document (mercurius's `preValidation` hook), since some of graphql-js's own rules take time that grows faster
 * than the document: a field repeated under one name 80,000 times costs `OverlappingFieldsCanBeMergedRule` billions of
 * comparisons. So the walk itself stays linear: each fragment is measured once, and a fragment that spreads itself
 * refuses the document at once, with the error graphql-js would give (walking through the cycle never ends; skipping
 * it would leave the rest to validation).
 *
 * The depth counts fields (a fragment, named or inline, adds no level) and leaves out what is under `__schema` and
 * `__type`: the introspection query of GraphiQL and of client generators nests 15 levels (`ofType` in `ofType`), and
 * graphql-js's own `MaxIntrospectionDepthRule` already refuses introspection that multiplies (`fields { type { fields
 * … } } }`).
 */
import { type DocumentNode, Kind, type SelectionSetNode } from 'graphql';

export interface DocumentLimits {
  /** The most fields one operation may select, fragments expanded. */
  readonly maxComplexity: number;
  /** The deepest an operation's fields may nest (introspection left out). */
  readonly maxDepth: number;
  /** The most aliases one operation may use, fragments expanded. */
  readonly maxAliases: number;
  /** The most root fields the mutations of one document may hold, fragments expanded. */
  readonly maxRootMutations: number;
}

/** Fields selected, the levels of fields below (introspection left out), aliases, and fields at the top level. */
interface Measure {
  readonly fields: number;
  readonly depth: number;
  readonly aliases: number;
  readonly top: number;
}

const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

/** Thrown out of the walk when a fragment spreads itself. */
class Cycle {
  constructor(readonly fragment: string) {}
}

/** Why the document is refused, or undefined when every operation and fragment is within the limits. */
export function findExceededLimit(document: DocumentNode, limits: DocumentLimits): string | undefined {
  const { maxComplexity, maxDepth, maxAliases, maxRootMutations } = limits;
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.selectionSet] as const] : [],
    ),
  );
  const measured = new Map<string, Measure>();
  const measuring = new Set<string>();

  const measure = (selections: SelectionSetNode | undefined): Measure => {
    let fields = 0;
    let depth = 0;
    let aliases = 0;
    let top = 0;
    for (const selection of selections?.selections ?? []) {
      let inner: Measure;
      if (selection.kind === Kind.FIELD) {
        const below = measure(selection.selectionSet);
        inner = {
          fields: 1 + below.fields,
          depth: INTROSPECTION_ROOTS.has(selection.name.value) ? 0 : 1 + below.depth,
          aliases: (selection.alias ? 1 : 0) + below.aliases,
          top: 1,
        };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) inner = measure(selection.selectionSet);
      else inner = measureFragment(selection.name.value);
      fields += inner.fields;
      depth = Math.max(depth, inner.depth);
      aliases += inner.aliases;
      top += inner.top;
      // Past the maximum the rest need not be measured: the answer is the same.
      if (fields > maxComplexity) break;
    }
    return { fields, depth, aliases, top };
  };
  const measureFragment = (name: string): Measure => {
    const known = measured.get(name);
    if (known) return known;
    if (measuring.has(name)) throw new Cycle(name);
    measuring.add(name);
    const result = measure(fragments.get(name));
    measuring.delete(name);
    measured.set(name, result);
    return result;
  };

  // Fragments no operation spreads are counted too, since validation reads them all the same; their depth counts
  // only where an operation spreads them (a fragment of introspection types is deep, and is not counted there).
  let rootMutations = 0;
  try {
    for (const definition of document.definitions) {
      // Each definition's own selections: a name defined twice (which validation refuses) keeps only one in the map.
      if (definition.kind === Kind.FRAGMENT_DEFINITION && measure(definition.selectionSet).fields > maxComplexity)
        return tooMany(maxComplexity);
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const { fields, depth, aliases, top } = measure(definition.selectionSet);
      if (fields > maxComplexity) return tooMany(maxComplexity);
      if (depth > maxDepth) return `The query is too deep: its depth is ${depth}, more than the limit of ${maxDepth}.`;
      if (aliases > maxAliases)
        return `The query uses too many aliases: ${aliases}, more than the limit of ${maxAliases} (graphql.maxAliases). Send the fields in several requests.`;
      if (definition.operation === 'mutation') rootMutations += top;
    }
  } catch (error) {
    if (error instanceof Cycle) return `Cannot spread fragment "${error.fragment}" within itself.`;
    // Nested deeper than the stack: far past any limit.
    if (error instanceof RangeError) return tooMany(maxComplexity);
    throw error;
  }
  if (rootMutations > maxRootMutations) {
    return `The document holds too many mutations: ${rootMutations} root mutation fields, more than the limit of ${maxRootMutations} (graphql.maxRootMutations). Send them in several requests.`;
  }
  return undefined;
}

const tooMany = (maximum: number) => `The query is too complex: it selects more than ${maximum} fields.`;
