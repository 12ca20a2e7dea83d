// The executor and the built-in tools through the official SDK (issue 3, "Done when").
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/tools/process.js';
import { collect, collectSettled, promptChannel, query, scriptedRun, toolResults } from '../support/sdk-run.js';
import { until } from '../support/wait.js';

const allow = async (_n: string, input: Record<string, unknown>) => ({ behavior: 'allow' as const, updatedInput: input });

describe('tools through the SDK', () => {
  it('4 Reads run in parallel and the exclusive Bash alone; frames in completion order, the model sees tool_use order', async () => {
    const run = scriptedRun({
      rules: [
        {
          when: { hasToolResults: false },
          reply: {
            content: [
              { type: 'tool_use', id: 'r1', name: 'Read', input: { file_path: '{{cwd}}/a.txt' } },
              { type: 'tool_use', id: 'r2', name: 'Read', input: { file_path: '{{cwd}}/b.txt' } },
              { type: 'tool_use', id: 'bash', name: 'Bash', input: { command: 'sleep 0.3; touch made.txt; echo done' } },
              { type: 'tool_use', id: 'r3', name: 'Read', input: { file_path: '{{cwd}}/c.txt' } },
              { type: 'tool_use', id: 'r4', name: 'Read', input: { file_path: '{{cwd}}/d.txt' } },
            ],
          },
        },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'All done.' }] } },
      ],
    });
    for (const f of ['a', 'b', 'c', 'd']) writeFileSync(join(run.cwd, `${f}.txt`), `${f}\n`);
    const msgs = await collect(query({ prompt: 'go', options: run.options({ canUseTool: allow }) }));
    // r1, r2 ran together before Bash; Bash ran alone; r3, r4 only after it (the barrier).
    const order = toolResults(msgs).map(([id]) => id);
    expect([[...order.slice(0, 2)].sort(), order[2], [...order.slice(3)].sort()]).toEqual([['r1', 'r2'], 'bash', ['r3', 'r4']]);
    expect(toolResults(msgs).find(([id]) => id === 'bash')).toEqual(['bash', false, 'done']);
    const sent = run.requests()[1]?.messages.at(-1);
    expect(Array.isArray(sent?.content) ? sent.content.map((b) => (b as { tool_use_id?: string }).tool_use_id) : []).toEqual(['r1', 'r2', 'bash', 'r3', 'r4']);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'All done.' });
  });

  it('results are reported in completion order, not tool_use order', async () => {
    const run = scriptedRun({
      rules: [
        {
          when: { hasToolResults: false },
          reply: {
            content: [
              { type: 'tool_use', id: 'slow', name: 'Bash', input: { command: 'sleep 0.4; echo slow' } },
              { type: 'tool_use', id: 'fast', name: 'Bash', input: { command: 'echo fast' } },
            ],
          },
        },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
      ],
    });
    const msgs = await collect(query({ prompt: 'go', options: run.options() }));
    expect(toolResults(msgs).map(([id]) => id)).toEqual(['fast', 'slow']);
    const sent = run.requests()[1]?.messages.at(-1);
    expect(Array.isArray(sent?.content) ? sent.content.map((b) => (b as { tool_use_id?: string }).tool_use_id) : []).toEqual(['slow', 'fast']);
  });

  it('a long Bash streams tool_progress frames with its output while it runs', async () => {
    const run = scriptedRun({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'long', name: 'Bash', input: { command: 'for i in 1 2 3 4; do echo line$i; [ $i = 4 ] || sleep 0.4; done' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
      ],
    });
    const msgs = await collect(query({ prompt: 'go', options: run.options({ canUseTool: allow }) }));
    const progress = msgs.filter((m) => m.type === 'tool_progress');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.every((p) => p.tool_use_id === 'long' && p.tool_name === 'Bash')).toBe(true);
    const streamed = progress.map((p) => String((p as unknown as { agentd_progress?: { output?: string } }).agentd_progress?.output ?? '')).join('');
    // The last line comes right before the exit: it still reaches the wire (read after the call returned).
    expect(streamed).toBe('line1\nline2\nline3\nline4\n');
    // Progress came before the result.
    const resultIndex = msgs.findIndex((m) => m.type === 'user' && JSON.stringify(m.message).includes('tool_result'));
    expect(msgs.indexOf(progress.at(-1) as (typeof msgs)[number])).toBeLessThan(resultIndex);
  });

  it('interrupt() during a long Bash kills its process group and ends the turn with one result per tool_use', async () => {
    const run = scriptedRun({
      rules: [
        {
          when: { hasToolResults: false },
          reply: {
            content: [
              { type: 'tool_use', id: 'long', name: 'Bash', input: { command: 'echo $$ > pgid.txt; (trap "" TERM; sleep 60) & sleep 60; wait' } },
              { type: 'tool_use', id: 'after', name: 'Bash', input: { command: 'echo never' } },
            ],
          },
        },
        { reply: { content: [{ type: 'text', text: 'back' }] } },
      ],
    });
    const input = promptChannel();
    input.push('start');
    const q = query({ prompt: input, options: run.options({ canUseTool: allow }) });
    let interruptedAt = 0;
    let resultAt = 0;
    // The interrupted turn's result is the last one: the CLI exits 1 (as Claude Code does) and the SDK throws.
    const { messages: msgs, error } = await collectSettled(q, async (m) => {
      if (m.type === 'tool_progress' && interruptedAt === 0) {
        interruptedAt = Date.now();
        await q.interrupt();
      }
      if (m.type === 'result') {
        resultAt ||= Date.now();
        input.close();
      }
    });
    expect(msgs.filter((m) => m.type === 'result')).toEqual([expect.objectContaining({ subtype: 'error_during_execution', terminal_reason: 'aborted_tools' })]);
    expect(error).toBe('Claude Code returned an error result: Interrupted by the user.');
    expect(toolResults(msgs).map(([id, err]) => [id, err])).toEqual([
      ['after', true],
      ['long', true],
    ]);
    // Well before the 60 s sleeps would end (a bound loose enough for a loaded machine).
    expect(resultAt - interruptedAt).toBeLessThan(10_000);
    const pgid = Number(readFileSync(join(run.cwd, 'pgid.txt'), 'utf8'));
    // SIGTERM, then SIGKILL for the child that ignores SIGTERM, within the 2 s grace.
    await until(() => !groupAlive(pgid), `process group ${pgid} to be gone`, 10_000);
  });

  it('a Bash `env` shows none of agentd’s credentials', async () => {
    const run = scriptedRun(
      {
        rules: [
          { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'env', name: 'Bash', input: { command: 'env' } }] } },
          { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
        ],
      },
      { env: { ANTHROPIC_API_KEY: 'sk-ant-secret-value-123456', ANTHROPIC_AUTH_TOKEN: 'tok-secret-value-654321', CLAUDE_CODE_OAUTH_TOKEN: 'oauth-secret-value-999' } },
    );
    const msgs = await collect(query({ prompt: 'go', options: run.options({ canUseTool: allow }) }));
    const out = toolResults(msgs)[0]?.[2] ?? '';
    expect(out).toContain('PATH=');
    for (const s of ['sk-ant-secret-value-123456', 'tok-secret-value-654321', 'oauth-secret-value-999', 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']) expect(out).not.toContain(s);
  });
});
