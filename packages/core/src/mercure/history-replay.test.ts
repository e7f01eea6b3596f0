import { describe, expect, it } from 'vitest';
import { sendHistory } from './history-replay.js';

/** A connection that takes what it is written when told to (`take`); `held` bytes it has not taken. */
function newConnection() {
  const chunks: string[] = [];
  const ends: string[] = [];
  let held = 0;
  return {
    chunks,
    ends,
    take: () => void (held = 0),
    sink: {
      write: (chunk: Buffer) => {
        chunks.push(chunk.toString());
        held += chunk.length;
      },
      queued: () => held,
      end: (why: 'slow' | 'closes') => void ends.push(why),
    },
  };
}

const frame = (text: string) => Buffer.from(text);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function replayOf(frames: string[], connectionOf = newConnection(), maxPendingBytes = 1_000) {
  const outcome: string[] = [];
  const replay = sendHistory({
    sink: connectionOf.sink,
    frames: frames.map(frame),
    maxQueuedBytes: 10,
    maxPendingBytes,
    onDone: () => void outcome.push('done'),
    onSlow: () => void outcome.push('slow'),
  });
  return { replay, outcome, connection: connectionOf };
}

describe('a history replay', () => {
  it('writes the held updates in parts within maxQueuedBytes, as the connection has room, then the added ones', async () => {
    const { replay, outcome, connection } = replayOf(['aaaa', 'bbbb', 'cccc', 'dddd']);
    await sleep(5);
    // Two frames fit in 10 bytes, the third would not.
    expect(connection.chunks).toEqual(['aaaabbbb']);
    replay.add(frame('eeeeeeeeee'));
    await sleep(30);
    // Nothing more while the connection holds the first part.
    expect(connection.chunks).toEqual(['aaaabbbb']);
    connection.take();
    await sleep(150);
    expect(connection.chunks).toEqual(['aaaabbbb', 'ccccdddd']);
    expect(outcome).toEqual([]);
    connection.take();
    await sleep(150);
    expect(connection.chunks).toEqual(['aaaabbbb', 'ccccdddd', 'eeeeeeeeee']);
    // All written, but the connection holds 10 bytes: not handed over before it took most of them.
    expect(outcome).toEqual([]);
    connection.take();
    await sleep(150);
    expect(outcome).toEqual(['done']);
    // Done: what comes after is the hub's, not the replay's.
    replay.add(frame('ffff'));
    connection.take();
    await sleep(150);
    expect(connection.chunks).toHaveLength(3);
  });

  it('gives up a connection that takes nothing once what waits for it passes maxPendingBytes', async () => {
    const { replay, outcome, connection } = replayOf(['aaaa', 'bbbb', 'cccc'], newConnection(), 12);
    await sleep(5);
    replay.add(frame('dddd'));
    expect(outcome).toEqual([]);
    // Waiting, the first two written: cccc and dddd (8), then eeee (12, the most), then ffff (16).
    replay.add(frame('eeee'));
    expect(outcome).toEqual([]);
    replay.add(frame('ffff'));
    expect(outcome).toEqual(['slow']);
    connection.take();
    await sleep(150);
    expect(connection.chunks).toEqual(['aaaabbbb']);
  });

  it('writes an update larger than the connection may hold alone, once it holds nothing', async () => {
    const { outcome, connection } = replayOf(['aaaa', 'this frame is longer than ten bytes', 'cccc']);
    await sleep(5);
    expect(connection.chunks).toEqual(['aaaa']);
    connection.take();
    await sleep(150);
    expect(connection.chunks).toEqual(['aaaa', 'this frame is longer than ten bytes']);
    connection.take();
    await sleep(150);
    connection.take();
    await sleep(150);
    expect(connection.chunks).toEqual(['aaaa', 'this frame is longer than ten bytes', 'cccc']);
    expect(outcome).toEqual(['done']);
  });

  it('looks at a connection that takes nothing less and less often', async () => {
    const stalled = newConnection();
    let looks = 0;
    const queued = stalled.sink.queued;
    stalled.sink.queued = () => {
      looks++;
      return queued();
    };
    const { outcome } = replayOf(['aaaa', 'bbbb', 'cccc'], stalled);
    await sleep(400);
    // Every 10 ms would be about 40 looks; backing off (20, 40, 80, 160 ms…) makes a handful.
    expect(looks).toBeGreaterThan(2);
    expect(looks).toBeLessThan(15);
    expect(outcome).toEqual([]);
  });

  it('writes nothing more once cancelled', async () => {
    const { replay, outcome, connection } = replayOf(['aaaa', 'bbbb', 'cccc']);
    await sleep(5);
    replay.cancel();
    connection.take();
    await sleep(150);
    expect(connection.chunks).toEqual(['aaaabbbb']);
    expect(outcome).toEqual([]);
  });
});
