import { describe, expect, it } from 'vitest';
import { createSubscriberOutbox } from './subscriber-outbox.js';

/** A subscriber that records each chunk written to it. */
function subscriber(name: string) {
  const chunks: Buffer[] = [];
  return { name, chunks, sink: { write: (chunk: Buffer) => void chunks.push(chunk) } };
}

const frame = (text: string) => Buffer.from(text);
const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

describe('the subscriber outbox', () => {
  it('writes each subscriber what it was sent in one turn as one chunk, in order, shared by those sent alike', async () => {
    const outbox = createSubscriberOutbox<ReturnType<typeof subscriber>>();
    const [a, b, c] = [subscriber('a'), subscriber('b'), subscriber('c')];
    const [one, two, three] = [frame('one;'), frame('two;'), frame('three;')];
    for (const s of [a, b, c]) outbox.add(s, one);
    // `two` is private: c may not see it.
    outbox.add(a, two);
    outbox.add(b, two);
    for (const s of [a, b, c]) outbox.add(s, three);
    expect(outbox.pending(a)).toBe(14);
    expect(outbox.pending(c)).toBe(10);
    expect(a.chunks).toEqual([]);

    await turnEnd();
    expect(a.chunks.map(String)).toEqual(['one;two;three;']);
    expect(b.chunks.map(String)).toEqual(['one;two;three;']);
    expect(c.chunks.map(String)).toEqual(['one;three;']);
    // One buffer for the two sent the same frames.
    expect(a.chunks[0]).toBe(b.chunks[0]);
    expect(outbox.pending(a)).toBe(0);
  });

  it('sends a subscriber that came in the middle of a turn only what was sent after, and nothing to one dropped', async () => {
    const outbox = createSubscriberOutbox<ReturnType<typeof subscriber>>();
    const [early, late, gone] = [subscriber('early'), subscriber('late'), subscriber('gone')];
    const [one, two] = [frame('one;'), frame('two;')];
    outbox.add(early, one);
    outbox.add(gone, one);
    outbox.add(early, two);
    outbox.add(late, two);
    outbox.add(gone, two);
    outbox.drop(gone);
    expect(outbox.pending(gone)).toBe(0);

    outbox.flush();
    expect(early.chunks.map(String)).toEqual(['one;two;']);
    expect(late.chunks.map(String)).toEqual(['two;']);
    // The frame itself when it is the only one: no copy.
    expect(late.chunks[0]).toBe(two);
    expect(gone.chunks).toEqual([]);

    // The next turn starts from nothing; the same frame twice is sent twice.
    outbox.add(late, one);
    outbox.add(late, one);
    await turnEnd();
    expect(late.chunks.map(String)).toEqual(['two;', 'one;one;']);
    expect(early.chunks).toHaveLength(1);
  });
});
