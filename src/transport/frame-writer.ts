// The one writer of stdout. Frames are stringified once, U+2028/U+2029 escaped, capped in size, and written in
// call order. The high-rate frames (stream_event lines, tool_progress) are batched per event-loop turn into a
// single write; any other frame is one the host waits on (a tool_result, a control request, a result), so it
// goes out at once, with whatever was batched before it. A caller that must respect backpressure awaits the
// promise `write` returns when the buffer is over its high-water mark.
import type { Writable } from 'node:stream';
import { shrinkToFit } from './shrink.js';

export interface FrameWriterOptions {
  /** Largest outbound line in bytes, newline excluded (default 1 MiB: the Python SDK's read limit). */
  maxLineBytes: number;
  /** Buffered bytes above which `write` returns a promise that resolves once drained. */
  highWaterMark: number;
  onOversize?: (info: { originalBytes: number; finalBytes: number; type: string }) => void;
  /** Removes agentd's secret values from each line (util/secrets.ts). */
  redact?: (line: string) => string;
  onClosed?: (err: Error | undefined) => void;
}

/** A batch this large is written without waiting for the end of the event-loop turn. */
const FLUSH_AT_BYTES = 64 * 1024;
const LS_PS = /[\u2028\u2029]/g;
/** Non-global twin for the presence test (a global regex's test() is stateful). */
const HAS_LS_PS = /[\u2028\u2029]/;

/**
 * Frames that come in bursts and are batched. Any other frame flushes at once: held to the end of the turn, a
 * tool_result waited while the session built the next model request (0.9 ms of the SDK MCP round trip).
 */
const BATCHED_TYPES: ReadonlySet<unknown> = new Set(['stream_event', 'tool_progress']);

/** JSON allows raw U+2028/U+2029, JavaScript source before ES2019 does not; hosts that eval lines break. */
function escapeLineSeparators(s: string): string {
  return HAS_LS_PS.test(s) ? s.replace(LS_PS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029')) : s;
}

export function serializeFrame(frame: unknown): string {
  return escapeLineSeparators(JSON.stringify(frame));
}

export class FrameWriter {
  private pending = '';
  private pendingBytes = 0;
  private scheduled = false;
  private needDrain = false;
  private closed = false;
  private waiters: Array<() => void> = [];
  private readonly flushNow = (): void => this.flush();
  // Called when the stream has taken a chunk off its buffer. Without it, a write the stream accepted without
  // asking for 'drain' (its mark above ours) would leave waiters over our mark with no event to wake them.
  private readonly written = (): void => this.release();

  constructor(
    private readonly out: Writable,
    private readonly opts: FrameWriterOptions,
  ) {
    out.on('drain', () => {
      this.needDrain = false;
      this.flush();
    });
    out.on('error', (err: Error) => this.markClosed(err));
    out.on('close', () => this.markClosed(undefined));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Queues one frame. Returns a promise only when the caller should wait for the host to read. */
  write(frame: unknown): Promise<void> | undefined {
    if (this.closed) return undefined;
    const type = typeof frame === 'object' && frame !== null && 'type' in frame ? frame.type : undefined;
    return this.queueJson(JSON.stringify(frame), frame, !BATCHED_TYPES.has(type));
  }

  /**
   * Queues a frame that is already serialised (one line of JSON, no newline; the stream_event hot path), batched.
   * Same guarantees as `write`.
   */
  writeLine(json: string): Promise<void> | undefined {
    if (this.closed) return undefined;
    return this.queueJson(json, undefined, false);
  }

  /**
   * U+2028/U+2029 are escaped when the batch is written (flush), once for all its lines, not line by line
   * (which would also flatten each line's string, built by concatenation on the stream_event hot path, only for
   * the batch to be flattened again). Only a line that may be over the cap is escaped here, to be measured as
   * it will be written.
   */
  private queueJson(json: string, frame: unknown, now: boolean): Promise<void> | undefined {
    let line = json;
    // Cheap upper bound first: UTF-8 needs at most 3 bytes per UTF-16 unit.
    if (line.length * 3 > this.opts.maxLineBytes) {
      // Measured as it will be written: redacted (the batch is redacted again at flush; that finds nothing more).
      if (this.opts.redact) line = this.opts.redact(line);
      line = escapeLineSeparators(line);
      const bytes = Buffer.byteLength(line);
      if (bytes > this.opts.maxLineBytes) line = this.shrink(frame ?? (JSON.parse(line) as unknown), bytes);
    }
    return this.enqueue(line, now);
  }

  private enqueue(line: string, now: boolean): Promise<void> | undefined {
    // String concatenation builds a rope; it is flattened once, when the batch is written.
    this.pending += `${line}\n`;
    this.pendingBytes += line.length + 1;
    // A frame the host waits on goes out now. A fast stream can queue megabytes before the event loop reaches
    // setImmediate; past a batch's worth, hand it over now, so queued lines (and the event text they hold) do
    // not outlive young-generation GCs.
    if ((now || this.pendingBytes >= FLUSH_AT_BYTES) && !this.needDrain) this.flush();
    else if (!this.scheduled && !this.needDrain) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
    if (this.pendingBytes + this.out.writableLength > this.opts.highWaterMark) {
      return new Promise((resolve) => this.waiters.push(resolve));
    }
    return undefined;
  }

  /** Resolves when every queued frame has been handed to the stream (or the stream is gone). */
  async drain(): Promise<void> {
    this.flush();
    while (!this.closed && (this.needDrain || this.pending !== '')) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      this.flush();
    }
    if (this.closed || this.out.writableLength === 0) return;
    // An empty write's callback runs once everything written before it has been flushed to the OS.
    await new Promise<void>((resolve) => this.out.write('', () => resolve()));
  }

  private shrink(frame: unknown, bytes: number): string {
    // Measured as it will be written: escaping U+2028/U+2029 doubles their size.
    const shrunk = serializeFrame(shrinkToFit(frame, this.opts.maxLineBytes, serializeFrame));
    const type =
      typeof frame === 'object' && frame !== null && typeof (frame as { type?: unknown }).type === 'string'
        ? String((frame as { type: string }).type)
        : 'unknown';
    this.opts.onOversize?.({ originalBytes: bytes, finalBytes: Buffer.byteLength(shrunk), type });
    return shrunk;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.closed) {
      this.pending = '';
      this.pendingBytes = 0;
      this.release();
      return;
    }
    if (this.needDrain || this.pending === '') {
      if (!this.needDrain) this.release();
      return;
    }
    // Every line's U+2028/U+2029 are escaped here, once per batch (see queueJson), and agentd's secrets redacted:
    // a secret holds no newline, so a match in the batch is a match in one of its lines, and scanning the batch
    // once does not flatten each line's rope on the stream_event hot path.
    // Handed over as bytes: a batch the pipe cannot take at once waits in the stream's buffer, and as a string
    // it would be copied by every young-generation GC until the host reads it; a Buffer's bytes live outside
    // the JS heap (the encoding to UTF-8 happens once either way).
    const text = escapeLineSeparators(this.pending);
    const chunk = Buffer.from(this.opts.redact ? this.opts.redact(text) : text, 'utf8');
    this.pending = '';
    this.pendingBytes = 0;
    const ok = this.out.write(chunk, this.written);
    if (!ok) this.needDrain = true;
    else this.release();
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    if (!this.closed && this.pendingBytes + this.out.writableLength > this.opts.highWaterMark) return;
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  private markClosed(err: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = '';
    this.pendingBytes = 0;
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
    this.opts.onClosed?.(err);
  }
}
