import { describe, expect, it } from 'vitest';
import { createSubscriberOutbox, type OutboxGroup } from './subscriber-outbox.js';

/** A subscriber that records each chunk written to it; `held` bytes its connection has not taken. */
function subscriber(name: string, held = 0) {
  const chunks: Buffer[] = [];
  const writes: number[] = [];
  return {
    name,
    chunks,
    writes,
    sink: {
      write: (chunk: Buffer) => {
        writes.push(performance.now());
        chunks.push(chunk);
      },
      queued: () => held,
    },
  };
}
type Subscriber = ReturnType<typeof subscriber>;
type Group = OutboxGroup<Subscriber> & { readonly members: Set<Subscriber> };

const group = (...members: Subscriber[]): Group => ({ members: new Set(members) });
const frame = (text: string) => Buffer.from(text);
const turnEnd = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function outboxOf(options: { interval?: number; maxQueuedBytes?: number } = {}) {
  const slow: string[] = [];
  const outbox = createSubscriberOutbox<Subscriber, Group>({
    interval: options.interval ?? 0,
    maxQueuedBytes: options.maxQueuedBytes ?? 1024,
    onSlow: (s) => void slow.push(s.name),
  });
  return { outbox, slow };
}

describe('the subscriber outbox', () => {
  it("writes each member a group's frames of one turn as one chunk, the same buffer for all, in order", async () => {
    const { outbox } = outboxOf();
    const [a, b, c] = [subscriber('a'), subscriber('b'), subscriber('c')];
    const all = group(a, b);
    const other = group(c);
    const [one, two, three] = [frame('one;'), frame('two;'), frame('three;')];
    outbox.toGroup(all, one);
    outbox.toGroup(other, one);
    outbox.toGroup(all, two);
    outbox.toGroup(all, three);
    outbox.toGroup(other, three);
    expect(a.chunks).toEqual([]);

    await turnEnd();
    expect(a.chunks.map(String)).toEqual(['one;two;three;']);
    expect(b.chunks.map(String)).toEqual(['one;two;three;']);
    expect(c.chunks.map(String)).toEqual(['one;three;']);
    // One buffer for the members of a group.
    expect(a.chunks[0]).toBe(b.chunks[0]);

    // The next turn starts from nothing; one frame is written as it is, without a copy.
    outbox.toGroup(all, two);
    await turnEnd();
    expect(a.chunks.map(String)).toEqual(['one;two;three;', 'two;']);
    expect(a.chunks[1]).toBe(two);
    expect(c.chunks).toHaveLength(1);
  });

  it('writes a subscriber its own frames first, and of its group only what was queued after it joined', async () => {
    const { outbox } = outboxOf();
    const [early, late, resuming, gone] = [
      subscriber('early'),
      subscriber('late'),
      subscriber('resuming'),
      subscriber('gone'),
    ];
    const all = group(early, gone);
    outbox.toGroup(all, frame('one;'));
    // `late` joins after `one`.
    all.members.add(late);
    outbox.joined(late, all);
    // `resuming` resumes from the history (`zero;`, `one;`), then joins.
    expect(outbox.toOne(resuming, all, frame('zero;'))).toBe(5);
    expect(outbox.toOne(resuming, all, frame('one;'))).toBe(9);
    all.members.add(resuming);
    outbox.joined(resuming, all);
    outbox.toGroup(all, frame('two;'));
    // `gone` leaves before the flush.
    all.members.delete(gone);
    outbox.left(gone);

    outbox.flush();
    expect(early.chunks.map(String)).toEqual(['one;two;']);
    expect(late.chunks.map(String)).toEqual(['two;']);
    expect(resuming.chunks.map(String)).toEqual(['zero;one;two;']);
    expect(gone.chunks).toEqual([]);

    // From the next flush on, all three are sent alike.
    outbox.toGroup(all, frame('three;'));
    await turnEnd();
    for (const s of [early, late, resuming]) expect(s.chunks.at(-1)?.toString()).toBe('three;');
    expect(early.chunks.at(-1)).toBe(late.chunks.at(-1));
  });

  it('gives up a subscriber whose connection holds too much instead of writing to it, and flushes a full queue at once', () => {
    const { outbox, slow } = outboxOf({ maxQueuedBytes: 20 });
    const [fast, stuck] = [subscriber('fast'), subscriber('stuck', 15)];
    const all = group(fast, stuck);
    outbox.toGroup(all, frame('0123456789'));
    outbox.flush();
    expect(fast.chunks.map(String)).toEqual(['0123456789']);
    expect(stuck.chunks).toEqual([]);
    expect(slow).toEqual(['stuck']);

    // A queue reaching the limit is written without waiting for the turn's end.
    all.members.delete(stuck);
    outbox.toGroup(all, frame('0123456789'));
    expect(fast.chunks).toHaveLength(1);
    outbox.toGroup(all, frame('abcdefghij'));
    expect(fast.chunks.map(String)).toEqual(['0123456789', '0123456789abcdefghij']);
  });

  it('flushes a queue before a frame would take it past the limit, so a reading subscriber is never given up', async () => {
    const { outbox, slow } = outboxOf({ interval: 5, maxQueuedBytes: 20 });
    const a = subscriber('a');
    const all = group(a);
    // In one turn: 15 + 15 bytes would pass 20; the first frame leaves alone, then the second.
    outbox.toGroup(all, frame('a'.repeat(15)));
    outbox.toGroup(all, frame('b'.repeat(15)));
    expect(a.chunks.map(String)).toEqual(['a'.repeat(15)]);
    await sleep(20);
    expect(a.chunks.map(String)).toEqual(['a'.repeat(15), 'b'.repeat(15)]);
    // Across turns within one interval, the same.
    outbox.toGroup(all, frame('c'.repeat(15)));
    await turnEnd();
    outbox.toGroup(all, frame('d'.repeat(15)));
    await sleep(20);
    expect(a.chunks.slice(2).map(String)).toEqual(['c'.repeat(15), 'd'.repeat(15)]);
    expect(slow).toEqual([]);
  });

  it('with an interval, writes at once when quiet and at most once per interval under a burst', async () => {
    const interval = 40;
    const { outbox } = outboxOf({ interval });
    const a = subscriber('a');
    const all = group(a);
    // Quiet: the first update leaves at the turn's end.
    const started = performance.now();
    outbox.toGroup(all, frame('one;'));
    await turnEnd();
    expect(a.chunks.map(String)).toEqual(['one;']);
    expect(a.writes[0]! - started).toBeLessThan(interval);
    // A burst right after: held until the interval has passed, then written together.
    outbox.toGroup(all, frame('two;'));
    await turnEnd();
    outbox.toGroup(all, frame('three;'));
    await turnEnd();
    expect(a.chunks).toHaveLength(1);
    await sleep(interval + 20);
    expect(a.chunks.map(String)).toEqual(['one;', 'two;three;']);
    // Timers count whole milliseconds from the event loop's cached time: one may fire a little before the interval.
    expect(a.writes[1]! - a.writes[0]!).toBeGreaterThanOrEqual(interval - 3);
    // A flush (the hub closing) writes what waits at once; after a quiet time an update leaves at once again.
    outbox.toGroup(all, frame('four;'));
    outbox.flush();
    expect(a.chunks.map(String)).toEqual(['one;', 'two;three;', 'four;']);
    await sleep(interval + 5);
    outbox.toGroup(all, frame('five;'));
    await turnEnd();
    expect(a.chunks.map(String)).toEqual(['one;', 'two;three;', 'four;', 'five;']);
  });
});
