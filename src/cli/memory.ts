// Garbage collected at turn ends. A daemon's heap grows in steps it can see: every model request and tool call
// leaves objects that lived through it (headers, signals, parsed events) and were promoted to the old
// generation; V8 frees them only when the old generation reaches a limit it sets generously for throughput, so
// a long session's resident memory kept climbing by ~20 KiB a turn with only ~3 KiB of it live
// (BENCHMARKS.md, session-200-turns). The end of a turn is the natural idle point: once the old generation has grown by a
// tenth of what was live after the last collection (at least 1 MiB), one full collection (~1-3 ms on a
// session's heap, every ~50 turns of that benchmark) runs there, after the result is written, so memory
// follows the live data. The cost stays proportional: a collection of a heap of L bytes needs L/10 of growth.
//
// The collector comes from a fresh context: launch.ts sets --expose-gc at start-up, which gives `gc` to new
// contexts without adding it to agentd's own global. Without the flag (tests, `node` embedding) this is a no-op.
import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';

const MIN_GROWTH_BYTES = 1024 * 1024;
const GROWTH_FRACTION = 0.1;

export interface TurnEndCollector {
  /** Call when a turn's result has been written. */
  turnEnded(): void;
}

type Gc = () => void;

function exposedGc(): Gc | undefined {
  try {
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    return typeof gc === 'function' ? (gc as Gc) : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes in use outside the young generation: what only a full collection frees (new space empties itself). */
function oldGenerationUsed(): number {
  let n = 0;
  for (const s of getHeapSpaceStatistics()) if (!s.space_name.startsWith('new_')) n += s.space_used_size;
  return n;
}

export interface CollectionReport {
  /** Old-generation bytes in use before and after the collection. */
  before: number;
  after: number;
  ms: number;
}

export function createTurnEndCollector(
  opts: { used?: () => number; gc?: Gc | null; onCollect?: (r: CollectionReport) => void } = {},
): TurnEndCollector {
  const used = opts.used ?? oldGenerationUsed;
  let gc: Gc | null | undefined = opts.gc;
  let baseline = used();
  let live = baseline;
  let scheduled = false;
  const check = (): void => {
    scheduled = false;
    const now = used();
    // V8 collected on its own since: measure growth from there.
    baseline = Math.min(baseline, now);
    if (now - baseline < Math.max(MIN_GROWTH_BYTES, live * GROWTH_FRACTION)) return;
    if (gc === undefined) gc = exposedGc() ?? null;
    if (gc === null) return;
    const t0 = performance.now();
    gc();
    live = used();
    baseline = live;
    opts.onCollect?.({ before: now, after: live, ms: performance.now() - t0 });
  };
  return {
    turnEnded() {
      if (scheduled) return;
      scheduled = true;
      setImmediate(check);
    },
  };
}
