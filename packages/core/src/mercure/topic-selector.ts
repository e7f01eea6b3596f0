/**
 * Mercure topic selectors: `*` (every topic), an RFC 6570 URI template (`https://example.com/books/{id}`), or any other
 * string, compared exactly. A template is matched by walking an automaton built from it, a set of states per character
 * of the topic: the time is linear in the topic's length whatever the template (subscribers choose templates, and a
 * backtracking matcher — a regular expression, or the URI template libraries on npm — can be made to take exponential
 * time by one crafted template, on every publish). Only whether a topic matches is needed, never the values.
 */

/** Whether a topic is selected. */
export type TopicMatcher = (topic: string) => boolean;

/** The longest template compiled; a longer one matches only itself (exactly). */
const MAX_TEMPLATE_LENGTH = 1024;

const UNRESERVED = /[A-Za-z0-9\-._~%]/;
const RESERVED = /[A-Za-z0-9\-._~%:/?#[\]@!$&'()*+,;=]/;

/** What the characters of an expression's values may be, by operator (RFC 6570, section 3.2), and its prefix. */
const OPERATORS: Record<string, { readonly prefix: string | null; readonly allowed: (c: string) => boolean }> = {
  // Simple and reserved expansion: no prefix; a list is joined with ",".
  '': { prefix: null, allowed: (c) => c === ',' || UNRESERVED.test(c) },
  '+': { prefix: null, allowed: (c) => RESERVED.test(c) },
  '#': { prefix: '#', allowed: (c) => RESERVED.test(c) },
  // Label, path segments, path parameters, query: each value after the operator's character, which may repeat.
  '.': { prefix: '.', allowed: (c) => c === ',' || UNRESERVED.test(c) },
  '/': { prefix: '/', allowed: (c) => c === '/' || c === ',' || UNRESERVED.test(c) },
  ';': { prefix: ';', allowed: (c) => c === ';' || c === '=' || c === ',' || UNRESERVED.test(c) },
  '?': { prefix: '?', allowed: (c) => c === '&' || c === '=' || c === ',' || UNRESERVED.test(c) },
  '&': { prefix: '&', allowed: (c) => c === '&' || c === '=' || c === ',' || UNRESERVED.test(c) },
};

/**
 * One state of the automaton: it consumes one character that `accepts`, going to `next`; `skip` lists the states it
 * reaches without consuming any.
 */
interface State {
  readonly accepts: (c: string) => boolean;
  readonly next: number;
  readonly skip: readonly number[];
}

/** The automaton of a template, or null when it is no template (no expression, or a malformed one). */
function buildAutomaton(template: string): State[] | null {
  if (template.length > MAX_TEMPLATE_LENGTH) return null;
  const states: State[] = [];
  let expressions = 0;
  for (let index = 0; index < template.length; index++) {
    const c = template[index]!;
    if (c === '}') return null;
    if (c !== '{') {
      const at = states.length;
      states.push({ accepts: (d) => d === c, next: at + 1, skip: [] });
      continue;
    }
    const end = template.indexOf('}', index);
    if (end === -1) return null;
    const body = template.slice(index + 1, end);
    const operator = body[0] !== undefined && Object.hasOwn(OPERATORS, body[0]) ? body[0] : '';
    const names = body.slice(operator.length);
    if (!/^[A-Za-z0-9_.%]+(:[1-9][0-9]*|\*)?(,[A-Za-z0-9_.%]+(:[1-9][0-9]*|\*)?)*$/.test(names)) return null;
    const { prefix, allowed } = OPERATORS[operator]!;
    const at = states.length;
    if (prefix === null) {
      // Any number of allowed characters (none when the variable is undefined or empty).
      states.push({ accepts: allowed, next: at, skip: [at + 1] });
    } else {
      // Nothing, or the operator's character and any number of allowed ones after it.
      states.push({ accepts: (d) => d === prefix, next: at + 1, skip: [at + 2] });
      states.push({ accepts: (d) => d === prefix || allowed(d), next: at + 1, skip: [at + 2] });
    }
    expressions++;
    index = end;
  }
  return expressions === 0 ? null : states;
}

/**
 * Whether the automaton reaches its end (the state after the last) having consumed all of `topic` from `from`,
 * starting in state `start`. The sets of states are arrays, with a mark per state of the step that added it, so a
 * step allocates nothing but its array.
 */
function runs(states: readonly State[], topic: string, start: number, from: number): boolean {
  const accept = states.length;
  const marks = new Int32Array(accept + 1).fill(-1);
  let step = 0;
  let current: number[] = [];
  const enter = (set: number[], state: number): void => {
    if (marks[state] === step) return;
    marks[state] = step;
    set.push(state);
    if (state < accept) for (const skipped of states[state]!.skip) enter(set, skipped);
  };
  enter(current, start);
  // By UTF-16 code unit, as the template's literals are read: a character outside the BMP is two of each.
  for (let index = from; index < topic.length; index++) {
    const c = topic[index]!;
    step++;
    const next: number[] = [];
    for (const state of current) {
      if (state === accept) continue;
      const { accepts, next: to } = states[state]!;
      if (accepts(c)) enter(next, to);
    }
    if (next.length === 0) return false;
    current = next;
  }
  return current.includes(accept);
}

/** Compiled selectors by their text: the subscribers of one template share its matcher (and `memo` its answers). */
const compiled = new Map<string, TopicMatcher>();
/** The most selectors kept compiled; past it, the oldest go (they are compiled again when seen again). */
const MAX_COMPILED = 10_000;

/** The matcher of one selector. */
export function compileTopicSelector(selector: string): TopicMatcher {
  let matcher = compiled.get(selector);
  if (matcher) return matcher;
  matcher = buildMatcher(selector);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(selector, matcher);
  return matcher;
}

function buildMatcher(selector: string): TopicMatcher {
  if (selector === '*') return () => true;
  const automaton = selector.includes('{') ? buildAutomaton(selector) : null;
  if (!automaton) return (topic) => topic === selector;
  // The literal text before the first expression is one state per character: compared at once, then skipped.
  const prefix = selector.slice(0, selector.indexOf('{'));
  return (topic) =>
    topic === selector || (topic.startsWith(prefix) && runs(automaton, topic, prefix.length, prefix.length));
}

/**
 * The answers of matchers for one set of topics (one update), shared by the subscribers it is checked for: a hub with
 * a thousand subscribers of one template runs that template once per update.
 */
export type MatchMemo = Map<TopicMatcher, boolean>;

/** Whether one of `selectors` matches one of `topics`; `memo`: the answers so far for these same topics. */
export function isAnySelected(
  selectors: readonly TopicMatcher[],
  topics: readonly string[],
  memo?: MatchMemo,
): boolean {
  for (const matches of selectors) {
    let selected = memo?.get(matches);
    if (selected === undefined) {
      selected = topics.some(matches);
      memo?.set(matches, selected);
    }
    if (selected) return true;
  }
  return false;
}

/** Whether each of `topics` is matched by one of `selectors` (what a publisher must be allowed). */
export function isEachSelected(selectors: readonly TopicMatcher[], topics: readonly string[]): boolean {
  return topics.every((topic) => selectors.some((matches) => matches(topic)));
}
