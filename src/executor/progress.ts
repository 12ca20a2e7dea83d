// Per-call progress shaping: output is coalesced and flushed at most every `intervalMs` (so a chatty command
// cannot flood stdout), each frame carries at most `maxChars` of new output (the rest is counted as dropped),
// and a heartbeat goes out after `heartbeatMs` without any frame.
import type { ProgressInfo } from '../thread/events.js';
import type { LiveOutput, ToolProgressUpdate } from '../tools/tool.js';

export interface ProgressOptions {
  intervalMs: number;
  maxChars: number;
  heartbeatMs: number;
}

export const DEFAULT_PROGRESS: ProgressOptions = { intervalMs: 250, maxChars: 8192, heartbeatMs: 5000 };

export class ProgressShaper {
  private buffered = '';
  private dropped = 0;
  /** Output the tool left undecoded: read at flush time (see ToolProgressUpdate.live). */
  private live: LiveOutput | undefined;
  private totalBytes = 0;
  /** The newest MCP progress numbers: they go out with the next output frame (the latest wins when coalesced). */
  private counts: { progress: number; total?: number } | undefined;
  private lastEmit: number;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(
    private readonly opts: ProgressOptions,
    private readonly now: () => number,
    private readonly send: (p: ProgressInfo) => void,
  ) {
    this.lastEmit = now();
    if (opts.heartbeatMs > 0) {
      this.heartbeatTimer = setInterval(() => {
        if (this.now() - this.lastEmit >= this.opts.heartbeatMs) this.emit({ kind: 'heartbeat', totalBytes: this.totalBytes });
      }, opts.heartbeatMs);
      this.heartbeatTimer.unref?.();
    }
  }

  update(u: ToolProgressUpdate): void {
    if (this.stopped) return;
    if (u.kind === 'heartbeat') {
      this.emit({ kind: 'heartbeat', totalBytes: this.totalBytes });
      return;
    }
    const out = u.output ?? '';
    this.totalBytes = u.totalBytes ?? this.totalBytes + Buffer.byteLength(out);
    if (u.live) this.live = u.live;
    if (u.progress !== undefined) this.counts = { progress: u.progress, ...(u.total !== undefined ? { total: u.total } : {}) };
    this.append(out);
    this.schedule();
  }

  private append(out: string): void {
    const room = this.opts.maxChars - this.buffered.length;
    if (out.length <= room) this.buffered += out;
    else {
      // Keep the newest output: it is what a person watching wants to see.
      const merged = this.buffered + out;
      this.dropped += merged.length - this.opts.maxChars;
      this.buffered = merged.slice(merged.length - this.opts.maxChars);
    }
  }

  private schedule(): void {
    if (this.flushTimer) return;
    const wait = Math.max(0, this.opts.intervalMs - (this.now() - this.lastEmit));
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flush();
    }, wait);
    this.flushTimer.unref?.();
  }

  private flush(): void {
    if (this.live && !this.stopped) {
      const { text, skippedBytes } = this.live.take(this.opts.maxChars);
      this.live = undefined;
      this.dropped += skippedBytes;
      this.append(text);
    }
    if (this.stopped || (this.buffered.length === 0 && this.dropped === 0 && !this.counts)) return;
    const p: ProgressInfo = { kind: 'output', output: this.buffered, totalBytes: this.totalBytes };
    if (this.dropped > 0) p.droppedBytes = this.dropped;
    if (this.counts) {
      p.progress = this.counts.progress;
      if (this.counts.total !== undefined) p.total = this.counts.total;
      this.counts = undefined;
    }
    this.buffered = '';
    this.dropped = 0;
    this.emit(p);
  }

  private emit(p: ProgressInfo): void {
    this.lastEmit = this.now();
    this.send(p);
  }

  /** Flushes pending output (so it precedes the result) and stops all timers. */
  stop(): void {
    if (this.stopped) return;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flush();
    this.stopped = true;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
  }
}
