// A spawned stream-json process seen from the host side, built for measuring rather than for checking: stdout is
// split into lines at the byte level and `stream_event` lines are only counted and time-stamped (never decoded or
// parsed), so the reader stays far cheaper than the process it measures. Every other line is parsed and can be
// awaited with `waitFor`.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export type Frame = Record<string, unknown>;

export interface SpawnSpec {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
}

export interface TimedFrame {
  frame: Frame;
  /** performance.now() when the line was read. */
  at: number;
}

const NL = 0x0a;
// Both agentd and Claude Code put `type` first in stream_event frames; anything else goes through JSON.parse.
const STREAM_PREFIX = Buffer.from('{"type":"stream_event"');

interface Waiter {
  pred: (f: Frame) => boolean;
  resolve: (t: TimedFrame) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export function isObject(v: unknown): v is Frame {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class BenchProc {
  readonly child: ChildProcess;
  /** performance.now() just before spawn(). */
  readonly spawnedAt: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  streamEvents = 0;
  firstStreamAt = 0;
  lastStreamAt = 0;
  /** Longest stdout line of the process's life so far (bytes, newline excluded). */
  maxLineBytes = 0;
  /** Called with every parsed non-stream_event frame before any waiter sees it (for counting tool results etc.). */
  tap: ((t: TimedFrame) => void) | undefined;
  /** A line split across chunks, kept as its pieces (a huge line must not cost a copy per chunk). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private streamWaiters: Array<{ n: number; resolve: () => void }> = [];
  private backlog: TimedFrame[] = [];
  private waiter: Waiter | undefined;
  private stderrTail = '';
  private exitInfo: string | undefined;

  constructor(spec: SpawnSpec) {
    this.spawnedAt = performance.now();
    this.child = spawn(spec.command, [...spec.args], { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (c: Buffer) => this.onData(c));
    this.child.stderr?.on('data', (c: Buffer) => {
      this.stderrTail = (this.stderrTail + c.toString('utf8')).slice(-2000);
    });
    this.child.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.exitInfo = `spawn error: ${err.message}`;
        this.failWaiter();
        resolve({ code: null, signal: null, at: performance.now() });
      });
      this.child.on('exit', (code, signal) => {
        this.exitInfo = `exited with code ${String(code)} signal ${String(signal)}`;
        // stdout may still hold lines; fail the waiter only once they are read.
        this.child.stdout?.once('close', () => this.failWaiter());
        resolve({ code, signal, at: performance.now() });
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(frame: unknown): void {
    this.child.stdin?.write(`${JSON.stringify(frame)}\n`);
  }

  /** Resolves with the first frame (from the backlog or still to come) matching `pred`; earlier frames are dropped. */
  waitFor(pred: (f: Frame) => boolean, timeoutMs = 30_000): Promise<TimedFrame> {
    const i = this.backlog.findIndex((t) => pred(t.frame));
    if (i >= 0) {
      const hit = this.backlog[i];
      this.backlog = this.backlog.slice(i + 1);
      if (hit) return Promise.resolve(hit);
    }
    this.backlog = [];
    if (this.waiter) return Promise.reject(new Error('BenchProc.waitFor: one waiter at a time'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`timed out after ${timeoutMs} ms waiting for a frame${this.describe()}`));
      }, timeoutMs);
      this.waiter = { pred, resolve, reject, timer };
      if (this.exitInfo !== undefined && this.child.stdout?.readableEnded) this.failWaiter();
    });
  }

  resetStreamCounters(): void {
    this.streamEvents = 0;
    this.firstStreamAt = 0;
    this.lastStreamAt = 0;
  }

  /** Resolves once `n` stream_event frames were counted since the last resetStreamCounters(). */
  waitStreamEvents(n: number, timeoutMs = 30_000): Promise<void> {
    if (this.streamEvents >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.streamWaiters = this.streamWaiters.filter((w) => w !== entry);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${n} stream_event frames (saw ${this.streamEvents})${this.describe()}`));
      }, timeoutMs);
      const entry = {
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.streamWaiters.push(entry);
    });
  }

  /** Resident set size from /proc/<pid>/status, in KiB. */
  rssKiB(): number {
    return this.statusKiB('VmRSS');
  }

  /** A `kB` field of /proc/<pid>/status (VmRSS, VmHWM: the peak resident set size so far, …), in KiB. */
  statusKiB(field: string): number {
    const text = readFileSync(`/proc/${String(this.pid)}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
    if (!m?.[1]) throw new Error(`no ${field} in /proc/${String(this.pid)}/status`);
    return Number(m[1]);
  }

  /** Ends stdin (the protocol's "no more input"), then SIGTERM/SIGKILL if the process lingers. */
  async close(graceMs = 3000): Promise<void> {
    if (this.exitInfo !== undefined) return;
    this.child.stdin?.end();
    const t1 = setTimeout(() => this.child.kill('SIGTERM'), graceMs);
    const t2 = setTimeout(() => this.child.kill('SIGKILL'), graceMs + 2000);
    await this.exited;
    clearTimeout(t1);
    clearTimeout(t2);
  }

  kill(): void {
    if (this.exitInfo === undefined) this.child.kill('SIGKILL');
  }

  private describe(): string {
    const ex = this.exitInfo ? `; process ${this.exitInfo}` : '';
    const err = this.stderrTail.trim() ? `; stderr: ${this.stderrTail.trim().slice(-600)}` : '';
    return `${ex}${err}`;
  }

  private failWaiter(): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = undefined;
    clearTimeout(w.timer);
    w.reject(new Error(`stdout ended before the awaited frame${this.describe()}`));
  }

  private onData(chunk: Buffer): void {
    const now = performance.now();
    let start = 0;
    let nl = chunk.indexOf(NL);
    if (nl < 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      return;
    }
    if (this.pendingBytes > 0) {
      this.pending.push(chunk.subarray(0, nl));
      this.onLine(Buffer.concat(this.pending), 0, undefined, now);
      this.pending = [];
      this.pendingBytes = 0;
      start = nl + 1;
      nl = chunk.indexOf(NL, start);
    }
    while (nl >= 0) {
      this.onLine(chunk, start, nl, now);
      start = nl + 1;
      nl = chunk.indexOf(NL, start);
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
  }

  private countStream(now: number): void {
    if (this.streamEvents === 0) this.firstStreamAt = now;
    this.streamEvents++;
    this.lastStreamAt = now;
    if (this.streamWaiters.length === 0) return;
    const due = this.streamWaiters.filter((w) => this.streamEvents >= w.n);
    if (due.length === 0) return;
    this.streamWaiters = this.streamWaiters.filter((w) => this.streamEvents < w.n);
    for (const w of due) w.resolve();
  }

  private onLine(buf: Buffer, start: number, end: number | undefined, now: number): void {
    const stop = end ?? buf.length;
    if (stop - start > this.maxLineBytes) this.maxLineBytes = stop - start;
    if (stop - start >= STREAM_PREFIX.length && buf.compare(STREAM_PREFIX, 0, STREAM_PREFIX.length, start, start + STREAM_PREFIX.length) === 0) {
      this.countStream(now);
      return;
    }
    const text = buf.toString('utf8', start, stop).trim();
    if (text === '') return;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return; // hosts ignore non-JSON stdout; so does the bench
    }
    if (!isObject(v)) return;
    if (v['type'] === 'stream_event') {
      this.countStream(now);
      return;
    }
    const timed = { frame: v, at: now };
    this.tap?.(timed);
    const w = this.waiter;
    if (w && w.pred(v)) {
      this.waiter = undefined;
      clearTimeout(w.timer);
      w.resolve(timed);
      return;
    }
    this.backlog.push(timed);
  }
}

export const initializeFrame = (id: string): Frame => ({
  request_id: id,
  type: 'control_request',
  request: { subtype: 'initialize', systemPrompt: [''] },
});

export const userFrame = (text: string): Frame => ({
  type: 'user',
  session_id: '',
  message: { role: 'user', content: [{ type: 'text', text }] },
  parent_tool_use_id: null,
});

/** The control_response answering the control_request `id`. */
export const isControlResponseTo =
  (id: string) =>
  (f: Frame): boolean => {
    const r = f['response'];
    return f['type'] === 'control_response' && isObject(r) && r['request_id'] === id;
  };

export const isInitializeAnswer = isControlResponseTo;

export const isResult = (f: Frame): boolean => f['type'] === 'result';
