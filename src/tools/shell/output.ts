// Collects a command's output for the model within a budget, whatever the command prints.
//
// - Decoding: UTF-8 with a streaming decoder (a character split across chunks stays whole); invalid bytes
//   become U+FFFD.
// - Sanitizing: ANSI escape sequences (CSI, OSC, two-byte ESC forms) are removed, then every other C0 control
//   character except \n and \t, and DEL. What is left is printable text whose JSON form is predictable.
// - Budget: measured on the JSON-escaped UTF-8 size (\n, \t, " and \ count 2; U+2028/2029 count 6 since the
//   transport escapes them; non-ASCII counts its UTF-8 length), so the text can be embedded in a frame twice
//   (tool_result content and tool_use_result) and the line stays under 64 KB whatever the bytes were.
// - Memory: only the head (first ~40% of the budget) and a tail ring (last ~60%) are kept. Once the output
//   outgrows the budget, the raw bytes (all of them, from the first) are streamed to a spill file with
//   backpressure, so a command printing 50 MB costs a few hundred KB of memory.
import { createWriteStream, type WriteStream } from 'node:fs';

export const DEFAULT_OUTPUT_BUDGET = 30_000;
/** Room kept for the truncation marker. */
const MARKER_RESERVE = 400;
/** Raw bytes held before spilling when little of them is visible (e.g. a stream of NULs). */
const RAW_HOLD_FACTOR = 4;

const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;
const COMPLETE_ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/;

export function sanitizeOutput(s: string): string {
  return s.replace(ANSI, '').replace(CONTROL, '');
}

/** JSON-escaped UTF-8 size of sanitized text (see the header). */
export function escapedSize(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) n += unitCost(s.charCodeAt(i));
  return n;
}

function unitCost(c: number): number {
  if (c < 0x20) return c === 0x0a || c === 0x09 ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdfff) return 2; // half of a 4-byte character
  if (c === 0x2028 || c === 0x2029) return 6;
  return 3;
}

/** The longest prefix of `s` costing at most `budget`, never splitting a surrogate pair. */
function prefixWithin(s: string, budget: number): string {
  let cost = 0;
  let i = 0;
  for (; i < s.length; i++) {
    const c = unitCost(s.charCodeAt(i));
    if (cost + c > budget) break;
    cost += c;
  }
  if (i > 0 && i < s.length && isHigh(s.charCodeAt(i - 1))) i--;
  return s.slice(0, i);
}

