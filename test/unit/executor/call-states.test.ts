// The executor's typed call states: a call walks validating → awaiting_hooks → awaiting_permission → running →
// done, each visible while it lasts; error kinds are types set where the error arises; the sibling policy and
// the failed call's summary come from the tool.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as msg from '../../../src/executor/messages.js';
import { type PermissionGate, type ToolHooks, passThroughHooks } from '../../../src/executor/pipeline.js';
import { type RunLog, fakeTool, harness, toolUse } from '../../support/fake-tools.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

function gate<T>(): { promise: Promise<T>; open: (v: T) => void } {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    open = r;
  });
  return { promise, open };
}

describe('executor call states', () => {
  it('a call is queued, then visibly awaits its hooks, then its permission, then runs, then is done', async () => {
    const log: RunLog[] = [];
    const hook = gate<void>();
    const perm = gate<void>();
    const hooks: ToolHooks = { ...passThroughHooks, preToolUse: async () => (await hook.promise, {}) };
    const permissions: PermissionGate = { check: async () => (await perm.promise, { behavior: 'allow', meta: { decision: 'accept', source: 'config' }, approval: { by: 'unchecked' } }) };
    const h = harness([fakeTool('T', log)], { hooks, permissions });
    h.executor.add(toolUse('a', 'T', { ms: 10, asyncSafety: true }));
    expect(h.executor.states()).toEqual([{ id: 'a', state: 'queued' }]);
    await vi.advanceTimersByTimeAsync(0);
    expect(h.executor.states()).toEqual([{ id: 'a', state: 'awaiting_hooks' }]);
    hook.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.executor.states()).toEqual([{ id: 'a', state: 'awaiting_permission' }]);
    perm.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.executor.states()).toEqual([{ id: 'a', state: 'running' }]);
    h.executor.release();
    await vi.advanceTimersByTimeAsync(10);
    await h.executor.settle();
    expect(h.executor.states()).toEqual([{ id: 'a', state: 'done' }]);
  });

  it('error kinds are set where the error arises, not read back from the text', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('T', log), fakeTool('Bash', log, { cancelsSiblings: true })]);
    h.executor.add(toolUse('u', 'Nope', {}));
    h.executor.add(toolUse('v', 'T', { ms: 'x' }));
    h.executor.add(toolUse('f', 'T', { ms: 5, fail: true }));
    h.executor.add(toolUse('b', 'Bash', { ms: 5, fail: true }));
    h.executor.add(toolUse('c', 'T', { ms: 5 }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    await done;
    expect(h.executor.states()).toEqual([
      { id: 'u', state: 'done', errorKind: 'unknown_tool' },
      { id: 'v', state: 'done', errorKind: 'input_validation' },
      { id: 'f', state: 'done', errorKind: 'tool_error' },
      { id: 'b', state: 'done', errorKind: 'tool_error' },
      { id: 'c', state: 'cancelled', errorKind: 'cancelled' },
    ]);
  });

  it("a cancelled sibling's result names the failed call as its tool describes it", async () => {
    const log: RunLog[] = [];
    const failing = { ...fakeTool('Bash', log, { cancelsSiblings: true }), siblingSummary: () => 'Build the thing' };
    const h = harness([failing, fakeTool('T', log)]);
    h.executor.add(toolUse('b', 'Bash', { ms: 5, fail: true }));
    h.executor.add(toolUse('c', 'T', { ms: 5 }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    const records = await done;
    expect(records[1]?.block.content).toBe(msg.cancelledBySibling({ name: 'Bash', id: 'b', summary: 'Build the thing' }));
  });
});
