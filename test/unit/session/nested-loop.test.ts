// A tool that runs a nested agent loop (what the subagent tool stands on): its model requests use its own system
// prompt and toolset, its events carry the parent tool_use id (and so its frames), its transcript is a
// sidechain, the outer turn gets its final text as the tool result, and interrupting the outer turn stops both.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { Projector } from '../../../src/control/projector.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { NestedLoopOutcome } from '../../../src/session/nested.js';
import type { Session } from '../../../src/session/session.js';
import { TranscriptWriter } from '../../../src/store/writer.js';
import type { SessionEvent } from '../../../src/thread/events.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import type { Tool } from '../../../src/tools/tool.js';
import { type SessionHarness, sessionHarness } from '../../support/session-harness.js';
import { until } from '../../support/wait.js';

const NESTED_SYSTEM = 'You are the nested researcher.';

/** A tool only the nested loop has. */
const echoTool: Tool<{ text: string }, string> = {
  name: 'Echo',
  description: 'echoes',
  inputSchema: z.strictObject({ text: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  interruptBehavior: 'cancel',
  call: async (i) => ({ data: i.text, content: i.text }),
};

/** The delegating tool: runs a nested loop with its own prompt and toolset, answers with its final text. */
function delegateTool(session: () => Session, outcomes: NestedLoopOutcome[]): Tool<{ prompt: string }, string> {
  return {
    name: 'Delegate',
    description: 'delegates to a nested agent',
    inputSchema: z.strictObject({ prompt: z.string() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    call: async (input, ctx) => {
      const out = await session().runNested({
        parentToolUseId: ctx.toolUseId,
        agentId: 'a1b2c3',
        prompt: input.prompt,
        system: () => [{ type: 'text', text: NESTED_SYSTEM }],
        tools: new ToolRegistry([echoTool]),
        settings: { model: 'claude-nested', fallbackModel: undefined, maxTurns: 5, maxBudgetUsd: undefined, jsonSchema: undefined },
        signal: ctx.signal,
      });
      outcomes.push(out);
      if (out.result.isError) return { data: out.result.errors.join('; '), content: out.result.errors.join('; '), isError: true };
      return { data: out.result.resultText, content: out.result.resultText };
    },
  };
}

function harness(opts: { nestedDelayMs?: number; sidechainPath?: string }): { h: SessionHarness; outcomes: NestedLoopOutcome[] } {
  const outcomes: NestedLoopOutcome[] = [];
  const ref: { session?: Session } = {};
  const h = sessionHarness({
    tools: [delegateTool(() => ref.session as Session, outcomes)],
    settings: { systemPrompt: { kind: 'custom', parts: ['You are the outer agent.'] } },
    ...(opts.sidechainPath
      ? {
          sidechainRecorder: (agentId: string) =>
            new TranscriptWriter({
              path: opts.sidechainPath as string,
              context: { sessionId: 'sess-1', cwd: '/w', entrypoint: 'sdk-ts', version: '2.1.330', agentId },
              parentUuid: null,
              now: () => 0,
              logger: silentLogger(),
              sidechain: true,
            }),
        }
      : {}),
    scenario: {
      rules: [
        { when: { system: 'outer agent', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_outer', name: 'Delegate', input: { prompt: 'find it' } }] } },
        { when: { system: 'nested researcher', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_inner', name: 'Echo', input: { text: 'echoed' } }], ...(opts.nestedDelayMs ? { delays: { firstTokenMs: opts.nestedDelayMs } } : {}) } },
        { when: { system: 'nested researcher', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Nested answer: 42.' }] } },
        { when: { system: 'outer agent', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Outer done.' }] } },
      ],
    },
  });
  ref.session = h.session;
  return { h, outcomes };
}

describe('a nested agent loop run by a tool', () => {
  it('uses its own system prompt and tools, stamps its events with the parent id, records a sidechain, and answers the outer call', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentd-nested-')), 'sess-1', 'subagents', 'agent-a1b2c3.jsonl');
    const { h, outcomes } = harness({ sidechainPath: path });
    const result = await h.ask('delegate please');
    expect(result.kind).toBe('success');
    expect(result.resultText).toBe('Outer done.');

    // Requests: outer, nested, nested (after Echo), outer (with the Delegate result).
    expect(h.requests.map((r) => [r.model, r.system?.map((b) => b.text).join(''), (r.tools ?? []).map((t) => t.name)])).toEqual([
      ['claude-test', 'You are the outer agent.', ['Delegate']],
      ['claude-nested', NESTED_SYSTEM, ['Echo']],
      ['claude-nested', NESTED_SYSTEM, ['Echo']],
      ['claude-test', 'You are the outer agent.', ['Delegate']],
    ]);
    expect(h.requests[1]?.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'find it', cache_control: { type: 'ephemeral' } }] }]);
    // The outer turn got the nested loop's final text as the tool result.
    const last = h.requests[3]?.messages.at(-1);
    expect(last).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_outer', content: 'Nested answer: 42.', cache_control: { type: 'ephemeral' } }] });

    // Events of the nested loop carry the parent id; the outer loop's do not.
    const stamped = (e: SessionEvent): string | undefined => ('parentToolUseId' in e ? e.parentToolUseId : undefined);
    const conversational = h.events.filter((e) => e.type === 'assistant_block' || e.type === 'tool_result');
    expect(conversational.map((e) => [e.type === 'assistant_block' ? `assistant:${e.block.type}` : `result:${e.type === 'tool_result' ? e.toolUseId : ''}`, stamped(e)])).toEqual([
      ['assistant:tool_use', undefined],
      ['assistant:tool_use', 'toolu_outer'],
      ['result:toolu_inner', 'toolu_outer'],
      ['assistant:text', 'toolu_outer'],
      ['result:toolu_outer', undefined],
      ['assistant:text', undefined],
    ]);
    expect(h.events.filter((e) => e.type === 'turn_result')).toHaveLength(1);

    // …and so do their frames.
    const frames: Array<Record<string, unknown>> = [];
    const projector = new Projector(
      { write: (f: unknown) => void frames.push(f as Record<string, unknown>) },
      { sessionId: 's', includePartialMessages: false, includeHookEvents: false, usageFrames: false, sessionState: 'none', agentdVersion: 'x', initInfo: () => { throw new Error('unused'); }, newUuid: () => 'u', now: () => 0 },
    );
    for (const e of conversational) void projector.emit(e);
    expect(frames.map((f) => [f['type'], f['parent_tool_use_id']])).toEqual([
      ['assistant', null],
      ['assistant', 'toolu_outer'],
      ['user', 'toolu_outer'],
      ['assistant', 'toolu_outer'],
      ['user', null],
      ['assistant', null],
    ]);

    // The nested thread is a sidechain transcript of its own.
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.thread.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l['type'], l['isSidechain'], l['agentId'], l['sessionId']])).toEqual([
      ['user', true, 'a1b2c3', 'sess-1'],
      ['assistant', true, 'a1b2c3', 'sess-1'],
      ['user', true, 'a1b2c3', 'sess-1'],
      ['assistant', true, 'a1b2c3', 'sess-1'],
    ]);
    expect(lines[0]?.['parentUuid']).toBeNull();
    expect(lines.slice(1).map((l) => l['parentUuid'])).toEqual(lines.slice(0, -1).map((l) => l['uuid']));
    // The main thread knows nothing of the nested conversation.
    expect(h.session.history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('interrupting the outer turn stops the nested loop too', async () => {
    const { h, outcomes } = harness({ nestedDelayMs: 10_000 });
    const done = h.ask('delegate please');
    // The nested loop's request is out (it will not answer for 10 s).
    await until(() => h.requests.length === 2, 'the nested request');
    h.session.interrupt({ cancelQueued: false });
    const result = await done;
    expect(result.kind).toBe('error_during_execution');
    expect(result.terminalReason).toBe('aborted_tools');
    await until(() => outcomes.length === 1, 'the nested loop to end');
    expect(outcomes[0]?.result).toMatchObject({ kind: 'error_during_execution', terminalReason: 'aborted_streaming', isError: true });
    expect(h.requests).toHaveLength(2);
  });
});
