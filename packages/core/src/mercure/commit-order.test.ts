import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCommitOrder } from './commit-order.js';

describe('delivery in commit order', () => {
  afterEach(() => void vi.useRealTimers());
  const make = (timeout = 1_000) => {
    const delivered: string[] = [];
    const lost: string[] = [];
    const order = createCommitOrder<string>({
      deliver: (message) => void delivered.push(message),
      timeout,
      onLost: (key, why) => void lost.push(`${key}:${why}`),
    });
    return { order, delivered, lost };
  };

  it('holds a write’s updates until those of every write committed before it were delivered', () => {
    const { order, delivered } = make();
    order.placed('a');
    order.placed('b');
    order.placed('c');
    order.arrived('c', ['c1']);
    order.arrived('b', ['b1', 'b2']);
    expect(delivered).toEqual([]);
    order.arrived('a', ['a1']);
    expect(delivered).toEqual(['a1', 'b1', 'b2', 'c1']);
    order.close();
  });

  it('lets a write with nothing to publish free its place', () => {
    const { order, delivered } = make();
    order.placed('a');
    order.placed('b');
    order.arrived('b', ['b1']);
    order.arrived('a', []);
    expect(delivered).toEqual(['b1']);
    order.close();
  });

  it('gives up a place whose updates do not come, and drops them when they come late', () => {
    vi.useFakeTimers();
    const { order, delivered, lost } = make(500);
    order.placed('a');
    order.placed('b');
    order.arrived('b', ['b1']);
    vi.advanceTimersByTime(499);
    expect(delivered).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(delivered).toEqual(['b1']);
    expect(lost).toEqual(['a:timeout']);
    order.arrived('a', ['a1']);
    expect(delivered).toEqual(['b1']);
    expect(lost).toEqual(['a:timeout', 'a:late']);
    order.close();
  });

  it('times each place from when it heads the line', () => {
    vi.useFakeTimers();
    const { order, delivered, lost } = make(500);
    order.placed('a');
    vi.advanceTimersByTime(400);
    order.placed('b');
    order.arrived('a', ['a1']);
    vi.advanceTimersByTime(400);
    order.arrived('b', ['b1']);
    expect(delivered).toEqual(['a1', 'b1']);
    expect(lost).toEqual([]);
    order.close();
  });

  it('delivers updates sent without a place after the ones held, at once when none is', () => {
    const { order, delivered } = make();
    order.arrived('x', ['x1']);
    expect(delivered).toEqual(['x1']);
    order.placed('a');
    order.arrived('y', ['y1']);
    expect(delivered).toEqual(['x1']);
    order.arrived('a', ['a1']);
    expect(delivered).toEqual(['x1', 'a1', 'y1']);
    order.close();
  });
});
