import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTurnEndCollector } from '../../src/cli/memory.js';

const MiB = 1024 * 1024;

describe('turn-end garbage collection', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once the heap has grown by a tenth of the live size (at least 1 MiB), after the turn, not during it', () => {
    vi.useFakeTimers({ toFake: ['setImmediate'] });
    let heap = 8 * MiB;
    let live = 9 * MiB;
    const collections: number[] = [];
    const gc = (): void => {
      collections.push(heap);
      heap = live; // what stays live
    };
    const c = createTurnEndCollector({ used: () => heap, gc });
    heap = 8 * MiB + MiB / 2;
    c.turnEnded();
    vi.runAllTimers();
    expect(collections).toEqual([]); // +0.5 MiB: below the 1 MiB floor
    heap = 9.2 * MiB;
    c.turnEnded();
    expect(collections).toEqual([]); // scheduled after the result, not run inside turnEnded
    vi.runAllTimers();
    expect(collections).toEqual([9.2 * MiB]);
    // A big live heap: 100 MiB needs 10 MiB of growth.
    live = 100 * MiB;
    heap = 10.5 * MiB;
    c.turnEnded();
    vi.runAllTimers();
    expect(collections).toEqual([9.2 * MiB, 10.5 * MiB]);
    heap = 109 * MiB;
    c.turnEnded();
    c.turnEnded(); // two results before the check: one check
    vi.runAllTimers();
    expect(collections).toEqual([9.2 * MiB, 10.5 * MiB]);
    heap = 110.5 * MiB;
    c.turnEnded();
    vi.runAllTimers();
    expect(collections).toEqual([9.2 * MiB, 10.5 * MiB, 110.5 * MiB]);
  });

  it('measures growth from a collection V8 made on its own', () => {
    vi.useFakeTimers({ toFake: ['setImmediate'] });
    let heap = 20 * MiB;
    const collections: number[] = [];
    const c = createTurnEndCollector({ used: () => heap, gc: () => void collections.push(heap) });
    heap = 12 * MiB; // V8 collected
    c.turnEnded();
    vi.runAllTimers();
    heap = 12.5 * MiB; // +0.5 MiB since then: no collection (from the old baseline it would be -7.5)
    c.turnEnded();
    vi.runAllTimers();
    expect(collections).toEqual([]);
  });

  it('does nothing where no collector is exposed (no --expose-gc)', () => {
    vi.useFakeTimers({ toFake: ['setImmediate'] });
    let heap = 8 * MiB;
    const c = createTurnEndCollector({ used: () => heap, gc: null });
    heap = 100 * MiB;
    c.turnEnded();
    expect(() => vi.runAllTimers()).not.toThrow();
  });
});
