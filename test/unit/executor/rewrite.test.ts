// An input a hook or the host rewrote is held to the tool's schema and its own checks before it runs
// (src/executor/rewrite.ts), and a call of a tool a deny rule withheld is answered as such.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import type { PermissionGate, PermissionVerdict, ToolHooks } from '../../../src/executor/pipeline.js';
import type { CallRecord } from '../../../src/executor/executor.js';
import type { Tool } from '../../../src/tools/tool.js';
import { harness, toolUse } from '../../support/fake-tools.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

const PathInput = z.strictObject({ file_path: z.string(), content: z.optional(z.string()) });

/** A tool whose own check wants an absolute path (as Write's does); records the inputs it ran with. */
function pathTool(ran: unknown[]): Tool<z.infer<typeof PathInput>, string> {
  return {
    name: 'P',
    description: 'writes a path',
    inputSchema: PathInput,
    isConcurrencySafe: () => false,
    isReadOnly: () => false,
    interruptBehavior: 'cancel',
    validateInput: (i) => (i.file_path.startsWith('/') ? { ok: true } : { ok: false, message: `file_path must be an absolute path, not a relative one: "${i.file_path}".` }),
    call: async (input) => {
      ran.push(input);
      return { data: 'done', content: `wrote ${input.file_path}` };
    },
  };
}

function rewritingHook(updatedInput: Record<string, unknown>, decision?: 'deny'): ToolHooks {
  return {
    preToolUse: async () => ({ updatedInput, ...(decision ? { decision: { behavior: decision, reason: 'hook says no', source: 'test' } } : {}) }),
    postToolUse: async () => ({}),
    postToolUseFailure: async () => ({}),
  };
}

/** A gate that allows, as the host or a PermissionRequest hook would, with this rewrite (or denies a hook's deny). */
function allowingWith(rewrite: Extract<PermissionVerdict, { behavior: 'allow' }>['rewrite']): PermissionGate {
  return {
    check: async (req) =>
      req.hook?.behavior === 'deny'
        ? { behavior: 'deny', message: req.hook.reason ?? 'denied', meta: { decision: 'reject', source: 'hook', decidedBy: 'hook:test' } }
        : { behavior: 'allow', ...(rewrite ? { rewrite } : {}), meta: { decision: 'accept', source: 'user_temporary', decidedBy: 'host:allow' }, approval: { by: 'host' } },
  };
}

async function runOne(h: ReturnType<typeof harness>, id: string, name: string, input: Record<string, unknown>): Promise<CallRecord> {
  h.executor.add(toolUse(id, name, input));
  h.executor.release();
  const done = h.executor.settle();
  await vi.runAllTimersAsync();
  const [rec] = await done;
  if (!rec) throw new Error('no record');
  return rec;
}

const HOOK_TAIL = "The tool input from the model was valid; the hook's rewrite of it was not.";

describe('a PreToolUse hook’s updatedInput', () => {
  it('that the tool’s own check refuses is a deny in Claude Code’s words, recorded with the model’s input; nothing runs', async () => {
    const ran: unknown[] = [];
    const h = harness([pathTool(ran)], { hooks: rewritingHook({ file_path: 'rel.txt', content: 'x' }), permissions: allowingWith(undefined) });
    const rec = await runOne(h, 'a', 'P', { file_path: '/w/asked.txt', content: 'x' });
    const text = `PreToolUse hook for P returned updatedInput that the tool refused: file_path must be an absolute path, not a relative one: "rel.txt".\n${HOOK_TAIL}`;
    expect(rec).toEqual({
      toolUseId: 'a',
      toolName: 'P',
      block: { type: 'tool_result', tool_use_id: 'a', content: text, is_error: true },
      outcome: 'denied',
      additionalContext: [],
      denial: { toolName: 'P', toolUseId: 'a', input: { file_path: '/w/asked.txt', content: 'x' } },
    });
    expect(ran).toEqual([]);
  });

  it('with a key the schema does not know runs without that key (dropped, as Claude Code does)', async () => {
    const ran: unknown[] = [];
    const h = harness([pathTool(ran)], { hooks: rewritingHook({ file_path: '/w/other.txt', content: 'y', extra: 1 }), permissions: allowingWith(undefined) });
    const rec = await runOne(h, 'a', 'P', { file_path: '/w/asked.txt' });
    expect(ran).toEqual([{ file_path: '/w/other.txt', content: 'y' }]);
    expect(rec).toEqual({ toolUseId: 'a', toolName: 'P', block: { type: 'tool_result', tool_use_id: 'a', content: 'wrote /w/other.txt' }, outcome: 'success', additionalContext: [], data: 'done' });
  });

  it('is not judged when the same hook denies the call: the deny stands', async () => {
    const ran: unknown[] = [];
    const h = harness([pathTool(ran)], { hooks: rewritingHook({ file_path: 42 }, 'deny'), permissions: allowingWith(undefined) });
    const rec = await runOne(h, 'a', 'P', { file_path: '/w/asked.txt' });
    expect(rec).toEqual({
      toolUseId: 'a',
      toolName: 'P',
      block: { type: 'tool_result', tool_use_id: 'a', content: 'hook says no', is_error: true },
      outcome: 'denied',
      additionalContext: [],
      denial: { toolName: 'P', toolUseId: 'a', input: { file_path: '/w/asked.txt' } },
    });
    expect(ran).toEqual([]);
  });
});

