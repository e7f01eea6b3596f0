/** A complexity limit: the number of fields a query selects (fragments expanded), refused above the maximum. */
import { type ASTVisitor, GraphQLError, Kind, type SelectionSetNode, type ValidationContext } from 'graphql';

export function maxComplexityRule(maximum: number) {
  return (context: ValidationContext): ASTVisitor => {
    const count = (selections: SelectionSetNode | undefined, seen: Set<string>): number => {
      let total = 0;
      for (const selection of selections?.selections ?? []) {
        if (selection.kind === Kind.FIELD) total += 1 + count(selection.selectionSet, seen);
        else if (selection.kind === Kind.INLINE_FRAGMENT) total += count(selection.selectionSet, seen);
        else if (!seen.has(selection.name.value)) {
          const fragment = context.getFragment(selection.name.value);
          total += count(fragment?.selectionSet, new Set([...seen, selection.name.value]));
        }
        if (total > maximum) return total;
      }
      return total;
    };
    return {
      OperationDefinition(node) {
        const total = count(node.selectionSet, new Set());
        if (total > maximum) context.reportError(new GraphQLError(`The query is too complex: it selects more than ${maximum} fields.`, { nodes: [node] }));
      },
    };
  };
}
