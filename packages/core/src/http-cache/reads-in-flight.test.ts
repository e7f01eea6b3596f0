/** The cacheable reads under way: what a write's second purge of the shared caches waits for. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createReadsInFlight, type ReadsInFlight } from './reads-in-flight.js';

describe('the reads in flight', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('settles at once when no read is under way or was just answered', async () => {
    const reads = createReadsInFlight({ delay: 25, timeout: 2000 });
    expect(await reads.settled()).toBe(false);
    reads.finished(reads.started());
    vi.advanceTimersByTime(30);
    expect(await reads.settled()).toBe(false);
  });

  it('waits for the reads under way, not for those that start later, then for the delay', async () => {
    const reads = createReadsInFlight({ delay: 25, timeout: 2000 });
    const before = reads.started();
    let settled: boolean | undefined;
    void reads.settled().then((value) => (settled = value));
    const after = reads.started();
    await vi.advanceTimersByTimeAsync(100);
    expect(settled).toBeUndefined();
    reads.finished(before);
    await vi.advanceTimersByTimeAsync(10);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(20);
    expect(settled).toBe(true);
    reads.finished(after);
  });

  it.each([
    ['just before', (reads: ReadsInFlight) => reads.finished(reads.started())],
    ['at once (a hit answered before the app)', (reads: ReadsInFlight) => reads.answered()],
  ])('waits the delay after a read answered %s, and not later', async (_how, answer) => {
    const reads = createReadsInFlight({ delay: 25, timeout: 2000 });
    answer(reads);
    let settled: boolean | undefined;
    void reads.settled().then((value) => (settled = value));
    await vi.advanceTimersByTimeAsync(10);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(20);
    expect(settled).toBe(true);
    expect(await reads.settled()).toBe(false);
  });

  it('gives up on a read that never ends after the timeout', async () => {
    const reads = createReadsInFlight({ delay: 25, timeout: 500 });
    reads.started();
    let settled: boolean | undefined;
    void reads.settled().then((value) => (settled = value));
    await vi.advanceTimersByTimeAsync(499);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(30);
    expect(settled).toBe(true);
  });
});
