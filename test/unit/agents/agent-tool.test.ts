// The Agent tool's own rules: which tools a subagent gets, which model, what it refuses, and how a failing
// subagent is reported (the nested loop itself is tested in test/unit/session/nested-loop.test.ts).
import { ModelNames, NO_MODEL_POLICY } from '../../../src/model/model-allowlist.js';
import { FIRST_PARTY_ENV } from '../../../src/model/names.js';
import { describe, expect, it } from 'vitest';
import { until } from '../../support/wait.js';
import * as z from 'zod/mini';
import { createAgentTool, subagentTools } from '../../../src/agents/agent-tool.js';
import { GENERAL_PURPOSE } from '../../../src/agents/builtin.js';
import type { AgentDefinition } from '../../../src/agents/types.js';
import type { NestedLoopSpec } from '../../../src/session/nested.js';
import { TaskRegistry } from '../../../src/agents/tasks.js';
import { noTurnHooks } from '../../../src/hooks/turn-hooks.js';
import type { SessionEvent, TurnResult } from '../../../src/thread/events.js';
import { Thread } from '../../../src/thread/thread.js';
import { nullRecorder } from '../../../src/thread/recorder.js';
import type { AnyTool, ToolCallContext } from '../../../src/tools/tool.js';

function tool(name: string): AnyTool {
  return { name, description: name, inputSchema: z.object({}), isConcurrencySafe: () => true, isReadOnly: () => true, interruptBehavior: 'cancel', call: async () => ({ data: '', content: '' }) };
}
const PARENT = ['Read', 'Write', 'Bash', 'Agent', 'StructuredOutput'].map(tool);
const def = (over: Partial<AgentDefinition>): AgentDefinition => ({ ...GENERAL_PURPOSE, name: 'x', source: 'sdk', ...over });

function result(over: Partial<TurnResult>): TurnResult {
  return { kind: 'success', isError: false, resultText: '', errors: [], stopReason: 'end_turn', terminalReason: 'completed', durationMs: 0, durationApiMs: 0, numTurns: 1, usage: {} as TurnResult['usage'], modelUsage: {}, totalCostUsd: 0, permissionDenials: [], userMessageUuids: [], resultIndex: 0, queuedTurnCount: 0, ...over };
}

interface Rig {
  events: SessionEvent[];
  delivered: string[];
  tasks: TaskRegistry;
}

function rig(): Rig {
  const events: SessionEvent[] = [];
  const delivered: string[] = [];
  let t = 1000;
  const tasks = new TaskRegistry({ emit: (ev) => void events.push(ev), now: () => (t += 5), deliver: (text) => void delivered.push(text), onIdle: () => undefined });
  return { events, delivered, tasks };
}

const emptyThread = () => new Thread({ recorder: nullRecorder, newUuid: () => 'u' });

/** The Agent tool over the rig's task registry; each test overrides what it is about. */
function agentToolWith(r: Rig, over: Partial<Parameters<typeof createAgentTool>[0]>) {
  return createAgentTool({
    tasks: r.tasks,
    hooks: noTurnHooks,
    outputFile: (id) => `/t/subagents/agent-${id}.jsonl`,
    agents: () => [GENERAL_PURPOSE],
    run: async () => ({ result: result({}), thread: emptyThread() }),
    parentTools: () => PARENT,
    parentModel: () => 'claude-parent',
    resolveModel: (name) => new ModelNames(FIRST_PARTY_ENV, NO_MODEL_POLICY).forTask(name, () => undefined),
    system: (prompt) => [{ type: 'text', text: prompt }],
    newAgentId: () => 'a1',
    forwardText: () => false,
    ...over,
  });
}

function agentTool(agents: AgentDefinition[], answer: Partial<TurnResult>, specs: NestedLoopSpec[] = [], r: Rig = rig()) {
  return agentToolWith(r, { agents: () => agents, run: async (spec) => (specs.push(spec), { result: result(answer), thread: emptyThread() }) });
}
const ctx = { toolUseId: 'toolu_1', signal: new AbortController().signal } as unknown as ToolCallContext;

