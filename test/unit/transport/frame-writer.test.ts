// The one stdout writer (src/transport/frame-writer.ts): line format, order, batching, backpressure, the
// outbound line cap, and a stream that dies under it. No sleeps: the writer flushes on setImmediate, so the
// tests step the event loop explicitly, and the fake stream completes writes only when told.
import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { AssistantFrame } from '../../../protocol/src/index.js';
import { FrameWriter, type FrameWriterOptions, serializeFrame } from '../../../src/transport/frame-writer.js';

/** One turn of the event loop: runs pending setImmediate callbacks (the writer's flush) and their effects. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A Writable that completes each write only when `complete()` is called (or at once in `auto` mode). */
class HeldWritable extends Writable {
  readonly chunks: string[] = [];
  auto = false;
  private held: Array<() => void> = [];

  constructor(highWaterMark: number) {
    super({ highWaterMark, decodeStrings: false });
  }

  override _write(chunk: unknown, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(String(chunk));
    if (this.auto) cb();
    else this.held.push(() => cb());
  }

  /** Completes every held write, including writes the stream starts while completing. */
  complete(): void {
    while (this.held.length > 0) {
      const h = this.held;
      this.held = [];
      for (const f of h) f();
    }
  }

  get text(): string {
    return this.chunks.join('');
  }
}

/** A Writable whose writes fail like a pipe whose reader went away. */
class BrokenPipe extends Writable {
  writes = 0;
  override _write(_chunk: unknown, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.writes++;
    cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  }
}

function writer(out: Writable, opts: Partial<FrameWriterOptions> = {}): FrameWriter {
  return new FrameWriter(out, { maxLineBytes: 1024 * 1024, highWaterMark: 1024 * 1024, ...opts });
}

function track(p: Promise<void> | undefined): { done: () => boolean } {
  let done = false;
  void p?.then(() => {
    done = true;
  });
  return { done: () => done };
}

const lines = (text: string): unknown[] =>
  text
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l) as unknown);

