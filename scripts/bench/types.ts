// The benchmark registry's contract: a benchmark is a named async function from a context to result rows.
// Adding one = writing a Benchmark and listing it in registry.ts; the runner, table and BENCHMARKS.md need no change.
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { LoopbackHandle } from './loopback.js';
import type { Subject, SubjectId } from './subjects.js';

export interface Target {
  /** `<=`: lower is better (latency, memory); `>=`: higher is better (throughput). */
  op: '<=' | '>=';
  value: number;
}

export interface Row {
  /** Name of the benchmark that produced the row. */
  bench: string;
  metric: string;
  subject: string;
  unit: string;
  /** Sample size (runs, turns or frames, as `nLabel` says). */
  n: number;
  nLabel?: string;
  median: number;
  p90?: number;
  /** Compared against the median. */
  target?: Target;
  note?: string;
  /** Set when the subject could not be measured; the numbers are then NaN. */
  failed?: string;
}

export interface BenchContext {
  quick: boolean;
  /** agentd runs under --cpu-prof: long benchmarks should do one run (one profile per process). */
  profiling: boolean;
  /** Repository root (dist/agentd.js lives below it). */
  root: string;
  /** Subjects among `ids` that can run here (Claude Code is absent when it cannot run or --no-claude). */
  subjects(ids: readonly SubjectId[]): Subject[];
  /** A fresh directory under the run's temporary root. */
  dir(prefix: string): string;
  /** Runs `fn` with a loopback Messages server playing `scenario`, closing it afterwards. */
  withLoopback<T>(scenario: Scenario, fn: (server: LoopbackHandle) => Promise<T>): Promise<T>;
  /** Progress line on stderr. */
  log(message: string): void;
}

export interface Benchmark {
  name: string;
  /** One line for the report: what is measured and how. */
  description: string;
  run(ctx: BenchContext): Promise<Row[]>;
}

export function isMet(row: Row): boolean | undefined {
  if (!row.target || row.failed !== undefined || Number.isNaN(row.median)) return undefined;
  return row.target.op === '<=' ? row.median <= row.target.value : row.median >= row.target.value;
}

export function failedRow(base: Omit<Row, 'n' | 'median' | 'failed'>, err: unknown): Row {
  const message = err instanceof Error ? err.message : String(err);
  return { ...base, n: 0, median: Number.NaN, failed: message.split('\n')[0]?.slice(0, 300) ?? message };
}

/** The targets are agentd's: Claude Code's rows are there for scale and carry none. */
export function agentdTarget(subject: { id: string }, op: Target['op'], value: number): Pick<Row, 'target'> {
  return subject.id === 'claude' ? {} : { target: { op, value } };
}

export type RowBase = Omit<Row, 'n' | 'median' | 'failed'>;

/** The fixed part of a benchmark's rows, per subject: `target` is agentd's (Claude Code's rows carry none). */
export function rowBase(r: { bench: string; metric: string; unit: string; target?: Target }): (s: { id: string; label: string }) => RowBase {
  return (s) => ({ bench: r.bench, metric: r.metric, subject: s.label, unit: r.unit, ...(r.target ? agentdTarget(s, r.target.op, r.target.value) : {}) });
}