describe('the Agent tool', () => {
  it("never gives a subagent the Agent tool (depth cap) or StructuredOutput; honours the definition's list and disallowedTools; drops unknown names", () => {
    const unknown: string[] = [];
    expect(subagentTools(def({ tools: undefined }), PARENT).map((t) => t.name)).toEqual(['Read', 'Write', 'Bash']);
    expect(subagentTools(def({ tools: ['Read', 'Agent', 'Nope'] }), PARENT, (n) => unknown.push(n)).map((t) => t.name)).toEqual(['Read']);
    expect(unknown).toEqual(['Nope']);
    expect(subagentTools(def({ tools: undefined, disallowedTools: ['Bash'] }), PARENT).map((t) => t.name)).toEqual(['Read', 'Write']);
  });

  it('inherits the parent model unless the input or the definition names one (aliases resolved)', async () => {
    const specs: NestedLoopSpec[] = [];
    const t = agentTool([def({ name: 'a', model: 'inherit' }), def({ name: 'b', model: 'haiku' })], { resultText: 'ok' }, specs);
    await t.call({ description: 'd', prompt: 'p', subagent_type: 'a' }, ctx);
    await t.call({ description: 'd', prompt: 'p', subagent_type: 'b' }, ctx);
    await t.call({ description: 'd', prompt: 'p', subagent_type: 'a', model: 'sonnet' }, ctx);
    expect(specs.map((s) => [s.settings.model, s.parentToolUseId, s.forwardText])).toEqual([
      ['claude-parent', 'toolu_1', false],
      ['claude-haiku-5-5', 'toolu_1', false],
      ['claude-sonnet-5-5', 'toolu_1', false],
    ]);
  });

  it('a model availableModels leaves out runs the subagent on the parent model (Claude Code 2.1.330, measured)', async () => {
    const specs: NestedLoopSpec[] = [];
    const refused: string[] = [];
    const names = new ModelNames(FIRST_PARTY_ENV, { available: ['sonnet'], enforce: false, exact: false, denied: [] });
    const t = agentToolWith(rig(), {
      agents: () => [def({ name: 'a', model: 'opus-4-6' })],
      run: async (spec) => (specs.push(spec), { result: result({ resultText: 'ok' }), thread: emptyThread() }),
      resolveModel: (name) => names.forTask(name, (n) => refused.push(n)),
    });
    await t.call({ description: 'd', prompt: 'p', subagent_type: 'a' }, ctx);
    await t.call({ description: 'd', prompt: 'p', subagent_type: 'a', model: 'sonnet' }, ctx);
    expect({ models: specs.map((s) => s.settings.model), refused }).toEqual({ models: ['claude-parent', 'claude-sonnet-5-5'], refused: ['opus-4-6'] });
  });

  it('refuses isolation and unknown agent types with a message the model can act on', async () => {
    const t = agentTool([GENERAL_PURPOSE, def({ name: 'tester' })], {});
    const v = (i: Record<string, unknown>) => t.validateInput?.({ description: 'd', prompt: 'p', ...i }, {} as never);
    expect(await v({ run_in_background: true })).toEqual({ ok: true });
    expect(await v({ isolation: 'worktree' })).toEqual({ ok: false, message: 'Isolation "worktree" is not supported by agentd; call Agent again without it.' });
    expect(await v({ subagent_type: 'nobody' })).toEqual({ ok: false, message: "Agent type 'nobody' not found. Available agents: general-purpose, tester" });
    expect(await v({})).toEqual({ ok: true });
  });

  it('a failing subagent gives its parent an is_error result', async () => {
    const t = agentTool([GENERAL_PURPOSE], { kind: 'error_during_execution', isError: true, errors: ['API error 500 (server_error): boom'] });
    expect(await t.call({ description: 'd', prompt: 'p' }, ctx)).toEqual({
      data: 'Error: API error 500 (server_error): boom',
      content: 'Agent "general-purpose" failed: API error 500 (server_error): boom',
      isError: true,
    });
  });

  it('a foreground call is a task: started, progress per tool call, a notification with the report before the result', async () => {
    const r = rig();
    const info = { id: 'a1', toolUseId: 'toolu_1', description: 'd', subagentType: 'general-purpose', taskType: 'local_agent', background: false, outputFile: '/t/subagents/agent-a1.jsonl' };
    const t = agentToolWith(r, {
      run: async (spec) => {
        spec.observe?.({ type: 'usage', model: 'm', call: { input_tokens: 100, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 3, cost_usd: 0 }, turnCostUsd: 0, totalCostUsd: 0 });
        spec.observe?.({ type: 'assistant_block', uuid: 'u', meta: { id: 'm', model: 'm', usage: { input_tokens: 0, output_tokens: 0 }, requestId: undefined }, block: { type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: '/w/notes.md' } } });
        return { result: result({ resultText: 'The report.' }), thread: emptyThread() };
      },
    });
    expect(await t.call({ description: 'd', prompt: 'do it' }, ctx)).toEqual({ data: 'The report.', content: 'The report.' });
    expect(r.events).toEqual([
      { type: 'task_started', task: info, prompt: 'do it' },
      { type: 'task_progress', task: info, activity: 'Reading notes.md', usage: { totalTokens: 110, toolUses: 1, durationMs: 5 }, lastToolName: 'Read' },
      { type: 'task_updated', task: info, status: 'completed', endTime: 1020 },
      { type: 'task_notification', task: info, status: 'completed', summary: 'The report.', summaryIsReport: false, usage: { totalTokens: 110, toolUses: 1, durationMs: 10 } },
    ]);
    expect(r.delivered).toEqual([]);
  });

  it('a background call answers at once; its end is a notification frame and a message queued for the model', async () => {
    const r = rig();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((res) => (release = res));
    const t = agentToolWith(r, {
      run: async () => (await gate, { result: result({ resultText: 'Late report.' }), thread: emptyThread() }),
      newAgentId: () => 'a9',
    });
    const out = await t.call({ description: 'Scan', prompt: 'scan it', run_in_background: true }, ctx);
    expect(out.data).toEqual({ isAsync: true, status: 'async_launched', agentId: 'a9', description: 'Scan', resolvedModel: 'claude-parent', prompt: 'scan it', outputFile: '/t/subagents/agent-a9.jsonl', canReadOutputFile: true });
    expect(out.content).toContain('Async agent launched successfully.');
    expect(out.content).toContain('output_file: /t/subagents/agent-a9.jsonl');
    expect(r.tasks.running()).toBe(1);
    const idle = r.tasks.idle();
    release();
    await idle;
    expect(r.events.map((e) => e.type)).toEqual(['background_tasks_changed', 'task_started', 'task_updated', 'task_notification', 'background_tasks_changed']);
    expect(r.events[3]).toMatchObject({ status: 'completed', summary: 'Late report.', summaryIsReport: true });
    expect(r.delivered).toHaveLength(1);
    expect(r.delivered[0]).toContain('<task-id>a9</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n<output-file>/t/subagents/agent-a9.jsonl</output-file>\n<status>completed</status>\n<summary>Agent "Scan" finished</summary>\n<result>Late report.</result>');
  });

  it('stop() reports the task stopped at once and aborts its loop', async () => {
    const r = rig();
    let seen: AbortSignal | undefined;
    const t = agentToolWith(r, {
      outputFile: () => '',
      run: (spec) =>
        new Promise((res) => {
          seen = spec.signal;
          spec.signal.addEventListener('abort', () => res({ result: result({ isError: true, kind: 'error_during_execution', errors: ['Interrupted by the user.'] }), thread: emptyThread() }));
        }),
      newAgentId: () => 'a5',
    });
    await t.call({ description: 'Long', prompt: 'p', run_in_background: true }, ctx);
    expect(await r.tasks.stop('a5')).toBe(true);
    expect(seen?.aborted).toBe(true);
    expect(await r.tasks.stop('a5')).toBe(false);
    await r.tasks.idle();
    expect(r.events.filter((e) => e.type === 'task_notification')).toEqual([
      { type: 'task_notification', task: { id: 'a5', toolUseId: 'toolu_1', description: 'Long', subagentType: 'general-purpose', taskType: 'local_agent', background: true, outputFile: '' }, status: 'stopped', summary: 'Long', summaryIsReport: false, usage: undefined },
    ]);
    expect(r.delivered[0]).toContain('<status>killed</status>\n<summary>Agent "Long" was stopped by user</summary>\n</task-notification>');
  });

  it('stopAll() (session end) aborts every running task, foreground and background, and leaves none running', async () => {
    const r = rig();
    const signals: AbortSignal[] = [];
    const t = agentToolWith(r, {
      outputFile: () => '',
      run: (spec) =>
        new Promise((res) => {
          signals.push(spec.signal);
          spec.signal.addEventListener('abort', () => res({ result: result({ isError: true, kind: 'error_during_execution', errors: ['stopped'] }), thread: emptyThread() }));
        }),
      newAgentId: () => `a${signals.length}`,
    });
    await t.call({ description: 'bg', prompt: 'p', run_in_background: true }, ctx);
    const fg = t.call({ description: 'fg', prompt: 'p' }, ctx);
    await until(() => signals.length === 2, 'both agents running');
    expect(r.tasks.running()).toBe(1);
    r.tasks.stopAll();
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    expect(r.tasks.running()).toBe(0);
    await r.tasks.idle();
    expect(await fg).toMatchObject({ isError: true });
    // Nothing is delivered to a model that will not run again.
    expect(r.delivered).toEqual([]);
  });
});
