// Every stdout line of every daemon a test starts goes through a FrameTap, which validates it against the
// protocol's OutboundFrame schema. test/support/setup.ts fails the test if any tap saw an invalid line.
import { OutboundFrame } from '../../protocol/src/index.js';

export interface InvalidLine {
  line: string;
  problem: string;
}

const taps = new Set<FrameTap>();

export class FrameTap {
  readonly frames: Array<Record<string, unknown>> = [];
  readonly invalid: InvalidLine[] = [];
  private partial = '';
  private readonly listeners = new Set<(f: Record<string, unknown>) => void>();

  constructor() {
    taps.add(this);
  }

  /** Feeds raw stdout bytes. */
  push(chunk: Buffer | string): void {
    const text = this.partial + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  end(): void {
    if (this.partial !== '') {
      this.invalid.push({ line: this.partial.slice(0, 200), problem: 'stdout ended without a newline' });
      this.partial = '';
    }
  }

  onFrame(fn: (f: Record<string, unknown>) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private line(line: string): void {
    if (line.includes('\r')) this.invalid.push({ line: line.slice(0, 200), problem: 'CR in an outbound line' });
    if (Buffer.byteLength(line) > 1024 * 1024) this.invalid.push({ line: line.slice(0, 200), problem: 'line over 1 MiB' });
    if (/[\u2028\u2029]/.test(line)) this.invalid.push({ line: line.slice(0, 200), problem: 'raw U+2028/U+2029' });
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      this.invalid.push({ line: line.slice(0, 200), problem: 'not JSON' });
      return;
    }
    const r = OutboundFrame.safeParse(v);
    if (!r.success) {
      this.invalid.push({ line: line.slice(0, 300), problem: r.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      return;
    }
    const f = v as Record<string, unknown>;
    this.frames.push(f);
    for (const l of this.listeners) l(f);
  }
}

export function collectInvalid(): InvalidLine[] {
  const out: InvalidLine[] = [];
  for (const t of taps) out.push(...t.invalid);
  taps.clear();
  return out;
}

/** Removes volatile fields (uuids, timestamps, durations, ids) for whole-object comparisons. */
export function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (['uuid', 'session_id', 'timestamp', 'duration_ms', 'duration_api_ms', 'ttft_ms', 'request_id', 'pid'].includes(k)) out[k] = `<${k}>`;
      else out[k] = normalize(x);
    }
    return out;
  }
  return v;
}
