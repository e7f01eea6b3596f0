/** `make:resource`: asks for a resource's fields (or takes them as options) and writes its declaration file. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { askFields, askName, askStyle } from '../make/ask-resource.js';
import { type FieldSpec, parseFieldSpec, resourceNameProblem } from '../make/field-spec.js';
import { openQuestions } from '../make/questions.js';
import { fileNameOf, renderResource, STYLES, type Style } from '../make/render-resource.js';
import { displayPath } from '../output.js';

const HINT = 'Run "resource-api make:resource --help".';

export const makeResource = defineCommand({
  name: 'make:resource',
  summary: 'Write a new resource declaration (decorators or a plain object), asking for its fields.',
  description: `
Asks for what the command line leaves out: the resource name, the form (decorator: an @ApiResource class; object:
defineResource), and, without --field, the fields one by one (name, type, nullable; for relations the target resource
and the other side) until an empty name. --no-interaction asks nothing. Answers may be piped in, one per line.

Writes src/resources/<name>.ts (another folder with --dir, another file with --out); add the resource to the list
your app gives the plugin. Field syntax: name:type, name:type:nullable, name:toOne:Target[:inversedBy=field],
name:toMany:Target[:mappedBy=field][:inversedBy=field]. Types: string, text, integer, float, boolean, datetime, date,
json, string[], password, toOne, toMany.`,
  arguments: [{ name: 'name', description: 'The resource name, in PascalCase (BookReview).' }],
  options: {
    style: {
      type: 'string',
      short: 's',
      placeholder: '<decorator|object>',
      description: 'The declaration form (asked when not given; decorator with --no-interaction).',
    },
    field: {
      type: 'string',
      short: 'f',
      multiple: true,
      placeholder: '<name:type>',
      description: 'A field, e.g. title:string or author:toOne:Author (then no field is asked).',
    },
    dir: {
      type: 'string',
      placeholder: '<folder>',
      description: 'The folder of the new file (default src/resources).',
    },
    out: {
      type: 'string',
      short: 'o',
      placeholder: '<file>',
      description: 'The file to write (default <dir>/<name-in-kebab-case>.ts).',
    },
    force: { type: 'boolean', description: 'Overwrite the file when it exists.' },
    'no-interaction': {
      type: 'boolean',
      short: 'n',
      description:
        'Ask nothing: the name must be given, the form defaults to decorator, the fields are the --field ones.',
    },
  },
  examples: [
    'resource-api make:resource',
    'resource-api make:resource Review --style object --field body:text --field rating:integer --field book:toOne:Book:inversedBy=reviews',
    "printf 'Review\\nobject\\nbody\\ntext\\nno\\n\\n' | resource-api make:resource",
  ],
  async run({ options, args }, context) {
    const fromFlags = (options.field ?? []).map((text) => {
      try {
        return parseFieldSpec(text);
      } catch (error) {
        throw new UsageError((error as Error).message, HINT);
      }
    });
    const duplicate = fromFlags.find((field, index) => fromFlags.findIndex((f) => f.name === field.name) !== index);
    if (duplicate) throw new UsageError(`The field "${duplicate.name}" is given twice.`, HINT);
    if (options.style !== undefined && !STYLES.includes(options.style as Style))
      throw new UsageError(`Unknown style "${options.style}": use ${STYLES.join(' or ')}.`, HINT);
    if (args[0] !== undefined && resourceNameProblem(args[0]))
      throw new UsageError(resourceNameProblem(args[0])!, HINT);
    const interactive = !options['no-interaction'];
    if (!interactive && args[0] === undefined)
      throw new UsageError('Missing argument <name>: with --no-interaction the name is not asked.', HINT);

    let name = args[0];
    let style = options.style as Style | undefined;
    let fields: FieldSpec[] = fromFlags;
    const needsQuestions = interactive && (name === undefined || style === undefined || fromFlags.length === 0);
    if (needsQuestions) {
      const questions = openQuestions(context.stdin, context.stdout, HINT);
      const write = (text: string) => context.stdout.write(text);
      try {
        name ??= await askName(questions, write);
        style ??= await askStyle(questions, write);
        if (fromFlags.length === 0) fields = await askFields(questions, write, []);
      } finally {
        questions.close();
      }
    }
    const file = resolve(context.cwd, options.out ?? `${options.dir ?? 'src/resources'}/${fileNameOf(name!)}.ts`);
    if (existsSync(file) && !options.force)
      throw new CliError(`${file} exists: choose another --out, or pass --force to overwrite it.`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, renderResource(name!, fields, style ?? 'decorator'));
    context.stdout.write(
      `\nWrote ${displayPath(context.cwd, file)} (${name}, ${fields.length} field(s), ${style ?? 'decorator'} form): add it to the resources your app registers.\n`,
    );
  },
});
