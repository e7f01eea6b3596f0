/**
 * Writes docs/reference.md from the doc comments of @resource-api/core's public declaration types, read with the
 * TypeScript compiler API, so the reference cannot drift from the code: one section per type (the plugin's options,
 * the declaration types and every option type they reach), one row per option with its type and its comment, types
 * linked to their sections, and the constraints. An option without a doc comment is reported, and the test fails.
 *
 * Run: `pnpm docs:reference` (the test docs/test/reference.test.ts compares the committed file with this output).
 */
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const coreSource = join(root, 'packages/core/src');

/** Where the reference starts; every option type these reach gets its own section, in the order found. */
const ROOTS = [
  'ResourceApiOptions',
  'ProductionOptions',
  'ResourceDeclaration',
  'ApiResourceOptions',
  'FieldDeclaration',
  'OperationDeclaration',
  'FilterDeclaration',
  'FieldFilterOptions',
  'PaginationDeclaration',
  'GroupsDeclaration',
  'ValidationGroupsDeclaration',
  'SubresourceOptions',
  'ConstraintOptions',
  'DatabaseOptions',
  'BuildMetadataOptions',
  'GenerateMigrationOptions',
  'MigrationOptions',
];

/**
 * Runtime contracts rather than options: types declared in these files get no section of their own (their members
 * are not options), but a link to the guide that explains them. Value types there (unions of literals, such as
 * `OrderDirection`) are options' values and get their section all the same.
 */
const CONTRACTS: Record<string, string> = {
  'metadata/types.ts': 'declaring-resources.md',
  'openapi/build-openapi.ts': 'api-docs.md#customizing',
};

/**
 * The contracts of those files that a guide explains in a section of their own: the persistence contracts and the
 * filter contract, declared with the metadata in `metadata/types.ts` (each refers to the other).
 */
const STATE_GUIDE = 'declaring-resources.md#custom-state-providers-and-processors';
const CONTRACT_SECTIONS: Record<string, string> = {
  ...Object.fromEntries(
    [
      'Entity',
      'CollectionPage',
      'CursorRequest',
      'PageRequest',
      'ParentLink',
      'AppliedFilter',
      'StateCaller',
      'StateRequest',
      'StateLogger',
      'StateContext',
      'StateProvider',
      'ProvideNext',
      'ProcessContext',
      'StateProcessor',
      'ProcessNext',
      'WriteHook',
      'WriteHooks',
    ].map((name) => [name, STATE_GUIDE]),
  ),
  Filter: 'collections.md#custom-filters',
  FilterParameter: 'collections.md#custom-filters',
  QueryParameters: 'collections.md#custom-filters',
};

/** The module whose exports are the constraints (`constraints: [NotBlank()]`), listed in a section of their own. */
const CONSTRAINTS_FILE = join(coreSource, 'metadata/constraints.ts');

export interface Reference {
  readonly markdown: string;
  /** `Type.option` (or `Type`) for each public option or type that has no doc comment. */
  readonly undocumented: readonly string[];
}

interface Row {
  readonly name: string;
  readonly required: boolean;
  readonly type: string;
  readonly links: readonly string[];
  readonly doc: string;
}

interface Section {
  readonly name: string;
  readonly doc: string;
  readonly file: string;
  /** `type X = …` for aliases that are not objects (unions, functions, literals). */
  readonly alias: string | undefined;
  readonly links: readonly string[];
  readonly rows: readonly Row[];
}

/**
 * A type's source text on one line, whatever the line breaks the formatter gave it: no leading `|` of a union broken
 * over lines, no blank inside brackets, no trailing comma or semicolon before a closing bracket.
 */
const oneLine = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\| /, '')
    .replace(/([([]) /g, '$1')
    .replace(/,? ([)\]])/g, '$1')
    .replace(/; \}/g, ' }');
const cell = (text: string) => oneLine(text).replace(/\|/g, '\\|');
const code = (text: string) => (text.includes('`') ? `\`\` ${cell(text)} \`\`` : `\`${cell(text)}\``);
const anchor = (name: string) => `#${name.toLowerCase()}`;
const isCore = (node: ts.Node) => node.getSourceFile().fileName.startsWith(coreSource);
const isLiteralUnion = (node: ts.TypeNode): boolean =>
  ts.isLiteralTypeNode(node) ||
  (ts.isUnionTypeNode(node) && node.types.every((member) => ts.isLiteralTypeNode(member)));

function createProgram(): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'packages/core/tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  )!;
  return ts.createProgram({ rootNames: [join(coreSource, 'index.ts')], options: { ...config.options, noEmit: true } });
}

