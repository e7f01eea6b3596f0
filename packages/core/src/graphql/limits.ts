/**
 * The complexity limit: the number of fields an operation selects, fragments expanded (a fragment spread twice counts
 * twice). It runs before graphql-js validates the document (mercurius's `preValidation` hook), since some of
 * graphql-js's own rules take time that grows faster than the document: a field repeated under one name 80,000 times
 * costs `OverlappingFieldsCanBeMergedRule` billions of comparisons. So the count itself must stay linear: each
 * fragment's cost is worked out once, and a fragment that spreads itself refuses the document at once, with the error
 * graphql-js would give (counting through the cycle never ends; skipping it would leave the rest to validation).
 */
import { type DocumentNode, Kind, type SelectionSetNode } from 'graphql';

/** Why the document is refused, or undefined when every operation selects at most `maximum` fields. */
export function tooComplex(document: DocumentNode, maximum: number): string | undefined {
  const fragments = new Map(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.selectionSet] as const] : [])));
  const costs = new Map<string, number>();
  const counting = new Set<string>();
  /** Thrown out of the count when a fragment spreads itself. */
  class Cycle {
    constructor(readonly fragment: string) {}
  }

  const count = (selections: SelectionSetNode | undefined): number => {
    let total = 0;
    for (const selection of selections?.selections ?? []) {
      if (selection.kind === Kind.FIELD) total += 1 + count(selection.selectionSet);
      else if (selection.kind === Kind.INLINE_FRAGMENT) total += count(selection.selectionSet);
      else total += fragmentCost(selection.name.value);
      // Past the maximum the rest need not be counted: the answer is the same.
      if (total > maximum) return total;
    }
    return total;
  };
  const fragmentCost = (name: string): number => {
    const known = costs.get(name);
    if (known !== undefined) return known;
    if (counting.has(name)) throw new Cycle(name);
    counting.add(name);
    const cost = count(fragments.get(name));
    counting.delete(name);
    costs.set(name, cost);
    return cost;
  };

  // Fragments no operation spreads are counted too: validation reads them all the same.
  try {
    for (const definition of document.definitions) {
      const cost = definition.kind === Kind.OPERATION_DEFINITION ? count(definition.selectionSet) : definition.kind === Kind.FRAGMENT_DEFINITION ? fragmentCost(definition.name.value) : 0;
      if (cost > maximum) return tooMany(maximum);
    }
  } catch (error) {
    if (error instanceof Cycle) return `Cannot spread fragment "${error.fragment}" within itself.`;
    // Nested deeper than the stack: far past any maximum.
    if (error instanceof RangeError) return tooMany(maximum);
    throw error;
  }
  return undefined;
}

const tooMany = (maximum: number) => `The query is too complex: it selects more than ${maximum} fields.`;
