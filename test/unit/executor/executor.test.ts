import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as msg from '../../../src/executor/messages.js';
import type { PermissionGate, ToolHooks } from '../../../src/executor/pipeline.js';
import { AbortReason } from '../../../src/util/abort.js';
import { type RunLog, fakeTool, harness, resultIds, toolUse } from '../../support/fake-tools.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('concurrency gate', () => {
  it('runs safe calls together, an exclusive call alone, and nothing behind the exclusive call early', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('T', log)]);
    h.executor.add(toolUse('a', 'T', { ms: 100, safe: true }));
    h.executor.add(toolUse('b', 'T', { ms: 100, safe: true }));
    h.executor.add(toolUse('w', 'T', { ms: 50 }));
    h.executor.add(toolUse('c', 'T', { ms: 10, safe: true }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    const records = await done;
    expect(log.map(({ id, start, end }) => ({ id, start, end }))).toEqual([
      { id: 'a', start: 0, end: 100 },
      { id: 'b', start: 0, end: 100 },
      { id: 'w', start: 100, end: 150 },
      { id: 'c', start: 150, end: 160 },
    ]);
    expect(records.map((r) => r.toolUseId)).toEqual(['a', 'b', 'w', 'c']);
  });

  it('holds results until the message is released, then reports them in completion order', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('T', log)]);
    h.executor.add(toolUse('slow', 'T', { ms: 300, safe: true }));
    h.executor.add(toolUse('fast', 'T', { ms: 100, safe: true }));
    await vi.advanceTimersByTimeAsync(200);
    expect(resultIds(h.events)).toEqual([]); // fast finished while the model was still streaming
    h.executor.release();
    expect(resultIds(h.events)).toEqual(['fast']);
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    expect(resultIds(h.events)).toEqual(['fast', 'slow']);
    expect((await done).map((r) => r.toolUseId)).toEqual(['slow', 'fast']);
  });

  it('respects the concurrency cap', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('T', log)], { maxConcurrency: 2 });
    for (const id of ['a', 'b', 'c', 'd', 'e']) h.executor.add(toolUse(id, 'T', { ms: 10, safe: true }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    await done;
    expect(log.map((l) => l.start)).toEqual([0, 0, 10, 10, 20]);
  });

  it('treats a throwing safety check as exclusive, and waits for async answers in queue order', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('T', log)]);
    h.executor.add(toolUse('a', 'T', { ms: 10, safe: true }));
    h.executor.add(toolUse('x', 'T', { ms: 10, safe: true, throwInSafety: true }));
    h.executor.add(toolUse('y', 'T', { ms: 10, safe: true, asyncSafety: true }));
    h.executor.add(toolUse('z', 'T', { ms: 10, safe: true, asyncSafety: true }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    await done;
    expect(log.map(({ id, start }) => ({ id, start }))).toEqual([
      { id: 'a', start: 0 },
      { id: 'x', start: 10 },
      { id: 'y', start: 20 },
      { id: 'z', start: 20 },
    ]);
  });
});

describe('errors get results, never exceptions', () => {
  it('answers an unknown tool, invalid input and unparsable input at once with readable errors', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('T', log)]);
    h.executor.add(toolUse('u', 'NoSuchTool', {}));
    h.executor.add(toolUse('i', 'T', { ms: 'soon', extra: 1 }));
    h.executor.add(toolUse('m', 'T', { __unparsedToolInput: { raw: '{"ms":', len: 6 } }), 'Unexpected end of JSON input');
    h.executor.release();
    const records = await h.executor.settle();
    expect(log).toEqual([]);
    expect(records.map((r) => [r.toolUseId, r.outcome, r.block.content, r.block.is_error])).toEqual([
      ['u', 'error', '<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>', true],
      [
        'i',
        'error',
        '<tool_use_error>InputValidationError: T failed due to the following issues:\nThe parameter `ms` type is expected as `number` but provided as `string`\nAn unexpected parameter `extra` was provided</tool_use_error>',
        true,
      ],
      [
        'm',
        'error',
        '<tool_use_error>InputValidationError: The input for T could not be parsed as JSON (Unexpected end of JSON input). Send the parameters as a JSON object.</tool_use_error>',
        true,
      ],
    ]);
  });

  it('a failing exclusive sibling-cancelling call cancels the calls queued behind it, and says the environment is fine', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('Bash', log, { cancelsSiblings: true }), fakeTool('R', log)]);
    h.executor.add(toolUse('r1', 'R', { ms: 10, safe: true }));
    h.executor.add(toolUse('b', 'Bash', { ms: 20, fail: true }));
    h.executor.add(toolUse('r2', 'R', { ms: 10, safe: true }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.advanceTimersByTimeAsync(40);
    h.executor.add(toolUse('r3', 'R', { ms: 10, safe: true })); // arrives after the failure: cancelled too
    const records = await done.then(async () => h.executor.settle());
    expect(records.map((r) => [r.toolUseId, r.outcome])).toEqual([
      ['r1', 'success'],
      ['b', 'error'],
      ['r2', 'cancelled'],
      ['r3', 'cancelled'],
    ]);
    expect(records[2]?.block.content).toBe(msg.cancelledBySibling({ name: 'Bash', id: 'b', summary: '' }));
    expect(String(records[2]?.block.content)).toContain('Nothing is wrong with the environment');
    expect(log.map((l) => l.id)).toEqual(['r1', 'b']);
  });

  it('a failing concurrency-safe call never cancels its siblings', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('Bash', log, { cancelsSiblings: true })]);
    h.executor.add(toolUse('g1', 'Bash', { ms: 5, safe: true, fail: true }));
    h.executor.add(toolUse('g2', 'Bash', { ms: 10, safe: true }));
    h.executor.add(toolUse('w', 'Bash', { ms: 10 }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    expect((await done).map((r) => r.outcome)).toEqual(['error', 'success', 'success']);
  });
});

