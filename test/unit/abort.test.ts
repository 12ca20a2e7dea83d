// childController: a child follows its parent's abort, and detaches when released (no listener leak).
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortReason, childController } from '../../src/util/abort.js';

describe('childController', () => {
  it('aborts with the parent, with the parent reason', () => {
    const parent = new AbortController();
    const child = childController(parent.signal);
    const reason = new AbortReason('user_interrupted');
    parent.abort(reason);
    expect(child.signal.aborted).toBe(true);
    expect(child.signal.reason).toBe(reason);
  });

  it('release() detaches without aborting: 100 released children leave no listener on the parent', () => {
    const parent = new AbortController();
    for (let i = 0; i < 100; i++) childController(parent.signal).release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    const kept = childController(parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    kept.abort();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    expect(parent.signal.aborted).toBe(false);
  });
});