describe('FrameWriter format', () => {
  it('redacts secrets in every line, frames and pre-serialised lines alike, and in a line measured against the cap', async () => {
    const out = new HeldWritable(1 << 20);
    out.auto = true;
    const redact = (t: string): string => t.split('sk-secret-123').join('[REDACTED]');
    const w = writer(out, { redact, maxLineBytes: 300 });
    void w.write({ type: 'a', text: 'key sk-secret-123 twice sk-secret-123' });
    void w.writeLine(JSON.stringify({ type: 'b', text: 'sk-secret-123' }));
    void w.write({ type: 'c', text: `${'x'.repeat(120)} sk-secret-123` });
    await turn();
    expect(lines(out.chunks.join(''))).toEqual([
      { type: 'a', text: 'key [REDACTED] twice [REDACTED]' },
      { type: 'b', text: '[REDACTED]' },
      { type: 'c', text: `${'x'.repeat(120)} [REDACTED]` },
    ]);
  });

  it('writes one line per frame, ended by \\n only, with U+2028/U+2029 escaped', async () => {
    const out = new HeldWritable(1 << 20);
    out.auto = true;
    const w = writer(out);
    const frames = [
      { type: 'a', text: 'line\u2028separator\u2029paragraph' },
      { type: 'b', text: 'crlf\r\ninside' },
    ];
    for (const f of frames) void w.write(f);
    await w.drain();
    expect(out.text).toBe(
      '{"type":"a","text":"line\\u2028separator\\u2029paragraph"}\n{"type":"b","text":"crlf\\r\\ninside"}\n',
    );
    expect(/[\r\u2028\u2029]/.test(out.text)).toBe(false);
    expect(lines(out.text)).toEqual(frames);
  });

  it('serializeFrame escapes every U+2028/U+2029, also on repeated calls', () => {
    for (let i = 0; i < 3; i++) {
      expect(serializeFrame({ s: '\u2028a\u2029\u2028' })).toBe('{"s":"\\u2028a\\u2029\\u2028"}');
      expect(serializeFrame({ s: 'plain' })).toBe('{"s":"plain"}');
    }
  });

  it('batches the stream_event and tool_progress frames of one event-loop turn into one write, in call order', async () => {
    const out = new HeldWritable(1 << 20);
    out.auto = true;
    const w = writer(out);
    const frames = Array.from({ length: 50 }, (_, i) => (i % 3 === 0 ? { type: 'tool_progress', i } : { type: 'stream_event', i }));
    for (const [i, f] of frames.entries()) void (i % 2 ? w.write(f) : w.writeLine(JSON.stringify(f)));
    expect(out.chunks).toEqual([]);
    await turn();
    expect(out.chunks).toHaveLength(1);
    expect(lines(out.text)).toEqual(frames);
  });

  it('writes any other frame (one the host waits on) at once, with the frames batched before it, in order', async () => {
    const out = new HeldWritable(1 << 20);
    out.auto = true;
    const w = writer(out);
    void w.writeLine('{"type":"stream_event","i":0}');
    void w.write({ type: 'tool_progress', i: 1 });
    expect(out.chunks).toEqual([]);
    void w.write({ type: 'user', i: 2 });
    expect(lines(out.text)).toEqual([
      { type: 'stream_event', i: 0 },
      { type: 'tool_progress', i: 1 },
      { type: 'user', i: 2 },
    ]);
    void w.write({ type: 'control_request', i: 3 });
    void w.write({ type: 'stream_event', i: 4 });
    expect(out.chunks).toHaveLength(2);
    await turn();
    expect(out.chunks).toHaveLength(3);
    expect(lines(out.text).map((f) => (f as { i: number }).i)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('FrameWriter backpressure', () => {
  const frame = { type: 'pad', pad: 'x'.repeat(40) }; // 38 + 40 bytes + newline
  const lineBytes = serializeFrame(frame).length + 1;

  it('returns a promise once over its high-water mark, resolved only after the stream drains', async () => {
    const out = new HeldWritable(16);
    const w = writer(out, { highWaterMark: lineBytes + 10 });
    expect(w.write(frame)).toBeUndefined();
    const p = w.write(frame);
    expect(p).toBeInstanceOf(Promise);
    const t = track(p);
    await turn();
    // Both frames went out in one write, which the stream has not completed: still over the mark.
    expect(out.chunks).toHaveLength(1);
    expect(t.done()).toBe(false);

    const t3 = track(w.write({ ...frame, n: 3 }));
    await turn();
    expect(out.chunks).toHaveLength(1); // held back until 'drain'
    expect(t.done()).toBe(false);
    expect(t3.done()).toBe(false);

    for (let i = 0; i < 5 && !(t.done() && t3.done()); i++) {
      out.complete();
      await turn();
    }
    expect(t.done()).toBe(true);
    expect(t3.done()).toBe(true);
    expect(lines(out.text)).toEqual([frame, frame, { ...frame, n: 3 }]);
  });

  it('releases waiters even when the stream buffers more than the writer does (writer mark < stream mark)', async () => {
    // The stream accepts the write without asking for 'drain', so no 'drain' event will ever come.
    const out = new HeldWritable(1 << 20);
    const w = writer(out, { highWaterMark: lineBytes });
    void w.write(frame);
    const t = track(w.write(frame));
    await turn();
    expect(t.done()).toBe(false);
    out.complete();
    await turn();
    expect(t.done()).toBe(true);
  });

  it('preserves order across many writes under backpressure', async () => {
    const out = new HeldWritable(64);
    const w = writer(out, { highWaterMark: 256 });
    let waits = 0;
    for (let i = 0; i < 300; i++) {
      const p = w.write({ type: 'seq', i });
      if (p) {
        waits++;
        const t = track(p);
        while (!t.done()) {
          out.complete();
          await turn();
        }
      }
    }
    const d = track(w.drain());
    while (!d.done()) {
      out.complete();
      await turn();
    }
    expect(waits).toBeGreaterThan(0);
    expect(lines(out.text)).toEqual(Array.from({ length: 300 }, (_, i) => ({ type: 'seq', i })));
  });

  it('drain() resolves once everything queued has been written out', async () => {
    const out = new HeldWritable(16);
    const w = writer(out);
    void w.write({ type: 'a' });
    void w.write({ type: 'b' });
    const d = track(w.drain());
    await turn();
    expect(d.done()).toBe(false);
    for (let i = 0; i < 5 && !d.done(); i++) {
      out.complete();
      await turn();
    }
    expect(d.done()).toBe(true);
    expect(out.text).toBe('{"type":"a"}\n{"type":"b"}\n');
    expect(out.writableLength).toBe(0);
  });

  it('drain() resolves at once when nothing is queued', async () => {
    const out = new HeldWritable(16);
    const d = track(writer(out).drain());
    await turn();
    expect(d.done()).toBe(true);
    expect(out.chunks).toEqual([]);
  });
});

describe('FrameWriter line cap', () => {
  const assistant = (text: string): AssistantFrame => ({
    type: 'assistant',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
    parent_tool_use_id: null,
    uuid: 'u-1',
    session_id: 's-1',
    timestamp: '2026-01-01T00:00:00.000Z',
  });

  const keyPaths = (v: unknown, path = ''): string[] =>
    Array.isArray(v)
      ? v.flatMap((x, i) => keyPaths(x, `${path}[${i}]`))
      : v && typeof v === 'object'
        ? Object.entries(v).flatMap(([k, x]) => [`${path}.${k}`, ...keyPaths(x, `${path}.${k}`)])
        : [];

  it.each([
    ['ASCII text', 'a'.repeat(100_000)],
    ['text that JSON escapes', '"\\\u0001'.repeat(30_000)],
    ['multi-byte text', '€😀'.repeat(20_000)],
    ['U+2028/U+2029 text', '\u2028\u2029'.repeat(30_000)],
    // Just over the cap once escaped: U+2028 is 3 bytes raw but 6 on the wire.
    ['U+2028 text near the cap', '\u2028'.repeat(1300)],
  ])('shrinks an oversized frame (%s) below the cap, still valid and with the same keys', async (_label, text) => {
    const out = new HeldWritable(1 << 20);
    out.auto = true;
    const onOversize = vi.fn();
    const maxLineBytes = 4096;
    const w = writer(out, { maxLineBytes, onOversize });
    const original = assistant(text);
    void w.write(original);
    void w.write({ type: 'after' });
    await w.drain();
    const [line, next, rest] = out.text.split('\n');
    expect(rest).toBe('');
    expect(next).toBe('{"type":"after"}');
    const bytes = Buffer.byteLength(line ?? '');
    expect(bytes).toBeLessThanOrEqual(maxLineBytes);
    const parsed = JSON.parse(line ?? '') as unknown;
    expect(AssistantFrame.safeParse(parsed).success).toBe(true);
    expect(keyPaths(parsed)).toEqual(keyPaths(original));
    expect(JSON.stringify(parsed)).toContain('bytes cut to fit the 4096-byte line limit]');
    expect(onOversize.mock.calls).toEqual([
      [{ originalBytes: Buffer.byteLength(serializeFrame(original)), finalBytes: bytes, type: 'assistant' }],
    ]);
  });

  it('leaves a frame of exactly the cap alone', async () => {
    const out = new HeldWritable(1 << 20);
    out.auto = true;
    const onOversize = vi.fn();
    const base = serializeFrame({ type: 'x', s: '' }).length;
    const w = writer(out, { maxLineBytes: base + 100, onOversize });
    void w.write({ type: 'x', s: 'y'.repeat(100) });
    await w.drain();
    expect(out.text).toBe(`{"type":"x","s":"${'y'.repeat(100)}"}\n`);
    expect(onOversize).not.toHaveBeenCalled();
  });
});

describe('FrameWriter on a closed stream', () => {
  it('calls onClosed once on EPIPE, drops later writes and releases waiters', async () => {
    const out = new BrokenPipe({ highWaterMark: 16 });
    const onClosed = vi.fn();
    const w = writer(out, { highWaterMark: 32, onClosed });
    // Batched frames: both are queued, and the second waits over the mark when the first write fails.
    void w.write({ type: 'stream_event', pad: 'x'.repeat(40) });
    const t = track(w.write({ type: 'stream_event' }));
    for (let i = 0; i < 5 && !out.destroyed; i++) await turn();
    await turn();
    expect(onClosed).toHaveBeenCalledTimes(1);
    expect(onClosed.mock.calls[0]?.[0]).toMatchObject({ message: 'write EPIPE', code: 'EPIPE' });
    expect(w.isClosed).toBe(true);
    expect(t.done()).toBe(true);

    const writesBefore = out.writes;
    expect(w.write({ type: 'late' })).toBeUndefined();
    await w.drain();
    await turn();
    expect(out.writes).toBe(writesBefore);
    expect(onClosed).toHaveBeenCalledTimes(1);
  });

  it("treats an 'error' event as closed (process.stdout reports EPIPE that way) and a later 'close' as the same", async () => {
    const out = new HeldWritable(16);
    const onClosed = vi.fn();
    const w = writer(out, { onClosed });
    const err = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    out.emit('error', err);
    out.emit('close');
    expect(onClosed.mock.calls).toEqual([[err]]);
    expect(w.write({ type: 'late' })).toBeUndefined();
    await turn();
    expect(out.chunks).toEqual([]);
  });

  it("reports a plain 'close' with no error", () => {
    const out = new HeldWritable(16);
    const onClosed = vi.fn();
    writer(out, { onClosed });
    out.emit('close');
    expect(onClosed.mock.calls).toEqual([[undefined]]);
  });
});
