// NDJSON framing for inbound bytes. Linear time: every byte is scanned once by indexOf and copied at most once
// (when a line spans chunks). A line longer than the cap is discarded while it streams in, so memory stays
// bounded by the cap and is released as soon as the oversized line ends.
import { isUtf8 } from 'node:buffer';

export type LineEvent =
  | {
      kind: 'line';
      text: string;
      lineNumber: number;
      bytes: number;
      /** True for bytes that ended at EOF without a newline. */
      unterminated: boolean;
    }
  | {
      kind: 'error';
      code: 'line_too_long' | 'invalid_utf8';
      lineNumber: number;
      bytes: number;
    };

export interface LineReaderOptions {
  /** Lines with more bytes than this (excluding the newline) are rejected with `line_too_long`. */
  maxLineBytes: number;
}

const LF = 0x0a;
const CR = 0x0d;

/** Empty, or only spaces, tabs, CRs, vertical tabs and form feeds. Stops at the first other byte (O(1) for a frame). */
function isBlank(buf: Buffer): boolean {
  for (const b of buf) if (b !== 0x20 && b !== 0x09 && b !== CR && b !== 0x0b && b !== 0x0c) return false;
  return true;
}

export class LineFramer {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private discarding = false;
  private discardedBytes = 0;
  private lineNumber = 0;

  constructor(private readonly opts: LineReaderOptions) {}

  /** Feeds one chunk; returns the events it completes, in order. */
  push(chunk: Buffer): LineEvent[] {
    const out: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const idx = chunk.indexOf(LF, start);
      if (idx === -1) {
        this.append(chunk.subarray(start));
        return out;
      }
      const seg = chunk.subarray(start, idx);
      start = idx + 1;
      const ev = this.complete(seg, false);
      if (ev) out.push(ev);
    }
  }

  /** Signals end of input; returns the event for a trailing unterminated line, if any. */
  end(): LineEvent[] {
    if (!this.discarding && this.partBytes === 0) return [];
    const ev = this.complete(Buffer.alloc(0), true);
    return ev ? [ev] : [];
  }

  /** Bytes currently buffered for an incomplete line (for tests of the memory bound). */
  get bufferedBytes(): number {
    return this.partBytes;
  }

  private append(seg: Buffer): void {
    if (seg.length === 0) return;
    if (this.discarding) {
      this.discardedBytes += seg.length;
      return;
    }
    if (this.partBytes + seg.length > this.opts.maxLineBytes) {
      this.discarding = true;
      this.discardedBytes = this.partBytes + seg.length;
      this.parts = [];
      this.partBytes = 0;
      return;
    }
    // Copy: a view would pin the whole (possibly 64 KiB) chunk for a few bytes of line.
    this.parts.push(Buffer.from(seg));
    this.partBytes += seg.length;
  }

  private complete(seg: Buffer, atEof: boolean): LineEvent | undefined {
    const lineNumber = ++this.lineNumber;
    if (this.discarding || this.partBytes + seg.length > this.opts.maxLineBytes) {
      const bytes = (this.discarding ? this.discardedBytes : this.partBytes) + seg.length;
      this.reset();
      return { kind: 'error', code: 'line_too_long', lineNumber, bytes };
    }
    let buf = this.parts.length === 0 ? seg : Buffer.concat([...this.parts, seg], this.partBytes + seg.length);
    this.reset();
    if (buf.length > 0 && buf[buf.length - 1] === CR) buf = buf.subarray(0, buf.length - 1);
    if (isBlank(buf)) {
      // Blank and whitespace-only lines are not frames: both SDKs skip them on their side, and so does Claude
      // Code on its stdin (silently). They still count for line numbers.
      return undefined;
    }
    if (!isUtf8(buf)) return { kind: 'error', code: 'invalid_utf8', lineNumber, bytes: buf.length };
    return { kind: 'line', text: buf.toString('utf8'), lineNumber, bytes: buf.length, unterminated: atEof };
  }

  private reset(): void {
    this.parts = [];
    this.partBytes = 0;
    this.discarding = false;
    this.discardedBytes = 0;
  }
}

/** Frames a byte stream into line events. Pulling from the source applies backpressure to the writer. */
export async function* readLines(source: AsyncIterable<Buffer | string>, opts: LineReaderOptions): AsyncGenerator<LineEvent> {
  const framer = new LineFramer(opts);
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (const ev of framer.push(buf)) yield ev;
  }
  for (const ev of framer.end()) yield ev;
}
