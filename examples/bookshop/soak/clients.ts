/**
 * The load: `clients` concurrent clients, each with an author and books of its own, sending a mix of
 * GET collection (30 %), GET one of its books (30 %, checking it reads what it wrote), POST a book (25 %),
 * PATCH one of its books (13 %) and POST an author (2 %), paced to `rate` requests a second over all clients. Every
 * request is recorded with its start, duration and answer; every write goes to the ledger.
 */
import type { Ledger } from './ledger.js';

export type Operation = 'GET collection' | 'GET item' | 'POST book' | 'PATCH book' | 'POST author';
/** An HTTP status, `hang` (no answer within the bound) or `network` (the connection to the app failed). */
export type Outcome = number | 'hang' | 'network';

export interface RequestRecord {
  readonly operation: Operation;
  /** Milliseconds since the load started. */
  readonly start: number;
  readonly duration: number;
  readonly outcome: Outcome;
  /** For a 503: whether it carried `Retry-After` and a 503 hydra:Error body. */
  readonly wellFormed503?: boolean;
}

export interface LoadContext {
  readonly base: string;
  readonly ledger: Ledger;
  readonly records: RequestRecord[];
  /** `performance.now()` when the load started. */
  readonly origin: number;
  /** `performance.now()` when the clients stop sending. */
  readonly deadline: number;
  /** Milliseconds between two requests of one client. */
  readonly interval: number;
  readonly hangAfter: number;
  /** Unexpected answers (status, operation, body start), for the report. */
  readonly surprises: string[];
  /** Reads of a client's own book that returned a title it never wrote or had overwritten. */
  readonly staleReads: string[];
}

interface Answer {
  readonly outcome: Outcome;
  readonly body: Record<string, unknown> | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const JSON_LD = 'application/ld+json';

async function send(
  context: LoadContext,
  operation: Operation,
  method: string,
  path: string,
  payload?: unknown,
): Promise<Answer> {
  const started = performance.now();
  let outcome: Outcome;
  let body: Record<string, unknown> | undefined;
  let wellFormed503: boolean | undefined;
  try {
    const response = await fetch(`${context.base}${path}`, {
      method,
      headers: {
        accept: JSON_LD,
        ...(payload === undefined
          ? {}
          : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : JSON_LD }),
      },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      signal: AbortSignal.timeout(context.hangAfter),
    });
    const text = await response.text();
    outcome = response.status;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    if (outcome === 503) {
      wellFormed503 =
        response.headers.get('retry-after') === '5' && body?.['@type'] === 'hydra:Error' && body.status === 503;
    } else if (outcome >= 300) {
      context.surprises.push(`${operation} ${path}: ${outcome} ${text.slice(0, 200)}`);
    }
  } catch (error) {
    const name = (error as Error).name;
    outcome = name === 'TimeoutError' || name === 'AbortError' ? 'hang' : 'network';
    context.surprises.push(`${operation} ${path}: ${outcome} (${String((error as Error).cause ?? error)})`);
  }
  const duration = performance.now() - started;
  context.records.push({
    operation,
    start: started - context.origin,
    duration,
    outcome,
    ...(wellFormed503 === undefined ? {} : { wellFormed503 }),
  });
  return { outcome, body };
}

const idOf = (body: Record<string, unknown> | undefined): number => Number(String(body?.['@id']).split('/').pop());

/** One client: seeds its author and first book (retrying until they are acknowledged), then loops until the deadline. */
export async function runClient(context: LoadContext, index: number): Promise<void> {
  const { ledger } = context;
  const books: number[] = [];
  let sequence = 0;

  const postAuthor = async (): Promise<number | undefined> => {
    const name = `soak client ${index} author ${++sequence}`;
    const answer = await send(context, 'POST author', 'POST', '/api/authors', { name });
    if (answer.outcome === 201) {
      ledger.ackAuthor(idOf(answer.body), name);
      return idOf(answer.body);
    }
    if (answer.outcome === 503) ledger.unknownCreate(name);
    return undefined;
  };
  let authorId: number | undefined;
  while (authorId === undefined && performance.now() < context.deadline) authorId = await postAuthor();
  if (authorId === undefined) return;

  const postBook = async () => {
    const title = `soak client ${index} book ${++sequence}`;
    const answer = await send(context, 'POST book', 'POST', '/api/books', {
      title,
      author: `/api/authors/${authorId}`,
    });
    if (answer.outcome === 201) {
      ledger.ackBook(idOf(answer.body), title, authorId!);
      books.push(idOf(answer.body));
    } else if (answer.outcome === 503) {
      ledger.unknownCreate(title);
    }
  };
  while (books.length === 0 && performance.now() < context.deadline) await postBook();

  const pick = () => books[Math.floor(Math.random() * books.length)]!;
  while (performance.now() < context.deadline) {
    const began = performance.now();
    const dice = Math.random();
    if (dice < 0.3) {
      const pages = Math.max(1, Math.ceil(ledger.bookCount / 30));
      await send(context, 'GET collection', 'GET', `/api/books?page=${1 + Math.floor(Math.random() * pages)}`);
    } else if (dice < 0.6) {
      const id = pick();
      const answer = await send(context, 'GET item', 'GET', `/api/books/${id}`);
      const title = answer.body?.title;
      if (answer.outcome === 200 && !ledger.allowedTitles(id).includes(String(title))) {
        context.staleReads.push(
          `book ${id}: read "${String(title)}", may be ${JSON.stringify(ledger.allowedTitles(id))}`,
        );
      }
    } else if (dice < 0.85) {
      await postBook();
    } else if (dice < 0.98) {
      const id = pick();
      const title = `soak client ${index} book ${id} title ${++sequence}`;
      const answer = await send(context, 'PATCH book', 'PATCH', `/api/books/${id}`, { title });
      if (answer.outcome === 200) ledger.ackPatch(id, title);
      else if (answer.outcome === 503) ledger.unknownPatch(id, title);
    } else {
      await postAuthor();
    }
    const rest = context.interval - (performance.now() - began);
    if (rest > 0) await sleep(rest);
  }
}

export interface ProbeRecord {
  /** Milliseconds since the load started. */
  readonly at: number;
  readonly ready: Outcome;
  readonly live: Outcome;
}

/** Polls `/health/ready` and `/health` every 250 ms until the deadline. */
export async function runProbes(context: LoadContext, probes: ProbeRecord[]): Promise<void> {
  const status = async (path: string): Promise<Outcome> => {
    try {
      const response = await fetch(`${context.base}${path}`, { signal: AbortSignal.timeout(context.hangAfter) });
      await response.arrayBuffer();
      return response.status;
    } catch (error) {
      const name = (error as Error).name;
      return name === 'TimeoutError' || name === 'AbortError' ? 'hang' : 'network';
    }
  };
  while (performance.now() < context.deadline) {
    const at = performance.now() - context.origin;
    const [ready, live] = await Promise.all([status('/health/ready'), status('/health')]);
    probes.push({ at, ready, live });
    await sleep(250);
  }
}
