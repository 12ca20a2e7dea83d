// Turns a command's output into text for the model within a budget, whatever the command printed.
//
// - Decoding: UTF-8 with a streaming decoder (a character split across chunks stays whole); invalid bytes
//   become U+FFFD. Sanitizing and the budget are in text.ts.
// - Head and tail: the head (first ~40% of the budget) is decoded from the start. Once it is full, only the
//   newest RAW_TAIL_FACTOR × tail budget bytes matter: the reader skips the rest (skip) and they are decoded
//   once at the end. The tail is exact unless sanitizing removes almost all of those newest bytes (a stream
//   of escape sequences); then it shows the little text they held.
// - The bytes themselves stay in the command's output file (output-file.ts), which is the full output when
//   the text is cut.
import {
  cleanWithCarry,
  escapedSize,
  prefixWithin,
  sanitizeOutput,
  suffixStart,
  suffixWithin,
  windowStart,
} from './text.js';

export { escapedSize, sanitizeOutput } from './text.js';

export const DEFAULT_OUTPUT_BUDGET = 30_000;
/** Room kept for the truncation marker. */
const MARKER_RESERVE = 400;
/** Raw bytes kept for the tail once the head is full, as a multiple of the tail budget. */
const RAW_TAIL_FACTOR = 8;
/** Bytes decoded beyond what the tail needs, for what sanitizing removes (widened ×8 while too little). */
const WINDOW_SLACK = 1024;

export interface CollectedOutput {
  /** Sanitized text within the budget (head, marker, tail when cut). */
  text: string;
  truncated: boolean;
  /** Raw bytes received. */
  totalBytes: number;
  /** The file holding every raw byte, when the output outgrew the budget. */
  spillPath?: string;
}

/** Raw chunks keeping at least the newest `keep` bytes; whole chunks leave from the front. */
class ByteRing {
  chunks: Buffer[] = [];
  bytes = 0;
  /** Bytes that left from the front since the last reset. */
  lost = 0;

  constructor(private readonly keep: number) {}

  /** Copies `chunk` (the caller may reuse it). */
  push(chunk: Buffer): void {
    this.chunks.push(Buffer.from(chunk));
    this.bytes += chunk.length;
    for (let first = this.chunks[0]; first && this.bytes - first.length >= this.keep; first = this.chunks[0]) {
      this.chunks.shift();
      this.bytes -= first.length;
      this.lost += first.length;
    }
  }

  /** Everything held, as one buffer; the ring is emptied. */
  drain(): Buffer {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.chunks = [];
    this.bytes = 0;
    return all;
  }

  skip(n: number): void {
    this.lost += n;
  }
}