describe('an updatedInput sent with an allow', () => {
  it('by the host, failing the schema: an error result naming the permission handler (Claude Code’s text); nothing runs', async () => {
    const ran: unknown[] = [];
    const h = harness([pathTool(ran)], { permissions: allowingWith({ input: { file_path: 42 }, by: 'host' }) });
    const rec = await runOne(h, 'a', 'P', { file_path: '/w/asked.txt' });
    const text =
      'The permission handler returned updatedInput for P that failed schema validation: P failed due to the following issue:\nThe parameter `file_path` type is expected as `string` but provided as `number`\nThis is a configuration issue in your canUseTool callback, PermissionRequest hook, or permission-prompt tool — updatedInput must satisfy the tool\'s input schema. The tool input from the model was valid.';
    expect(rec).toEqual({ toolUseId: 'a', toolName: 'P', block: { type: 'tool_result', tool_use_id: 'a', content: `<tool_use_error>${text}</tool_use_error>`, is_error: true }, outcome: 'error', additionalContext: [] });
    expect(ran).toEqual([]);
  });

  it('by the host, failing the tool’s own check (a relative path): an error result; nothing is written', async () => {
    const ran: unknown[] = [];
    const h = harness([pathTool(ran)], { permissions: allowingWith({ input: { file_path: 'rel.txt', content: 'x' }, by: 'host' }) });
    const rec = await runOne(h, 'a', 'P', { file_path: '/w/asked.txt', content: 'x' });
    const text = `The permission handler returned updatedInput for P that the tool refused: file_path must be an absolute path, not a relative one: "rel.txt".\nThe tool input from the model was valid; the permission handler's rewrite of it was not.`;
    expect(rec).toEqual({ toolUseId: 'a', toolName: 'P', block: { type: 'tool_result', tool_use_id: 'a', content: `<tool_use_error>${text}</tool_use_error>`, is_error: true }, outcome: 'error', additionalContext: [] });
    expect(ran).toEqual([]);
  });

  it('by a PermissionRequest hook, failing the tool’s own check: a deny in the hook’s words', async () => {
    const ran: unknown[] = [];
    const h = harness([pathTool(ran)], { permissions: allowingWith({ input: { file_path: 'rel.txt' }, by: 'hook' }) });
    const rec = await runOne(h, 'a', 'P', { file_path: '/w/asked.txt' });
    const text = `PermissionRequest hook for P returned updatedInput that the tool refused: file_path must be an absolute path, not a relative one: "rel.txt".\n${HOOK_TAIL}`;
    expect(rec).toEqual({
      toolUseId: 'a',
      toolName: 'P',
      block: { type: 'tool_result', tool_use_id: 'a', content: text, is_error: true },
      outcome: 'denied',
      additionalContext: [],
      denial: { toolName: 'P', toolUseId: 'a', input: { file_path: '/w/asked.txt' } },
    });
    expect(ran).toEqual([]);
  });

  it('that passes runs the rewritten input', async () => {
    const ran: unknown[] = [];
    const h = harness([pathTool(ran)], { permissions: allowingWith({ input: { file_path: '/w/b.txt' }, by: 'host' }) });
    const rec = await runOne(h, 'a', 'P', { file_path: '/w/asked.txt' });
    expect(ran).toEqual([{ file_path: '/w/b.txt' }]);
    expect(rec.outcome).toBe('success');
  });
});

describe('a tool a deny rule withheld', () => {
  it('is answered “No such tool available … disabled for this session” (Claude Code’s words); an unknown name keeps the plain answer', async () => {
    const h = harness([], { withheld: (n) => n === 'Bash' });
    h.executor.add(toolUse('a', 'Bash', { command: 'ls' }));
    h.executor.add(toolUse('b', 'Nope', {}));
    h.executor.release();
    const records = await h.executor.settle();
    expect(records).toEqual([
      {
        toolUseId: 'a',
        toolName: 'Bash',
        block: { type: 'tool_result', tool_use_id: 'a', content: '<tool_use_error>Error: No such tool available: Bash. Bash is disabled for this session, in subagents as well as here.</tool_use_error>', is_error: true },
        outcome: 'error',
        additionalContext: [],
      },
      { toolUseId: 'b', toolName: 'Nope', block: { type: 'tool_result', tool_use_id: 'b', content: '<tool_use_error>Error: No such tool available: Nope</tool_use_error>', is_error: true }, outcome: 'error', additionalContext: [] },
    ]);
  });
});
