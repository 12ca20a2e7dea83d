// Subagent tasks through the official SDK (issue 13): the system/task_* frames of a foreground Agent call in
// Claude Code 2.1.330's order, a background agent (run_in_background) whose end reaches the model as a
// task-notification turn (also after the host closed its input), stopTask(), and the SubagentStart /
// SubagentStop hooks.
import { describe, expect, it } from 'vitest';
import type { HookInput, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collect, promptChannel, query, scriptedRun, toolResults } from '../support/sdk-run.js';
import { until } from '../support/wait.js';

const allow = async (_n: string, input: Record<string, unknown>) => ({ behavior: 'allow' as const, updatedInput: input });
const TESTER = { description: 'Tests things', prompt: 'You are the tester agent.', tools: ['Read'] };
const ID = expect.any(String) as unknown as string;

/** Every message but session-state and init frames, as `type[/subtype][@parent]`. */
function kinds(msgs: readonly SDKMessage[]): string[] {
  return msgs
    .filter((m) => !(m.type === 'system' && (m.subtype === 'session_state_changed' || m.subtype === 'init')))
    .map((m) => `${m.type}${'subtype' in m ? `/${m.subtype}` : ''}${(m.type === 'assistant' || m.type === 'user') && m.parent_tool_use_id ? `@${m.parent_tool_use_id}` : ''}`);
}

function system(msgs: readonly SDKMessage[], subtype: string): unknown[] {
  return msgs.filter((m) => m.type === 'system' && m.subtype === subtype);
}