/** 1234567 → "1,234,567" (toLocaleString would load ICU's locale data: ~9 MiB of memory for a comma). */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export class OutputCollector {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly headBudget: number;
  private readonly tailBudget: number;
  private head = '';
  private headCost = 0;
  private readonly tail: Array<{ text: string; cost: number }> = [];
  private tailCost = 0;
  private dropped = false;
  private carry = '';
  /** Set once the head is full: later output waits here, undecoded. */
  private raw: ByteRing | undefined;
  private totalBytes = 0;
  private result: CollectedOutput | undefined;

  constructor(budget = DEFAULT_OUTPUT_BUDGET) {
    const b = Math.max(1000, budget) - MARKER_RESERVE;
    this.headBudget = Math.floor(b * 0.4);
    this.tailBudget = b - this.headBudget;
  }

  /** True once the head is full: from then on only the newest `tailBytes` bytes can be shown. */
  get headFull(): boolean {
    return this.raw !== undefined;
  }

  /** How many of the newest bytes the tail is decoded from. */
  get tailBytes(): number {
    return RAW_TAIL_FACTOR * this.tailBudget;
  }

  /** Adds output (copied where it is kept: the caller may reuse the buffer). */
  push(chunk: Buffer): void {
    if (this.result || chunk.length === 0) return;
    this.totalBytes += chunk.length;
    if (this.raw) this.raw.push(chunk);
    else this.addText(this.decoder.decode(chunk, { stream: true }));
  }

  /** Counts `n` bytes of output, after a full head, that are not read at all (older than the tail). */
  skip(n: number): void {
    if (this.result || n <= 0) return;
    if (!this.raw) throw new Error('OutputCollector.skip before the head is full');
    this.totalBytes += n;
    this.raw.skip(n);
  }

  private addText(decoded: string): void {
    const { clean, carry } = cleanWithCarry(this.carry + decoded);
    this.carry = carry;
    if (clean.length > 0) this.addClean(clean);
  }

  private addClean(clean: string): void {
    let rest = clean;
    if (!this.raw) {
      const cost = escapedSize(rest);
      if (this.headCost + cost <= this.headBudget) {
        this.head += rest;
        this.headCost += cost;
        return;
      }
      const part = prefixWithin(rest, this.headBudget - this.headCost);
      this.head += part;
      this.headCost += escapedSize(part);
      this.raw = new ByteRing(RAW_TAIL_FACTOR * this.tailBudget);
      rest = rest.slice(part.length);
    }
    if (rest.length > 0) this.addTail(rest);
  }

  private addTail(text: string): void {
    let rest = text;
    let cost = escapedSize(rest);
    if (cost > this.tailBudget) {
      rest = suffixWithin(rest, this.tailBudget);
      cost = escapedSize(rest);
      this.tail.length = 0;
      this.tailCost = 0;
      this.dropped = true;
    }
    this.tail.push({ text: rest, cost });
    this.tailCost += cost;
    while (this.tailCost > this.tailBudget) {
      const first = this.tail[0] as { text: string; cost: number };
      this.dropped = true;
      if (this.tailCost - first.cost >= this.tailBudget) {
        this.tail.shift();
        this.tailCost -= first.cost;
        continue;
      }
      const keep = suffixWithin(first.text, first.cost - (this.tailCost - this.tailBudget));
      const keepCost = escapedSize(keep);
      this.tailCost -= first.cost - keepCost;
      first.text = keep;
      first.cost = keepCost;
    }
  }

  /** Decodes the raw bytes kept since the head filled into the tail. */
  private decodeRaw(raw: ByteRing): void {
    const lost = raw.lost > 0;
    const bytes = raw.drain();
    if (!lost) {
      // Everything since the head filled is here: decode it exactly, as if it had been decoded on arrival.
      for (const text of [this.decoder.decode(bytes, { stream: true }), this.decoder.decode()]) {
        const { clean, carry } = cleanWithCarry(this.carry + text);
        this.carry = carry;
        if (clean) this.addTail(clean);
      }
      return;
    }
    // Older output is gone: the tail is the end of what is kept, decoded from a point just far enough back.
    this.dropped = true;
    this.carry = '';
    for (let slack = WINDOW_SLACK; ; slack *= 8) {
      const want = this.tailBudget + slack;
      const clean = sanitizeOutput(new TextDecoder('utf-8').decode(bytes.subarray(windowStart(bytes, bytes.length, want))));
      const kept = suffixStart(clean, this.tailBudget);
      if (kept.start > 0 || want >= bytes.length) {
        this.tail.length = 0;
        this.tail.push({ text: clean.slice(kept.start), cost: kept.cost });
        this.tailCost = kept.cost;
        return;
      }
    }
  }

  /**
   * The text for the model. When it is cut, `spillPath` (where every byte is) is named in the marker and
   * returned; otherwise it is left out.
   */
  finish(spillPath?: string): CollectedOutput {
    if (this.result) return this.result;
    if (this.raw) this.decodeRaw(this.raw);
    else this.addText(this.decoder.decode());
    if (this.carry) {
      const rest = sanitizeOutput(this.carry);
      this.carry = '';
      if (rest) this.addClean(rest);
    }
    const tail = this.tail.map((p) => p.text).join('');
    if (!this.dropped) return (this.result = { text: this.head + tail, truncated: false, totalBytes: this.totalBytes });
    const shown = Buffer.byteLength(this.head) + Buffer.byteLength(tail);
    const cut = Math.max(0, this.totalBytes - shown);
    const where = spillPath ? `; the full output is in ${spillPath}` : '';
    const marker = `\n\n... [${grouped(cut)} bytes of output omitted, ${grouped(this.totalBytes)} bytes in all${where}] ...\n\n`;
    return (this.result = { text: this.head + marker + tail, truncated: true, totalBytes: this.totalBytes, ...(spillPath ? { spillPath } : {}) });
  }
}