describe('interrupts and discards', () => {
  it('a user interrupt cancels `cancel` tools and queued calls, and lets `block` tools finish', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('C', log), fakeTool('B', log, { interruptBehavior: 'block' })]);
    h.executor.add(toolUse('c', 'C', { ms: 100, safe: true }));
    h.executor.add(toolUse('b', 'B', { ms: 100, safe: true }));
    h.executor.add(toolUse('q', 'C', { ms: 100 }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.advanceTimersByTimeAsync(30);
    h.controller.abort(new AbortReason('user_interrupted'));
    await vi.runAllTimersAsync();
    const records = await done;
    expect(records.map((r) => [r.toolUseId, r.outcome, r.block.content])).toEqual([
      ['c', 'cancelled', msg.INTERRUPTED_WHILE_RUNNING],
      ['b', 'success', 'ok b'],
      ['q', 'cancelled', msg.INTERRUPTED_BEFORE_START],
    ]);
    expect(log.find((l) => l.id === 'c')).toMatchObject({ aborted: true, end: 30 });
  });

  it('answers an aborted call at once even if the tool ignores its signal', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('C', log)]);
    h.executor.add(toolUse('stubborn', 'C', { ms: 10_000, ignoreAbort: true }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.advanceTimersByTimeAsync(5);
    h.controller.abort(new AbortReason('user_interrupted'));
    await vi.advanceTimersByTimeAsync(1);
    const records = await done;
    expect(records.map((r) => r.outcome)).toEqual(['cancelled']);
  });

  it('a discarded attempt starts nothing more, aborts running calls, and reports no result', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('T', log)]);
    h.executor.add(toolUse('a', 'T', { ms: 5, safe: true }));
    h.executor.add(toolUse('b', 'T', { ms: 100, safe: true }));
    h.executor.add(toolUse('w', 'T', { ms: 10 }));
    await vi.advanceTimersByTimeAsync(20); // `a` completed while streaming: held, not reported
    h.executor.discard();
    h.executor.add(toolUse('late', 'T', { ms: 1, safe: true }));
    const records = await h.executor.settle();
    expect(h.events).toEqual([]);
    expect(records.map((r) => [r.toolUseId, r.outcome])).toEqual([
      ['a', 'success'],
      ['b', 'cancelled'],
      ['w', 'cancelled'],
      ['late', 'cancelled'],
    ]);
    expect(log.map((l) => [l.id, l.aborted === true])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });
});