export function generateReference(): Reference {
  const program = createProgram();
  const checker = program.getTypeChecker();
  const index = program.getSourceFile(join(coreSource, 'index.ts'))!;
  const exported = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(index)!)) {
    exported.set(symbol.name, symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  }
  const undocumented: string[] = [];
  /**
   * The doc comment as written: its text, and tags as text too (the compiler would read `@fastify/cors` in a sentence
   * as a tag and drop it from the comment).
   */
  const docOf = (symbol: ts.Symbol): string => {
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
    const jsDoc = declaration ? ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1) : undefined;
    if (!jsDoc) return '';
    const text = jsDoc
      .getText()
      .replace(/^\/\*\*|\*\/$/g, '')
      .split('\n')
      .map((line) => line.replace(/^\s*\* ?/, ''))
      .join('\n');
    // An @example is code for the reader of the source; the guides have the examples.
    return oneLine(text.replace(/@example[\s\S]*$/, ''));
  };

  /** The declared (interface or type alias) symbol a type reference names, if it is one of core's own. */
  const declaredIn = (typeName: ts.EntityName): ts.Symbol | undefined => {
    let symbol = checker.getSymbolAtLocation(typeName);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.declarations?.[0];
    if (!symbol || !declaration || !isCore(declaration)) return undefined;
    return ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration) ? symbol : undefined;
  };

  /** The guide a contract type links to, or undefined for an option type (which gets a section). */
  const guideOf = (symbol: ts.Symbol): string | undefined => {
    const declaration = symbol.declarations![0]!;
    const fileGuide = CONTRACTS[relative(coreSource, declaration.getSourceFile().fileName)];
    const guide = fileGuide === undefined ? undefined : (CONTRACT_SECTIONS[symbol.name] ?? fileGuide);
    if (guide === undefined || (ts.isTypeAliasDeclaration(declaration) && isLiteralUnion(declaration.type)))
      return undefined;
    // A contract file's option types (DocumentationOptions next to OpenApiDocument) are options all the same.
    return /(Options|Declaration)$/.test(symbol.name) ? undefined : guide;
  };
  const guides = new Map<string, string>();

  /** The core types a type node names, in order, without repeats. */
  const referencedBy = (node: ts.Node): ts.Symbol[] => {
    const found: ts.Symbol[] = [];
    const visit = (child: ts.Node): void => {
      if (ts.isTypeReferenceNode(child)) {
        const symbol = declaredIn(child.typeName);
        if (symbol && !found.includes(symbol)) found.push(symbol);
      }
      ts.forEachChild(child, visit);
    };
    visit(node);
    return found;
  };

  const queue: ts.Symbol[] = [];
  const enqueue = (symbol: ts.Symbol) => {
    const guide = guideOf(symbol);
    if (guide !== undefined) guides.set(symbol.name, guide);
    else if (!queue.includes(symbol)) queue.push(symbol);
  };

  /** The rows of an object type's members; inline object types are flattened into `parent.child` rows. */
  const rowsOf = (owner: string, members: readonly ts.Symbol[], prefix: string): Row[] => {
    const rows: Row[] = [];
    for (const member of members) {
      const declaration = member.valueDeclaration ?? member.declarations?.[0];
      if (!declaration || !isCore(declaration)) continue;
      const name = `${prefix}${member.name}`;
      const typeNode =
        ts.isPropertySignature(declaration) ||
        ts.isPropertyDeclaration(declaration) ||
        ts.isMethodSignature(declaration)
          ? declaration.type
          : undefined;
      const type = ts.isMethodSignature(declaration)
        ? oneLine(declaration.getText().replace(/\/\*\*[\s\S]*?\*\//g, ''))
        : typeNode
          ? oneLine(typeNode.getText())
          : checker.typeToString(
              checker.getTypeOfSymbolAtLocation(member, declaration),
              declaration,
              ts.TypeFormatFlags.NoTruncation,
            );
      const references = typeNode ? referencedBy(typeNode) : [];
      references.forEach(enqueue);
      const doc = docOf(member);
      if (!doc) undocumented.push(`${owner}.${name}`);
      rows.push({
        name,
        required: !(member.flags & ts.SymbolFlags.Optional),
        type,
        links: references.map((s) => s.name),
        doc,
      });
      // `{ … }`, alone or in a union: its members are options too.
      const literals = typeNode
        ? (ts.isUnionTypeNode(typeNode) ? typeNode.types : [typeNode]).filter(ts.isTypeLiteralNode)
        : [];
      for (const literal of literals) {
        const nested = checker.getTypeAtLocation(literal).getProperties();
        rows.push(...rowsOf(owner, nested, `${name}.`));
      }
    }
    return rows;
  };

  const sectionOf = (symbol: ts.Symbol): Section => {
    const declaration = symbol.declarations![0]!;
    const doc = docOf(symbol);
    if (!doc) undocumented.push(symbol.name);
    const file = relative(root, declaration.getSourceFile().fileName);
    const objectLike =
      ts.isInterfaceDeclaration(declaration) ||
      (ts.isTypeAliasDeclaration(declaration) &&
        (ts.isTypeLiteralNode(declaration.type) ||
          ts.isIntersectionTypeNode(declaration.type) ||
          ts.isMappedTypeNode(declaration.type)));
    if (objectLike) {
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      // An interface lists its inherited options as rows; an intersection links the types it joins.
      const links = ts.isTypeAliasDeclaration(declaration) ? referencedBy(declaration.type) : [];
      links.forEach(enqueue);
      return {
        name: symbol.name,
        doc,
        file,
        alias: undefined,
        links: links.map((s) => s.name),
        rows: rowsOf(symbol.name, type.getProperties(), ''),
      };
    }
    const aliased = ts.isTypeAliasDeclaration(declaration) ? declaration.type : declaration;
    const links = referencedBy(aliased);
    links.forEach(enqueue);
    const text = ts.isTypeAliasDeclaration(declaration)
      ? oneLine(declaration.type.getText()).replace(/^\|\s*/, '')
      : '';
    return { name: symbol.name, doc, file, alias: text, links: links.map((s) => s.name), rows: [] };
  };

  for (const name of ROOTS) {
    const symbol = exported.get(name);
    if (!symbol)
      throw new Error(`docs/tools/generate-reference.ts: "${name}" is not exported by packages/core/src/index.ts.`);
    enqueue(symbol);
  }
  const sections: Section[] = [];
  for (let i = 0; i < queue.length; i++) sections.push(sectionOf(queue[i]!));
  const names = sections.map((section) => section.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice)
    throw new Error(
      `docs/tools/generate-reference.ts: two option types are named "${twice}"; their sections would share an anchor.`,
    );
  const documented = new Set(sections.map((section) => section.name));

  const constraints = [...exported.values()].filter((symbol) => {
    const declaration = symbol.valueDeclaration;
    return (
      declaration !== undefined &&
      declaration.getSourceFile().fileName === CONSTRAINTS_FILE &&
      ts.isVariableDeclaration(declaration)
    );
  });
  const constraintRows = constraints.map((symbol) => {
    const doc = docOf(symbol);
    if (!doc) undocumented.push(symbol.name);
    const signature = checker.getTypeOfSymbol(symbol).getCallSignatures()[0]!;
    const parameters = signature.getParameters().map((parameter) => {
      const type = checker.getTypeOfSymbolAtLocation(parameter, symbol.valueDeclaration!);
      // The options object of a factory: its own keys, without those every constraint takes.
      const own = type.getProperties().filter((p) => p.name !== 'groups' && p.name !== 'message');
      if (parameter.name === 'options')
        return own.length
          ? `{ ${own.map((p) => `${p.name}${p.flags & ts.SymbolFlags.Optional ? '?' : ''}: ${checker.typeToString(checker.getTypeOfSymbol(p)).replace(/ \| undefined$/, '')}`).join('; ')} }`
          : '';
      return `${parameter.name}: ${checker.typeToString(type)}`;
    });
    return `| \`${symbol.name}\` | ${parameters.filter(Boolean).map(code).join(', ') || '—'} | ${cell(doc)} |`;
  });

  const linkList = (names: readonly string[]) =>
    names.flatMap((name) =>
      documented.has(name)
        ? [`[${name}](${anchor(name)})`]
        : guides.has(name)
          ? [`[${name}](${guides.get(name)})`]
          : [],
    );
  const lines = [
    '# Reference',
    '',
    '<!-- Generated by docs/tools/generate-reference.ts from the doc comments of packages/core/src. Do not edit by hand: change the comments and run `pnpm docs:reference`. -->',
    '',
    'Every option of the public declaration types of `@resource-api/core`, with its type and its doc comment, generated',
    'from the source so that it cannot drift. The guides explain them with examples: [Declaring resources](declaring-resources.md),',
    '[Collections](collections.md), [Security](security.md), [Production](production.md) and the others in the [index](README.md).',
    '',
    ...sections.map((section) => `- [${section.name}](${anchor(section.name)})`),
    '- [Constraints](#constraints)',
    '',
  ];
  for (const section of sections) {
    lines.push(`## ${section.name}`, '', section.doc || '(no description)', '', `Declared in \`${section.file}\`.`, '');
    if (section.alias !== undefined) {
      lines.push(`Type: ${code(section.alias)}`, '');
      const links = linkList(section.links);
      if (links.length) lines.push(`See ${links.join(', ')}.`, '');
      continue;
    }
    const extended = linkList(section.links);
    if (extended.length) lines.push(`With the options of ${extended.join(', ')}.`, '');
    if (section.rows.length === 0) continue;
    lines.push('| option | type | description |', '|---|---|---|');
    for (const row of section.rows) {
      const links = linkList(row.links);
      const type = code(row.type) + (links.length ? ` (${links.join(', ')})` : '');
      lines.push(`| \`${row.name}\`${row.required ? ' (required)' : ''} | ${type} | ${cell(row.doc)} |`);
    }
    lines.push('');
  }
  lines.push(
    '## Constraints',
    '',
    'For `constraints: [...]` on a field or a resource, and `@Assert(...)`. Every constraint also takes the',
    '[ConstraintOptions](#constraintoptions) (`groups`, `message`). See [Validation](validation.md).',
    '',
    '| constraint | options | description |',
    '|---|---|---|',
    ...constraintRows,
    '',
  );
  return { markdown: lines.join('\n'), undocumented };
}
