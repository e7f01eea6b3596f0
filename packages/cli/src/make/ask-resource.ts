/**
 * The questions of `make:resource`, as Symfony's make:entity asks them: the name and form when not given, then fields
 * one by one until an empty name: type, nullable for values, the target and the other side for relations. A wrong
 * answer is said and asked again; the end of the input stops at a question without a default (see questions.ts).
 */
import type { ScalarType } from '@resource-api/core';
import { type FieldSpec, FIELD_TYPES, fieldNameProblem, fieldTypeProblem, resourceNameProblem } from './field-spec.js';
import type { Questions } from './questions.js';
import { STYLES, type Style } from './render-resource.js';

/** Asks until `check` finds nothing wrong (it returns the problem, said before asking again). */
async function askChecked(
  questions: Questions,
  write: (text: string) => void,
  question: string,
  check: (answer: string) => string | undefined,
  fallback?: string,
): Promise<string> {
  for (;;) {
    const answer = await questions.ask(question, fallback);
    const problem = check(answer);
    if (problem === undefined) return answer;
    write(` ${problem}\n`);
  }
}

const required = (what: string) => (answer: string) => (answer === '' ? `${what} is required.` : undefined);

export async function askName(questions: Questions, write: (text: string) => void): Promise<string> {
  return askChecked(
    questions,
    write,
    'Resource name (PascalCase, e.g. BookReview)',
    (a) => required('A name')(a) ?? resourceNameProblem(a),
  );
}

export async function askStyle(questions: Questions, write: (text: string) => void): Promise<Style> {
  return (await askChecked(
    questions,
    write,
    `Declare it with ${STYLES.join(' or ')}`,
    (a) => (STYLES.includes(a as Style) ? undefined : `Answer ${STYLES.join(' or ')}.`),
    'decorator',
  )) as Style;
}

export async function askFields(
  questions: Questions,
  write: (text: string) => void,
  existing: readonly FieldSpec[],
): Promise<FieldSpec[]> {
  const fields = [...existing];
  for (;;) {
    const name = await askChecked(
      questions,
      write,
      '\nNew field name (press <return> to stop adding fields)',
      (answer) =>
        answer === ''
          ? undefined
          : (fieldNameProblem(answer) ??
            (fields.some((f) => f.name === answer) ? `"${answer}" is there already.` : undefined)),
      '',
    );
    if (name === '') return fields;
    const type = await askChecked(
      questions,
      write,
      `Field type (${FIELD_TYPES.join(', ')})`,
      fieldTypeProblem,
      'string',
    );
    if (type === 'toOne' || type === 'toMany') {
      const target = await askChecked(
        questions,
        write,
        'Target resource (e.g. Author)',
        (a) => required('The target')(a) ?? resourceNameProblem(a),
      );
      const checkField = (a: string) => (a === '' ? undefined : fieldNameProblem(a));
      if (type === 'toOne') {
        const inversedBy = await askChecked(
          questions,
          write,
          `The to-many field of ${target} listing these items, if any (inversedBy)`,
          checkField,
          '',
        );
        fields.push({ name, type, target, ...(inversedBy ? { inversedBy } : {}) });
      } else {
        const mappedBy = await askChecked(
          questions,
          write,
          `The field of ${target} pointing back (mappedBy; empty for a many-to-many owned here)`,
          checkField,
          '',
        );
        fields.push({ name, type, target, ...(mappedBy ? { mappedBy } : {}) });
      }
      continue;
    }
    const nullable = await askChecked(
      questions,
      write,
      'Can it be null (yes/no)',
      (a) => (/^(y|yes|n|no)$/i.test(a) ? undefined : 'Answer yes or no.'),
      'no',
    );
    fields.push({ name, type: type as ScalarType, nullable: /^y/i.test(nullable) });
  }
}
