// Protocol steps shared by the benchmarks: start a subject, initialize it, run a turn. Each step checks that the
// subject really did what was asked (a successful initialize answer, a non-error result), so a broken build
// cannot produce flattering numbers.
import { BenchProc, type TimedFrame, initializeFrame, isInitializeAnswer, isObject, isResult, userFrame } from './proc.js';
import type { Subject } from './subjects.js';
import { type BenchContext, type Row, failedRow } from './types.js';

export interface Place {
  home: string;
  cwd: string;
}

/** One HOME and work dir per (benchmark, subject), reused across runs: an installed tool, not a first run. */
export function place(ctx: BenchContext, bench: string, subject: Subject): Place {
  return { home: ctx.dir(`${bench}-${subject.id}-home-`), cwd: ctx.dir(`${bench}-${subject.id}-cwd-`) };
}

export interface StartOptions {
  baseUrl?: string;
  scenarioFile?: string;
  extraArgs?: readonly string[];
  /** Added to the subject's environment (e.g. TMPDIR, so spill files land in the run's temporary root). */
  env?: Record<string, string>;
}

export function start(subject: Subject, where: Place, o: StartOptions = {}): BenchProc {
  const { env, ...launch } = o;
  const spec = subject.spec({ ...where, ...launch });
  return new BenchProc(env ? { ...spec, env: { ...spec.env, ...env } } : spec);
}

let initCount = 0;

/** Writes initialize and waits for its successful answer. */
export async function initialize(proc: BenchProc, timeoutMs = 30_000): Promise<TimedFrame> {
  const id = `bench_init_${++initCount}`;
  proc.send(initializeFrame(id));
  const answer = await proc.waitFor(isInitializeAnswer(id), timeoutMs);
  const r = answer.frame['response'];
  const subtype = isObject(r) ? r['subtype'] : undefined;
  if (subtype !== 'success') throw new Error(`initialize was answered with ${JSON.stringify(answer.frame).slice(0, 300)}`);
  return answer;
}

/** Waits for the turn's result frame and fails on an error result. */
export async function awaitResult(proc: BenchProc, timeoutMs = 60_000): Promise<TimedFrame> {
  const result = await proc.waitFor(isResult, timeoutMs);
  if (result.frame['is_error'] === true) {
    throw new Error(`error result: ${JSON.stringify(result.frame['errors'] ?? result.frame['result']).slice(0, 300)}`);
  }
  return result;
}

/** Writes a user frame and waits for the result; returns the result and when the frame was written. */
export async function turn(proc: BenchProc, text: string, timeoutMs = 60_000): Promise<{ sentAt: number; result: TimedFrame }> {
  const sentAt = performance.now();
  proc.send(userFrame(text));
  return { sentAt, result: await awaitResult(proc, timeoutMs) };
}

export interface ToolTurn {
  sentAt: number;
  result: TimedFrame;
  /** tool_result blocks the subject reported in `user` frames during the turn. */
  toolResults: number;
  /** The first tool_result marked is_error, as JSON (undefined when none was). */
  firstError: string | undefined;
  /** When the turn's first `assistant` frame and its last tool_result were read (phases of the turn). */
  firstAssistantAt: number;
  lastToolResultAt: number;
}

/**
 * A turn whose reply runs tools: counts the tool_result blocks the subject streams back and fails unless
 * exactly `expected` came and none is an error, so a denied or broken tool cannot pass for a fast one.
 */
export async function toolTurn(proc: BenchProc, text: string, expected: number, timeoutMs = 60_000): Promise<ToolTurn> {
  let toolResults = 0;
  let firstError: string | undefined;
  let firstAssistantAt = Number.NaN;
  let lastToolResultAt = Number.NaN;
  proc.tap = ({ frame, at }) => {
    if (frame['type'] === 'assistant' && Number.isNaN(firstAssistantAt)) firstAssistantAt = at;
    if (frame['type'] !== 'user') return;
    const message = frame['message'];
    const content = isObject(message) ? message['content'] : undefined;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (!isObject(block) || block['type'] !== 'tool_result') continue;
      toolResults++;
      lastToolResultAt = at;
      if (block['is_error'] === true && firstError === undefined) firstError = JSON.stringify(block).slice(0, 300);
    }
  };
  try {
    const { sentAt, result } = await turn(proc, text, timeoutMs);
    if (firstError !== undefined) throw new Error(`a tool failed: ${firstError}`);
    if (toolResults !== expected) throw new Error(`expected ${expected} tool results, got ${toolResults}`);
    return { sentAt, result, toolResults, firstError, firstAssistantAt, lastToolResultAt };
  } finally {
    proc.tap = undefined;
  }
}

/** Closes the process whatever happened (a benchmark must not leave children behind). */
export async function using<T>(proc: BenchProc, fn: (p: BenchProc) => Promise<T>): Promise<T> {
  try {
    return await fn(proc);
  } finally {
    // stdin EOF first, as a host would, so the subject can reap its own children; signals only if it lingers.
    await proc.close(2000);
  }
}

/** Measures `subjects` one after the other; a subject that fails yields a failed row instead of aborting. */
export async function perSubject<S extends Subject>(
  ctx: BenchContext,
  subjects: readonly S[],
  base: (s: S) => Omit<Row, 'n' | 'median' | 'failed'>,
  measure: (s: S) => Promise<Row>,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const s of subjects) {
    ctx.log(`  ${s.label}`);
    try {
      rows.push(await measure(s));
    } catch (err) {
      ctx.log(`  ${s.label} failed: ${err instanceof Error ? err.message : String(err)}`);
      rows.push(failedRow(base(s), err));
    }
  }
  return rows;
}

