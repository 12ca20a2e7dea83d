// A command's output goes straight to a file (stdout and stderr both, so their order is the order written),
// and agentd reads back only what it shows: the head and the tail when the command ends (output.ts), and the
// newest bytes for live progress while it runs. Node never handles the bytes in between: a pipe would hand
// every 64 KiB of a 50 MB output to JavaScript, each in a buffer the GC frees late, for nearly all of it to
// be dropped. The file is kept as the full output when the model's text is cut, and removed otherwise.
//
// A job the command left running in the background keeps its copy of the file: what it writes after the
// command ended is not shown (completion is the shell's exit), and goes to the removed file's inode until the
// job ends (its process group is tracked and killed when agentd stops).
import { closeSync, constants, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import type { LiveOutput } from '../tool.js';
import { type CollectedOutput, DEFAULT_OUTPUT_BUDGET, OutputCollector } from './output.js';
import { ESC_LOOKBACK, cleanWithCarry, incompleteUtf8Tail, lastChars, sanitizeOutput, windowStart } from './text.js';

const BLOCK = 64 * 1024;
/** Bytes decoded for live output beyond the characters shown, for what sanitizing removes. */
const LIVE_SLACK = 1024;
/** Untaken live output kept past close (more than a progress frame shows). */
const SAVED_MAX = 64 * 1024;

export class OutputFile implements LiveOutput {
  /** The descriptor the command writes to (append-only). Close it with releaseWriter once the child has it. */
  readonly writeFd: number;
  private readonly readFd: number;
  private writerOpen = true;
  /** Live output: bytes before this were taken (always a character and escape-sequence boundary). */
  private cursor = 0;
  /** Set when the command ended: the last live read takes everything, cut sequences included. */
  private ended = false;
  private closed = false;
  /** Set by collect when the text was cut: the file is then the full output and stays. */
  private keep = false;
  /** After close: the newest bytes live output had not taken yet (the executor takes them after the call). */
  private saved: { at: number; size: number; bytes: Buffer } | undefined;

  constructor(readonly path: string) {
    // O_EXCL and O_NOFOLLOW: the name is fresh and random; anything already there is not ours to write.
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND | constants.O_NOFOLLOW;
    this.writeFd = openSync(path, flags, 0o600);
    try {
      this.readFd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (e) {
      closeSync(this.writeFd);
      rmSync(path, { force: true });
      throw e;
    }
  }

  /** Whether collect kept the file as the command's full output. */
  get kept(): boolean {
    return this.keep;
  }

  releaseWriter(): void {
    if (!this.writerOpen) return;
    this.writerOpen = false;
    closeSync(this.writeFd);
  }

  size(): number {
    return this.closed ? (this.saved?.size ?? this.cursor) : fstatSync(this.readFd).size;
  }

  /** LiveOutput: the newest output since the previous take; a sequence or character cut at the end waits. */
  take(maxChars: number): { text: string; skippedBytes: number } {
    const size = this.size();
    if (size <= this.cursor) return { text: '', skippedBytes: 0 };
    const want = maxChars + LIVE_SLACK;
    const from = Math.max(this.cursor, size - want - ESC_LOOKBACK, this.saved?.at ?? 0);
    const bytes = this.read(from, size - from);
    const end = this.ended ? bytes.length : bytes.length - incompleteUtf8Tail(bytes);
    // Reading from the cursor, start there: it is a boundary already.
    const start = from === this.cursor && end <= want ? 0 : windowStart(bytes, end, want);
    const decoded = new TextDecoder('utf-8').decode(bytes.subarray(start, end));
    let clean: string;
    let rest = end;
    if (this.ended) clean = sanitizeOutput(decoded);
    else {
      const c = cleanWithCarry(decoded);
      clean = c.clean;
      if (c.carry) rest = Math.max(start, end - Buffer.byteLength(c.carry));
    }
    const skippedBefore = from + start - this.cursor;
    this.cursor = from + rest;
    const text = lastChars(clean, maxChars);
    const cutChars = clean.length - text.length;
    return { text, skippedBytes: skippedBefore + (cutChars > 0 ? Buffer.byteLength(clean.slice(0, cutChars)) : 0) };
  }

  /**
   * The command ended (or was stopped): reads the head and the tail, and keeps the file only when the text
   * is cut. Output written later (by a job left in the background) is not part of the result.
   */
  collect(budget = DEFAULT_OUTPUT_BUDGET): CollectedOutput {
    this.ended = true;
    const size = this.size();
    const c = new OutputCollector(budget);
    const block = Buffer.allocUnsafe(BLOCK);
    let pos = 0;
    const readTo = (stop: () => boolean): void => {
      while (pos < size && !stop()) {
        const n = readSync(this.readFd, block, 0, Math.min(BLOCK, size - pos), pos);
        if (n <= 0) break;
        c.push(block.subarray(0, n));
        pos += n;
      }
    };
    readTo(() => c.headFull);
    if (size - pos > c.tailBytes) {
      // Start the tail's bytes at an escape sequence that begins shortly before, so it is removed whole.
      const lo = Math.max(pos, size - c.tailBytes - ESC_LOOKBACK);
      const before = this.read(lo, size - c.tailBytes - lo);
      const from = lo + windowStart(before, before.length, 0);
      c.skip(from - pos);
      pos = from;
    }
    readTo(() => false);
    const out = c.finish(this.path);
    this.keep = out.truncated;
    if (!this.keep) this.remove();
    return out;
  }

  /**
   * Closes agentd's descriptors and removes the file unless collect kept it (a command that never started
   * leaves nothing behind). The newest bytes not yet taken as live
   * output (at most SAVED_MAX) are kept for the executor's last take, which comes after the call returned.
   */
  close(): void {
    this.releaseWriter();
    if (this.closed) return;
    const size = this.size();
    if (size > this.cursor) {
      const at = Math.max(this.cursor, size - SAVED_MAX);
      this.saved = { at, size, bytes: this.read(at, size - at) };
    }
    this.closed = true;
    closeSync(this.readFd);
    if (!this.keep) this.remove();
  }

  private remove(): void {
    rmSync(this.path, { force: true });
  }

  private read(position: number, length: number): Buffer {
    if (this.closed) {
      const saved = this.saved;
      if (!saved) return Buffer.alloc(0);
      return saved.bytes.subarray(position - saved.at, position - saved.at + length);
    }
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(this.readFd, buf, got, length - got, position + got);
      if (n <= 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  }
}
