// The Agent tool's own rules: which tools a subagent gets, which model, what it refuses, and how a failing
// subagent is reported (the nested loop itself is tested in test/unit/session/nested-loop.test.ts).
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { createAgentTool, subagentTools } from '../../../src/agents/agent-tool.js';
import { GENERAL_PURPOSE } from '../../../src/agents/builtin.js';
import type { AgentDefinition } from '../../../src/agents/types.js';
import type { NestedLoopSpec } from '../../../src/session/nested.js';
import type { TurnResult } from '../../../src/thread/events.js';
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

function agentTool(agents: AgentDefinition[], answer: Partial<TurnResult>, specs: NestedLoopSpec[] = []) {
  return createAgentTool({
    agents: () => agents,
    run: async (spec) => (specs.push(spec), { result: result(answer), thread: new Thread({ recorder: nullRecorder, newUuid: () => 'u' }) }),
    parentTools: () => PARENT,
    parentModel: () => 'claude-parent',
    system: (prompt) => [{ type: 'text', text: prompt }],
    newAgentId: () => 'a1',
    forwardText: () => false,
  });
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
      ['claude-haiku-4-5', 'toolu_1', false],
      ['claude-sonnet-4-5', 'toolu_1', false],
    ]);
  });

  it('refuses background runs, isolation and unknown agent types with a message the model can act on', async () => {
    const t = agentTool([GENERAL_PURPOSE, def({ name: 'tester' })], {});
    const v = (i: Record<string, unknown>) => t.validateInput?.({ description: 'd', prompt: 'p', ...i }, {} as never);
    expect(await v({ run_in_background: true })).toEqual({ ok: false, message: 'Background agents (run_in_background: true) are not supported by agentd yet; call Agent again without it.' });
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
});
