/**
 * An external Mercure hub (the Caddy one, or a built-in hub of another process): updates are POSTed to its URL as a
 * form, as the protocol says, with a publisher JWT signed with the shared secret (allowed every topic, renewed before
 * it expires). Posts leave one after the other, in the order `publish` was called (commit order): an update is sent
 * once the one before it was answered. A hub that refuses one or cannot be reached loses that one (its promise
 * rejects: the caller logs it); the next ones are still sent.
 */
import type { Hub, MercureUpdate } from './hub.js';
import { signHubToken, toHubKey } from './hub-tokens.js';

export interface ExternalHubOptions {
  /** The hub's publish URL: `https://hub.example.com/.well-known/mercure`. */
  readonly url: string;
  /** The secret its publisher tokens are signed with. */
  readonly jwtSecret: string;
  /** Milliseconds a post may take (default 5,000). */
  readonly timeout?: number;
}

/** The protocol's form of an update. */
export function toUpdateForm(update: MercureUpdate): URLSearchParams {
  const form = new URLSearchParams();
  for (const topic of update.topics) form.append('topic', topic);
  form.append('data', update.data);
  if (update.private) form.append('private', 'on');
  if (update.id !== undefined) form.append('id', update.id);
  if (update.type !== undefined) form.append('type', update.type);
  if (update.retry !== undefined) form.append('retry', String(update.retry));
  return form;
}

/** Seconds a publisher token is valid; a new one is signed when less than a tenth of it is left. */
const TOKEN_SECONDS = 3600;

export function createExternalHub(options: ExternalHubOptions): Hub {
  const key = toHubKey(options.jwtSecret);
  let token: { value: Promise<string>; renewAt: number } | undefined;
  const tokenOf = (): Promise<string> => {
    if (!token || Date.now() >= token.renewAt)
      token = {
        value: signHubToken({ publish: ['*'] }, key, TOKEN_SECONDS),
        renewAt: Date.now() + TOKEN_SECONDS * 900,
      };
    return token.value;
  };
  let tail: Promise<unknown> = Promise.resolve();
  const pending = new Set<AbortController>();

  async function post(update: MercureUpdate): Promise<string> {
    const abort = new AbortController();
    pending.add(abort);
    const timer = setTimeout(() => abort.abort(), options.timeout ?? 5_000);
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await tokenOf()}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: toUpdateForm(update).toString(),
        signal: abort.signal,
      });
      const body = await response.text();
      if (!response.ok) throw new Error(`The Mercure hub answered ${response.status}: ${body.slice(0, 200)}`);
      return body;
    } finally {
      clearTimeout(timer);
      pending.delete(abort);
    }
  }

  return {
    publish(update) {
      const sent = tail.then(() => post(update));
      // The caller hears of a failure (and logs it); the next update is sent all the same.
      tail = sent.catch(() => undefined);
      return sent;
    },
    async close() {
      for (const abort of pending) abort.abort();
      await tail;
    },
  };
}