/** The longest suffix of `s` costing at most `budget`, never splitting a surrogate pair. */
function suffixWithin(s: string, budget: number): string {
  let cost = 0;
  let i = s.length;
  for (; i > 0; i--) {
    const c = unitCost(s.charCodeAt(i - 1));
    if (cost + c > budget) break;
    cost += c;
  }
  if (i < s.length && i > 0 && isLow(s.charCodeAt(i))) i++;
  return s.slice(i);
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

export interface CollectedOutput {
  /** Sanitized text within the budget (head, marker, tail when cut). */
  text: string;
  truncated: boolean;
  /** Raw bytes received. */
  totalBytes: number;
  /** The file holding every raw byte, when the output outgrew the budget. */
  spillPath?: string;
}

export interface OutputCollectorOptions {
  budget?: number;
  /** Where to spill; called at most once, when spilling starts. */
  spillPath: () => string;
  /** Live output: each sanitized piece as it arrives, with the raw byte count so far. */
  onText?: (text: string, totalBytes: number) => void;
  onSpillError?: (e: Error) => void;
}

export class OutputCollector {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly headBudget: number;
  private readonly tailBudget: number;
  private head = '';
  private headCost = 0;
  private headFull = false;
  private readonly tail: Array<{ text: string; cost: number }> = [];
  private tailCost = 0;
  private dropped = false;
  private carry = '';
  private totalBytes = 0;
  private held: Buffer[] | undefined = [];
  private heldBytes = 0;
  private spill: WriteStream | undefined;
  private spillFile: string | undefined;
  private spillFailed = false;
  private finished = false;

  constructor(private readonly opts: OutputCollectorOptions) {
    const budget = Math.max(1000, opts.budget ?? DEFAULT_OUTPUT_BUDGET) - MARKER_RESERVE;
    this.headBudget = Math.floor(budget * 0.4);
    this.tailBudget = budget - this.headBudget;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** Adds raw output. Returns false when the spill file is backed up: pause the source until onDrain. */
  push(chunk: Buffer): boolean {
    if (this.finished || chunk.length === 0) return true;
    this.totalBytes += chunk.length;
    let more = true;
    if (this.held) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
    } else more = this.writeSpill(chunk);
    this.addText(this.decoder.decode(chunk, { stream: true }));
    if (this.held && (this.dropped || this.heldBytes > RAW_HOLD_FACTOR * (this.headBudget + this.tailBudget))) more = this.startSpill();
    return more;
  }

  onDrain(cb: () => void): void {
    if (this.spill && this.spill.writableNeedDrain) this.spill.once('drain', cb);
    else cb();
  }

  private addText(decoded: string): void {
    let s = this.carry + decoded;
    this.carry = '';
    // An escape sequence cut by the chunk boundary is completed by the next chunk.
    const esc = s.lastIndexOf('\x1b');
    if (esc >= 0 && s.length - esc < 256 && !COMPLETE_ESCAPE.test(s.slice(esc))) {
      this.carry = s.slice(esc);
      s = s.slice(0, esc);
    }
    const clean = sanitizeOutput(s);
    if (clean.length === 0) return;
    this.opts.onText?.(clean, this.totalBytes);
    this.take(clean);
  }

  private take(clean: string): void {
    let rest = clean;
    if (!this.headFull) {
      const cost = escapedSize(rest);
      if (this.headCost + cost <= this.headBudget) {
        this.head += rest;
        this.headCost += cost;
        return;
      }
      const part = prefixWithin(rest, this.headBudget - this.headCost);
      this.head += part;
      this.headCost += escapedSize(part);
      this.headFull = true;
      rest = rest.slice(part.length);
    }
    if (rest.length === 0) return;
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

  private startSpill(): boolean {
    const held = this.held ?? [];
    this.held = undefined;
    this.heldBytes = 0;
    try {
      this.spillFile = this.opts.spillPath();
      this.spill = createWriteStream(this.spillFile, { mode: 0o600 });
      this.spill.on('error', (e) => this.failSpill(e));
    } catch (e) {
      this.failSpill(e instanceof Error ? e : new Error(String(e)));
      return true;
    }
    let more = true;
    for (const b of held) more = this.writeSpill(b);
    return more;
  }

  private writeSpill(chunk: Buffer): boolean {
    if (!this.spill || this.spillFailed) return true;
    return this.spill.write(chunk);
  }

  private failSpill(e: Error): void {
    if (this.spillFailed) return;
    this.spillFailed = true;
    this.opts.onSpillError?.(e);
    this.spill?.destroy();
  }

  /** Stops collecting and closes the spill file. Output pushed afterwards is ignored. */
  async finish(): Promise<CollectedOutput> {
    if (!this.finished) {
      this.finished = true;
      this.addText(this.decoder.decode());
      if (this.carry) {
        const rest = sanitizeOutput(this.carry);
        this.carry = '';
        if (rest) this.take(rest);
      }
    }
    const spill = this.spill;
    if (spill && !this.spillFailed && !spill.closed) {
      await new Promise<void>((resolve) => {
        spill.once('close', () => resolve());
        spill.once('error', () => resolve());
        spill.end();
      });
    }
    const spillPath = this.spillFile && !this.spillFailed ? this.spillFile : undefined;
    const tail = this.tail.map((p) => p.text).join('');
    if (!this.dropped) return { text: this.head + tail, truncated: false, totalBytes: this.totalBytes, ...(spillPath ? { spillPath } : {}) };
    const shown = Buffer.byteLength(this.head) + Buffer.byteLength(tail);
    const cut = Math.max(0, this.totalBytes - shown);
    const where = spillPath ? `; the full output is in ${spillPath}` : '';
    const marker = `\n\n... [${cut.toLocaleString('en-US')} bytes of output omitted, ${this.totalBytes.toLocaleString('en-US')} bytes in all${where}] ...\n\n`;
    return { text: this.head + marker + tail, truncated: true, totalBytes: this.totalBytes, ...(spillPath ? { spillPath } : {}) };
  }
}