describe('context modifiers', () => {
  it('applies an exclusive call’s modifier at once and concurrent ones after the batch in tool_use order', async () => {
    const log: RunLog[] = [];
    const h = harness([fakeTool('T', log)]);
    h.executor.add(toolUse('s1', 'T', { ms: 20, safe: true, cwd: 'one' }));
    h.executor.add(toolUse('s2', 'T', { ms: 10, safe: true, cwd: 'two' }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.advanceTimersByTimeAsync(15);
    expect(h.shared.current.cwd).toBe('/w'); // s2 is done, but its modifier waits for the batch to end
    await vi.runAllTimersAsync();
    await done;
    expect(h.shared.current.cwd).toBe('/w/one/two');

    const h2 = harness([fakeTool('T', log)]);
    h2.executor.add(toolUse('x', 'T', { ms: 5, cwd: 'x' }));
    h2.executor.release();
    const d2 = h2.executor.settle();
    await vi.advanceTimersByTimeAsync(6);
    expect(h2.shared.current.cwd).toBe('/w/x');
    await d2;
  });
});

describe('the fixed pipeline', () => {
  it('runs every step in order: validateInput, PreToolUse, permission, call, PostToolUse', async () => {
    const steps: string[] = [];
    const log: RunLog[] = [];
    const base = fakeTool('T', log);
    const tool = { ...base, validateInput: () => (steps.push('validate'), { ok: true as const }), call: async (i: Parameters<typeof base.call>[0], c: Parameters<typeof base.call>[1]) => (steps.push('call'), base.call(i, c)) };
    const hooks: ToolHooks = {
      preToolUse: async () => (steps.push('pre'), {}),
      postToolUse: async (c) => (steps.push(`post:${JSON.stringify(c.response)}`), { additionalContext: ['from post'] }),
      postToolUseFailure: async () => (steps.push('postFailure'), {}),
    };
    const permissions: PermissionGate = {
      check: async () => (steps.push('permission'), { behavior: 'allow', meta: { decision: 'accept', source: 'config', decidedBy: 'test' }, approval: { by: 'rule' } }),
    };
    const h = harness([tool], { hooks, permissions });
    h.executor.add(toolUse('a', 'T', { ms: 1 }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    const [rec] = await done;
    expect(steps).toEqual(['validate', 'pre', 'permission', 'call', 'post:{"id":"a"}']);
    expect(rec?.additionalContext).toEqual(['from post']);
    const ev = h.events.find((e) => e.type === 'tool_result');
    expect(ev).toMatchObject({ decision: { decision: 'accept', source: 'config', decidedBy: 'test' } });
  });

  it('an MCP tool’s server reaches the hooks (mcp_server), a built-in has none', async () => {
    const seen: unknown[] = [];
    const mcp = { ...fakeTool('M', []), mcpServer: { name: 'web', source: 'dynamic' } };
    const hooks: ToolHooks = {
      preToolUse: async (c) => (seen.push(['pre', c.toolName, c.mcpServer]), {}),
      postToolUse: async (c) => (seen.push(['post', c.toolName, c.mcpServer]), {}),
      postToolUseFailure: async () => ({}),
    };
    const h = harness([mcp, fakeTool('T', [])], { hooks });
    h.executor.add(toolUse('a', 'M', { ms: 1 }));
    h.executor.add(toolUse('b', 'T', { ms: 1 }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    await done;
    expect(seen).toEqual([
      ['pre', 'M', { name: 'web', source: 'dynamic' }],
      ['post', 'M', { name: 'web', source: 'dynamic' }],
      ['pre', 'T', undefined],
      ['post', 'T', undefined],
    ]);
  });

  it('a failed validateInput stops the pipeline before hooks and permissions', async () => {
    const steps: string[] = [];
    const tool = { ...fakeTool('T', []), validateInput: () => ({ ok: false as const, message: 'File does not exist.' }) };
    const hooks: ToolHooks = { preToolUse: async () => (steps.push('pre'), {}), postToolUse: async () => ({}), postToolUseFailure: async () => ({}) };
    const h = harness([tool], { hooks });
    h.executor.add(toolUse('a', 'T', { ms: 1 }));
    h.executor.release();
    const [rec] = await h.executor.settle();
    expect(steps).toEqual([]);
    expect(rec?.block).toEqual({ type: 'tool_result', tool_use_id: 'a', content: '<tool_use_error>File does not exist.</tool_use_error>', is_error: true });
  });

  it('a hook’s updated input is validated again; a deny never calls the tool and is recorded as a denial', async () => {
    const log: RunLog[] = [];
    const hooks: ToolHooks = {
      preToolUse: async (c) => (c.toolUseId === 'bad' ? { updatedInput: { ms: 'x' } } : c.toolUseId === 'rw' ? { updatedInput: { ms: 7 } } : {}),
      postToolUse: async () => ({}),
      postToolUseFailure: async () => ({}),
    };
    const permissions: PermissionGate = {
      check: async (r) =>
        r.toolUseId === 'no'
          ? { behavior: 'deny', message: 'Not today.', meta: { decision: 'reject', source: 'user_reject' } }
          : { behavior: 'allow', meta: { decision: 'accept', source: 'config' }, approval: { by: 'rule' } },
    };
    const h = harness([fakeTool('T', log)], { hooks, permissions });
    h.executor.add(toolUse('bad', 'T', { ms: 1 }));
    h.executor.add(toolUse('rw', 'T', { ms: 1 }));
    h.executor.add(toolUse('no', 'T', { ms: 1 }));
    h.executor.release();
    const done = h.executor.settle();
    await vi.runAllTimersAsync();
    const records = await done;
    expect(records.map((r) => r.outcome)).toEqual(['denied', 'success', 'denied']);
    expect(log.map((l) => [l.id, l.end])).toEqual([['rw', 7]]);
    // A rewrite the schema refuses is the hook's fault: a deny with Claude Code's words, the model's input recorded.
    const refused = "PreToolUse hook for T returned updatedInput that failed schema validation: T failed due to the following issue:\nThe parameter `ms` type is expected as `number` but provided as `string`\nThe tool input from the model was valid; the hook's rewrite of it was not.";
    expect(records[0]).toEqual({
      toolUseId: 'bad',
      toolName: 'T',
      block: { type: 'tool_result', tool_use_id: 'bad', content: refused, is_error: true },
      outcome: 'denied',
      additionalContext: [],
      denial: { toolName: 'T', toolUseId: 'bad', input: { ms: 1 } },
    });
    expect(records[2]).toMatchObject({
      block: { type: 'tool_result', tool_use_id: 'no', content: 'Not today.', is_error: true },
      denial: { toolName: 'T', toolUseId: 'no', input: { ms: 1 } },
    });
  });
});