function lastUserText(req: { messages: Array<{ role: string; content: unknown }> }): string {
  const last = req.messages.at(-1);
  const c = last?.content;
  if (typeof c === 'string') return c;
  return Array.isArray(c) ? c.map((b: { type: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : '')).join('') : '';
}

describe('subagent tasks through the SDK', () => {
  it('a foreground Agent call: task_started after its tool_use, task_progress per subagent tool call, task_notification before its result', async () => {
    const run = scriptedRun({
      rules: [
        { when: { system: 'tester agent', hasToolResults: false }, reply: { content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_sub_read', name: 'Read', input: { file_path: '{{cwd}}/answer.txt' } }] } },
        { when: { system: 'tester agent', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Tester found 42.' }] } },
        { when: { lastUserText: 'delegate', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_agent1', name: 'Agent', input: { description: 'Find the answer', prompt: 'Find the answer please', subagent_type: 'tester' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Outer done.' }] } },
      ],
    });
    writeFileSync(join(run.cwd, 'answer.txt'), '42\n');
    const msgs = await collect(query({ prompt: 'delegate this', options: run.options({ agents: { tester: TESTER }, canUseTool: allow }) }));
    expect(kinds(msgs)).toEqual([
      'assistant',
      'system/task_started',
      'user@toolu_agent1',
      'system/task_progress',
      'assistant@toolu_agent1',
      'user@toolu_agent1',
      'system/task_updated',
      'system/task_notification',
      'user',
      'assistant',
      'result/success',
    ]);
    const [started] = system(msgs, 'task_started') as Array<{ task_id: string; session_id: string }>;
    const taskId = started?.task_id ?? '';
    const sid = started?.session_id ?? '';
    expect(taskId).toMatch(/^a[0-9a-f]{16}$/);
    const outputFile = expect.stringMatching(new RegExp(`/subagents/agent-${taskId}\\.jsonl$`)) as unknown as string;
    expect(system(msgs, 'task_started')).toEqual([
      { type: 'system', subtype: 'task_started', task_id: taskId, tool_use_id: 'toolu_agent1', description: 'Find the answer', subagent_type: 'tester', is_backgrounded: false, spawn_depth: 1, task_type: 'local_agent', prompt: 'Find the answer please', uuid: ID, session_id: sid },
    ]);
    expect(system(msgs, 'task_progress')).toEqual([
      { type: 'system', subtype: 'task_progress', task_id: taskId, tool_use_id: 'toolu_agent1', description: 'Reading answer.txt', subagent_type: 'tester', usage: { total_tokens: expect.any(Number), tool_uses: 1, duration_ms: expect.any(Number) }, last_tool_name: 'Read', uuid: ID, session_id: sid },
    ]);
    expect(system(msgs, 'task_updated')).toEqual([{ type: 'system', subtype: 'task_updated', task_id: taskId, patch: { status: 'completed', end_time: expect.any(Number) }, uuid: ID, session_id: sid }]);
    expect(system(msgs, 'task_notification')).toEqual([
      {
        type: 'system',
        subtype: 'task_notification',
        task_id: taskId,
        tool_use_id: 'toolu_agent1',
        status: 'completed',
        output_file: outputFile,
        summary: 'Tester found 42.',
        usage: { total_tokens: expect.any(Number), tool_uses: 1, duration_ms: expect.any(Number) },
        uuid: ID,
        session_id: sid,
      },
    ]);
    expect(toolResults(msgs).at(-1)).toEqual(['toolu_agent1', false, 'Tester found 42.']);
  });

  it('forwardSubagentText forwards the subagent text blocks too', async () => {
    const run = scriptedRun({
      rules: [
        { when: { system: 'tester agent' }, reply: { content: [{ type: 'text', text: 'Sub text.' }] } },
        { when: { lastUserText: 'delegate', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_agent1', name: 'Agent', input: { description: 'd', prompt: 'p', subagent_type: 'tester' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Outer done.' }] } },
      ],
    });
    const msgs = await collect(query({ prompt: 'delegate this', options: run.options({ agents: { tester: TESTER }, canUseTool: allow, forwardSubagentText: true }) }));
    expect(kinds(msgs)).toEqual(['assistant', 'system/task_started', 'user@toolu_agent1', 'assistant@toolu_agent1', 'system/task_updated', 'system/task_notification', 'user', 'assistant', 'result/success']);
  });

  it('a background agent: the call answers at once, the turn ends; its end is a notification frame and a turn of its own, even after the input closed', async () => {
    const run = scriptedRun({
      rules: [
        { when: { lastUserText: 'task-notification' }, reply: { content: [{ type: 'text', text: 'The agent reported.' }] } },
        { when: { system: 'tester agent' }, reply: { content: [{ type: 'text', text: 'Background report.' }], delays: { firstTokenMs: 2000 } } },
        { when: { lastUserText: 'delegate', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_bg', name: 'Agent', input: { description: 'Scan', prompt: 'Scan it', subagent_type: 'tester', run_in_background: true } }] } },
        { when: { lastUserText: 'delegate', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Started it.' }] } },
      ],
    });
    const channel = promptChannel();
    channel.push('delegate in the background');
    const msgs = await collect(query({ prompt: channel, options: run.options({ agents: { tester: TESTER }, canUseTool: allow }) }), (m) => {
      // The host closes its input after the first result: the daemon still waits for the agent and its turn.
      if (m.type === 'result') channel.close();
    });
    expect(kinds(msgs)).toEqual([
      'assistant',
      'system/background_tasks_changed',
      'system/task_started',
      'user',
      'assistant',
      'result/success',
      'system/task_updated',
      'system/task_notification',
      'system/background_tasks_changed',
      'assistant',
      'result/success',
    ]);
    const started = system(msgs, 'task_started')[0] as { task_id: string; session_id: string };
    const taskId = started.task_id;
    expect(system(msgs, 'background_tasks_changed')).toEqual([
      { type: 'system', subtype: 'background_tasks_changed', tasks: [{ task_id: taskId, task_type: 'local_agent', subagent_type: 'tester', description: 'Scan' }], uuid: ID, session_id: started.session_id },
      { type: 'system', subtype: 'background_tasks_changed', tasks: [], uuid: ID, session_id: started.session_id },
    ]);
    expect(system(msgs, 'task_notification')).toEqual([
      {
        type: 'system',
        subtype: 'task_notification',
        task_id: taskId,
        tool_use_id: 'toolu_bg',
        status: 'completed',
        output_file: expect.stringMatching(/\/subagents\/agent-a[0-9a-f]{16}\.jsonl$/),
        summary: 'Background report.',
        summary_is_report: true,
        usage: { total_tokens: expect.any(Number), tool_uses: 0, duration_ms: expect.any(Number) },
        uuid: ID,
        session_id: started.session_id,
      },
    ]);
    const launched = toolResults(msgs)[0];
    expect(launched?.[0]).toBe('toolu_bg');
    expect(launched?.[2]).toContain(`Async agent launched successfully.`);
    expect(launched?.[2]).toContain(`agentId: ${taskId} (internal ID - do not mention to user.)`);
    expect(msgs.filter((m) => m.type === 'result').map((m) => (m.type === 'result' && m.subtype === 'success' ? m.result : m.subtype))).toEqual(['Started it.', 'The agent reported.']);
    const notified = run.requests().find((r) => lastUserText(r).includes('<task-notification>'));
    expect(lastUserText(notified ?? { messages: [] })).toContain(`<task-id>${taskId}</task-id>\n<tool-use-id>toolu_bg</tool-use-id>`);
    expect(lastUserText(notified ?? { messages: [] })).toContain('<status>completed</status>\n<summary>Agent "Scan" finished</summary>\n<result>Background report.</result>');
  });

  it('stopTask(): answered, the task reported stopped, the model told it was killed', async () => {
    const run = scriptedRun({
      rules: [
        { when: { lastUserText: 'task-notification' }, reply: { content: [{ type: 'text', text: 'It was stopped.' }] } },
        { when: { system: 'tester agent' }, reply: { content: [{ type: 'text', text: 'too late' }], delays: { firstTokenMs: 30_000 } } },
        { when: { lastUserText: 'delegate', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_bg', name: 'Agent', input: { description: 'Slow scan', prompt: 'Scan it', subagent_type: 'tester', run_in_background: true } }] } },
        { when: { lastUserText: 'delegate', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Started it.' }] } },
      ],
    });
    const channel = promptChannel();
    channel.push('delegate in the background');
    const msgs: SDKMessage[] = [];
    const q = query({ prompt: channel, options: run.options({ agents: { tester: TESTER }, canUseTool: allow }) });
    const started = Date.now();
    let results = 0;
    const done = collect(q, async (m) => {
      msgs.push(m);
      if (m.type === 'result' && ++results === 2) channel.close();
    });
    await until(() => results === 1, 'the first result');
    const taskId = (system(msgs, 'task_started')[0] as { task_id: string }).task_id;
    await q.stopTask(taskId);
    await done;
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(system(msgs, 'task_notification')).toEqual([
      { type: 'system', subtype: 'task_notification', task_id: taskId, tool_use_id: 'toolu_bg', status: 'stopped', output_file: expect.stringMatching(/agent-a[0-9a-f]{16}\.jsonl$/), summary: 'Slow scan', uuid: ID, session_id: ID },
    ]);
    const notified = run.requests().find((r) => lastUserText(r).includes('<task-notification>'));
    expect(lastUserText(notified ?? { messages: [] })).toContain('<status>killed</status>\n<summary>Agent "Slow scan" was stopped by user</summary>\n</task-notification>');
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'It was stopped.' });
  });

  it('SubagentStart adds its context to the subagent prompt; SubagentStop gets the agent id, type, transcript and last message', async () => {
    const run = scriptedRun({
      rules: [
        { when: { system: 'tester agent' }, reply: { content: [{ type: 'text', text: 'Sub done.' }] } },
        { when: { lastUserText: 'delegate', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_agent1', name: 'Agent', input: { description: 'd', prompt: 'Do the sub task', subagent_type: 'tester' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Outer done.' }] } },
      ],
    });
    const inputs: HookInput[] = [];
    const msgs = await collect(
      query({
        prompt: 'delegate this',
        options: run.options({
          agents: { tester: TESTER },
          canUseTool: allow,
          hooks: {
            SubagentStart: [{ hooks: [async (i) => (inputs.push(i), { hookSpecificOutput: { hookEventName: 'SubagentStart' as const, additionalContext: 'Remember the codeword.' } })] }],
            SubagentStop: [{ matcher: 'tester', hooks: [async (i) => (inputs.push(i), {})] }],
          },
        }),
      }),
    );
    const taskId = (system(msgs, 'task_started')[0] as { task_id: string }).task_id;
    const base = { session_id: ID, transcript_path: ID, cwd: ID, permission_mode: 'default' };
    expect(inputs).toEqual([
      { ...base, hook_event_name: 'SubagentStart', agent_id: taskId, agent_type: 'tester' },
      { ...base, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: taskId, agent_transcript_path: expect.stringMatching(new RegExp(`/subagents/agent-${taskId}\\.jsonl$`)), agent_type: 'tester', last_assistant_message: 'Sub done.' },
    ]);
    expect(run.requests()[1]?.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>\nSubagentStart hook additional context: Remember the codeword.\n</system-reminder>' },
        { type: 'text', text: 'Do the sub task', cache_control: { type: 'ephemeral' } },
      ],
    });
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'Outer done.' });
  });

  it('--agent (the SDK agent option): the main thread runs with the agent prompt, only its tools and its model', async () => {
    const run = scriptedRun({ rules: [{ reply: { content: [{ type: 'text', text: 'As the tester.' }] } }] });
    const msgs = await collect(query({ prompt: 'hello', options: run.options({ agents: { tester: { ...TESTER, model: 'haiku' } }, agent: 'tester', canUseTool: allow }) }));
    const req = run.requests()[0];
    expect(req?.system?.[0]?.text).toBe('You are the tester agent.');
    expect((req?.tools ?? []).map((t) => t.name)).toEqual(['Read']);
    expect(req?.model).toBe('claude-haiku-5-5');
    expect(msgs.find((m) => m.type === 'system' && m.subtype === 'init')).toMatchObject({ tools: ['Read'], model: 'claude-haiku-5-5' });
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'As the tester.' });
  });
});
