// Property tests of the executor's invariants under random durations, failures, safety flags, arrival times,
// concurrency caps, interrupts and discards (fake timers, fake tools):
//  - every tool_use id gets exactly one result; settle() returns them in tool_use order;
//  - no exclusive call ever overlaps another call; the concurrency cap holds;
//  - a discarded attempt reports nothing.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortReason } from '../../../src/util/abort.js';
import { type RunLog, RunMonitor, fakeTool, harness, resultIds, toolUse } from '../../support/fake-tools.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

const callArb = fc.record({
  ms: fc.integer({ min: 0, max: 50 }),
  fail: fc.boolean(),
  safe: fc.boolean(),
  asyncSafety: fc.boolean(),
  kind: fc.constantFrom('ok', 'ok', 'ok', 'ok', 'unknown', 'invalid', 'block', 'bash'),
  gap: fc.integer({ min: 0, max: 15 }),
});

const scenarioArb = fc.record({
  calls: fc.array(callArb, { minLength: 1, maxLength: 12 }),
  cap: fc.integer({ min: 1, max: 4 }),
  releaseDelay: fc.integer({ min: 0, max: 30 }),
  interruptAt: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
  discardAt: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
});

describe('executor invariants (property)', () => {
  it('holds for random interleavings', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (sc) => {
        vi.setSystemTime(0);
        const log: RunLog[] = [];
        const monitor = new RunMonitor();
        const m = { monitor, cap: sc.cap };
        const h = harness(
          [fakeTool('T', log, m), fakeTool('B', log, { ...m, interruptBehavior: 'block' }), fakeTool('Bash', log, { ...m, cancelsSiblings: true })],
          { maxConcurrency: sc.cap },
        );
        const ids = sc.calls.map((_, i) => `c${i}`);
        // Calls arrive as their blocks complete while "streaming"; the message ends after the last one.
        let t = 0;
        sc.calls.forEach((c, i) => {
          t += c.gap;
          const name = c.kind === 'unknown' ? 'Nope' : c.kind === 'block' ? 'B' : c.kind === 'bash' ? 'Bash' : 'T';
          const input = c.kind === 'invalid' ? { ms: 'x' } : { ms: c.ms, fail: c.fail, safe: c.safe, asyncSafety: c.asyncSafety };
          setTimeout(() => h.executor.add(toolUse(ids[i] as string, name, input)), t);
        });
        const endOfStream = t + sc.releaseDelay;
        let discarded = false;
        if (sc.discardAt !== undefined && sc.discardAt < endOfStream) {
          setTimeout(() => {
            discarded = true;
            h.executor.discard();
          }, sc.discardAt);
        }
        setTimeout(() => {
          if (!discarded) h.executor.release();
        }, endOfStream);
        if (sc.interruptAt !== undefined) setTimeout(() => h.controller.abort(new AbortReason('user_interrupted')), sc.interruptAt);

        await vi.advanceTimersByTimeAsync(endOfStream + 1);
        const settled = h.executor.settle();
        await vi.runAllTimersAsync();
        const records = await settled;

        // Exactly one result per tool_use, in tool_use order to the model.
        expect(records.map((r) => r.toolUseId)).toEqual(ids);
        expect(records.every((r) => r.block.tool_use_id === r.toolUseId)).toBe(true);
        const reported = resultIds(h.events);
        if (discarded) expect(reported).toEqual([]);
        else {
          expect([...reported].sort()).toEqual([...ids].sort());
          expect(new Set(reported).size).toBe(reported.length);
        }
        // No exclusive call overlaps another; the cap holds (checked live at every start).
        expect(monitor.violations).toEqual([]);
        expect(monitor.active.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
