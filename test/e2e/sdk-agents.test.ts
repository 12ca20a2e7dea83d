// Subagents through the official SDK (issue 13, item 1): the `agents` option, the Agent tool, nested loops.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { collect, collectSettled, query, scriptedRun, toolResults } from '../support/sdk-run.js';
import { until } from '../support/wait.js';

const allow = async (_n: string, input: Record<string, unknown>) => ({ behavior: 'allow' as const, updatedInput: input });
const TESTER = { description: 'Tests things', prompt: 'You are the tester agent.', tools: ['Read'] };

function parentIds(msgs: readonly SDKMessage[]): Array<[string, string | null]> {
  return msgs.flatMap((m): Array<[string, string | null]> => (m.type === 'assistant' || m.type === 'user' ? [[m.type, m.parent_tool_use_id]] : []));
}

describe('subagents through the SDK', () => {
  it('a custom agent runs with its own prompt and only its tools; its frames carry the parent id; its text is the Agent result', async () => {
    const run = scriptedRun({
      rules: [
        { when: { system: 'tester agent', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_sub_read', name: 'Read', input: { file_path: '{{cwd}}/answer.txt' } }] } },
        { when: { system: 'tester agent', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Tester found 42.' }] } },
        { when: { lastUserText: 'delegate', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_agent1', name: 'Agent', input: { description: 'Find the answer', prompt: 'Find the answer please', subagent_type: 'tester' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Outer done.' }] } },
      ],
    });
    writeFileSync(join(run.cwd, 'answer.txt'), '42\n');
    const msgs = await collect(query({ prompt: 'delegate this', options: run.options({ agents: { tester: TESTER }, canUseTool: allow }) }));
    const reqs = run.requests();
    expect(reqs).toHaveLength(4);
    const sub = reqs[1];
    expect(sub?.system?.[0]?.text).toBe('You are the tester agent.');
    expect((sub?.tools ?? []).map((t) => t.name)).toEqual(['Read']);
    expect(sub?.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Find the answer please', cache_control: { type: 'ephemeral' } }] });
    expect((reqs[0]?.tools ?? []).map((t) => t.name)).toContain('Agent');
    expect(toolResults(msgs)).toEqual([
      ['toolu_sub_read', false, '1\t42\n2\t'],
      ['toolu_agent1', false, 'Tester found 42.'],
    ]);
    // The subagent's prompt (as Claude Code forwards it), tool call and result carry the parent id; its text is not forwarded (forwardSubagentText off).
    expect(parentIds(msgs)).toEqual([
      ['assistant', null],
      ['user', 'toolu_agent1'],
      ['assistant', 'toolu_agent1'],
      ['user', 'toolu_agent1'],
      ['user', null],
      ['assistant', null],
    ]);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'Outer done.' });
  });

  it('an agent from .claude/agents/*.md (settingSources project) is one the Agent tool runs, with its prompt and tools', async () => {
    const run = scriptedRun({
      rules: [
        { when: { system: 'file reviewer agent' }, reply: { content: [{ type: 'text', text: 'Reviewed from the file agent.' }] } },
        { when: { lastUserText: 'delegate', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_f', name: 'Agent', input: { description: 'Review', prompt: 'Review it', subagent_type: 'reviewer' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Outer done.' }] } },
      ],
    });
    mkdirSync(join(run.cwd, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(run.cwd, '.claude', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\n---\nYou are the file reviewer agent.\n');
    const msgs = await collect(query({ prompt: 'delegate this', options: run.options({ settingSources: ['project'], canUseTool: allow }) }));
    const sub = run.requests()[1];
    expect(sub?.system?.[0]?.text).toBe('You are the file reviewer agent.');
    expect((sub?.tools ?? []).map((t) => t.name).sort()).toEqual(['Grep', 'Read']);
    expect(toolResults(msgs)).toEqual([['toolu_f', false, 'Reviewed from the file agent.']]);
  });

  it('two subagents in one message overlap in time', async () => {
    const run = scriptedRun({
      rules: [
        { when: { system: 'tester agent', hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: '{{cwd}}/answer.txt' } }], delays: { firstTokenMs: 300 } } },
        { when: { system: 'tester agent', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Found it.' }] } },
        {
          when: { lastUserText: 'delegate', hasToolResults: false },
          reply: {
            content: [
              { type: 'tool_use', id: 'toolu_a', name: 'Agent', input: { description: 'One', prompt: 'Look one', subagent_type: 'tester' } },
              { type: 'tool_use', id: 'toolu_b', name: 'Agent', input: { description: 'Two', prompt: 'Look two', subagent_type: 'tester' } },
            ],
          },
        },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Both done.' }] } },
      ],
    });
    writeFileSync(join(run.cwd, 'answer.txt'), '42\n');
    const msgs = await collect(query({ prompt: 'delegate both', options: run.options({ agents: { tester: TESTER }, canUseTool: allow }) }));
    // Both subagents' first requests went out before either's second one: they ran side by side.
    const prompts = run.requests().map((r) => {
      const first = r.messages[0]?.content;
      return Array.isArray(first) && first[0]?.type === 'text' ? first[0].text : typeof first === 'string' ? first : '';
    });
    const firstTwoSub = prompts.slice(1, 3).sort();
    expect(firstTwoSub).toEqual(['Look one', 'Look two']);
    expect(run.requests().slice(1, 3).every((r) => r.messages.length === 1)).toBe(true);
    expect(toolResults(msgs).filter(([id]) => id === 'toolu_a' || id === 'toolu_b').map(([id, err, text]) => [id, err, text]).sort()).toEqual([
      ['toolu_a', false, 'Found it.'],
      ['toolu_b', false, 'Found it.'],
    ]);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'Both done.' });
  });

  it('interrupt stops the turn and both running subagents', async () => {
    const run = scriptedRun({
      rules: [
        { when: { system: 'tester agent' }, reply: { content: [{ type: 'text', text: 'too late' }], delays: { firstTokenMs: 30_000 } } },
        {
          when: { lastUserText: 'delegate', hasToolResults: false },
          reply: {
            content: [
              { type: 'tool_use', id: 'toolu_a', name: 'Agent', input: { description: 'One', prompt: 'Look one', subagent_type: 'tester' } },
              { type: 'tool_use', id: 'toolu_b', name: 'Agent', input: { description: 'Two', prompt: 'Look two', subagent_type: 'tester' } },
            ],
          },
        },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'never' }] } },
      ],
    });
    const q = query({ prompt: 'delegate both', options: run.options({ agents: { tester: TESTER }, canUseTool: allow }) });
    const started = Date.now();
    const msgs: SDKMessage[] = [];
    // The interrupted turn's result is the last one: the CLI exits 1 (as Claude Code does) and the SDK throws.
    const done = collectSettled(q, (m) => void msgs.push(m));
    // The record file may hold a half-written line while the scripted model appends to it.
    const count = (): number => {
      try {
        return run.requests().length;
      } catch {
        return 0;
      }
    };
    await until(() => count() === 3, 'both subagent requests');
    await q.interrupt();
    expect((await done).error).toBe('Claude Code returned an error result: Interrupted by the user.');
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution' });
    expect(toolResults(msgs).map(([id, err]) => [id, err]).sort()).toEqual([
      ['toolu_a', true],
      ['toolu_b', true],
    ]);
    expect(run.requests()).toHaveLength(3);
  });

  it('an unknown agent type is an is_error result listing the known ones', async () => {
    const run = scriptedRun({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_x', name: 'Agent', input: { description: 'x', prompt: 'x', subagent_type: 'nobody' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
      ],
    });
    const msgs = await collect(query({ prompt: 'go', options: run.options({ agents: { tester: TESTER }, canUseTool: allow }) }));
    expect(toolResults(msgs)).toEqual([['toolu_x', true, "<tool_use_error>Agent type 'nobody' not found. Available agents: general-purpose, tester</tool_use_error>"]]);
  });
});
