// ProgressShaper: output coalesced per interval, capped to the newest maxChars with the rest counted as
// dropped, live output read only when a frame goes out, heartbeats after silence, and a final flush on stop.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressShaper } from '../../../src/executor/progress.js';
import type { ProgressInfo } from '../../../src/session/events.js';
import type { LiveOutput } from '../../../src/tools/tool.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function shaper(opts: { maxChars?: number; heartbeatMs?: number } = {}): { s: ProgressShaper; sent: ProgressInfo[] } {
  const sent: ProgressInfo[] = [];
  const s = new ProgressShaper({ intervalMs: 250, maxChars: opts.maxChars ?? 10, heartbeatMs: opts.heartbeatMs ?? 0 }, () => Date.now(), (p) => sent.push(p));
  return { s, sent };
}

/** A live source that records when it is read. */
function liveSource(chunks: string[]): LiveOutput & { takes: number[] } {
  const takes: number[] = [];
  return {
    takes,
    take(maxChars) {
      takes.push(maxChars);
      const all = chunks.splice(0).join('');
      const text = all.slice(-maxChars);
      return { text, skippedBytes: all.length - text.length };
    },
  };
}

describe('ProgressShaper', () => {
  it('carries the newest MCP progress/total with the coalesced frame, once', () => {
    const { s, sent } = shaper({ maxChars: 100 });
    vi.advanceTimersByTime(300);
    s.update({ kind: 'output', output: '1/4\n', progress: 1, total: 4 });
    s.update({ kind: 'output', output: '2/4\n', progress: 2, total: 4 });
    vi.advanceTimersByTime(300);
    s.update({ kind: 'output', output: 'step\n', progress: 3 });
    vi.advanceTimersByTime(300);
    s.update({ kind: 'output', output: 'no numbers\n' });
    s.stop();
    expect(sent).toEqual([
      { kind: 'output', output: '1/4\n2/4\n', totalBytes: 8, progress: 2, total: 4 },
      { kind: 'output', output: 'step\n', totalBytes: 13, progress: 3 },
      { kind: 'output', output: 'no numbers\n', totalBytes: 24 },
    ]);
  });

  it('coalesces output within an interval into one frame', () => {
    const { s, sent } = shaper();
    vi.advanceTimersByTime(300);
    s.update({ kind: 'output', output: 'ab', totalBytes: 2 });
    s.update({ kind: 'output', output: 'cd', totalBytes: 4 });
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(sent).toEqual([{ kind: 'output', output: 'abcd', totalBytes: 4 }]);
    s.update({ kind: 'output', output: 'ef', totalBytes: 6 });
    vi.advanceTimersByTime(249);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([
      { kind: 'output', output: 'abcd', totalBytes: 4 },
      { kind: 'output', output: 'ef', totalBytes: 6 },
    ]);
    s.stop();
  });

  it('keeps the newest maxChars and counts the rest as dropped', () => {
    const { s, sent } = shaper({ maxChars: 4 });
    s.update({ kind: 'output', output: 'abc', totalBytes: 3 });
    s.update({ kind: 'output', output: 'defgh', totalBytes: 8 });
    s.stop();
    expect(sent).toEqual([{ kind: 'output', output: 'efgh', totalBytes: 8, droppedBytes: 4 }]);
  });

  it('reads live output once per frame, when the frame goes out', () => {
    const { s, sent } = shaper({ maxChars: 4 });
    const chunks = ['0123', '4567'];
    const live = liveSource(chunks);
    s.update({ kind: 'output', totalBytes: 4, live });
    s.update({ kind: 'output', totalBytes: 8, live });
    expect(live.takes).toEqual([]);
    vi.advanceTimersByTime(250);
    expect(live.takes).toEqual([4]);
    expect(sent).toEqual([{ kind: 'output', output: '4567', totalBytes: 8, droppedBytes: 4 }]);
    chunks.push('89');
    s.update({ kind: 'output', totalBytes: 10, live });
    s.stop();
    expect(sent.at(-1)).toEqual({ kind: 'output', output: '89', totalBytes: 10 });
    expect(live.takes).toEqual([4, 4]);
  });

  it('sends a heartbeat after silence (checked every heartbeat period), with the bytes so far', () => {
    const { s, sent } = shaper({ heartbeatMs: 5000 });
    s.update({ kind: 'output', output: 'x', totalBytes: 1 });
    vi.advanceTimersByTime(250);
    // The 5 s check finds a frame 4.75 s old; the 10 s one finds 9.75 s of silence.
    vi.advanceTimersByTime(5000);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(5000);
    expect(sent).toEqual([
      { kind: 'output', output: 'x', totalBytes: 1 },
      { kind: 'heartbeat', totalBytes: 1 },
    ]);
    s.stop();
  });

  it('sends nothing after stop', () => {
    const { s, sent } = shaper();
    s.stop();
    s.update({ kind: 'output', output: 'late', totalBytes: 4 });
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual([]);
  });
});
