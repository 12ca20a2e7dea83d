// Sessions and limits through the official SDK (issue 5, "Done when"): resume by id in a new process (the model
// sees the earlier turns), listSessions() lists agentd's sessions, maxBudgetUsd and outputFormat work.
import { getSessionMessages, listSessions } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collect, collectSettled, query, scriptedRun } from '../support/sdk-run.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('sessions through the SDK', () => {
  it('resumes a session by id in a new process; the model sees the earlier turns; listSessions lists it', async () => {
    const run = scriptedRun({ rules: [{ reply: { content: [{ type: 'text', text: 'You said: {{lastUserText}}' }] } }] });
    const first = await collect(query({ prompt: 'remember the word PELICAN', options: run.options() }));
    const sessionId = (first.at(-1) as { session_id: string }).session_id;
    expect(first.at(-1)).toMatchObject({ subtype: 'success', result: 'You said: remember the word PELICAN' });

    const second = await collect(query({ prompt: 'what was the word?', options: run.options({ resume: sessionId }) }));
    expect(second.at(-1)).toMatchObject({ subtype: 'success', session_id: sessionId });
    const req = run.requests()[1];
    expect(req?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(req?.messages)).toContain('PELICAN');

    vi.stubEnv('CLAUDE_CONFIG_DIR', run.env['CLAUDE_CONFIG_DIR']);
    const sessions = await listSessions({ dir: run.cwd });
    expect(sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    expect(sessions[0]).toMatchObject({ cwd: run.cwd });
    const messages = await getSessionMessages(sessionId, { dir: run.cwd });
    expect(messages.map((m) => m.type)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('an unknown session id is a typed start-up error, never a silent fresh session', async () => {
    const run = scriptedRun({ rules: [{ reply: { content: [{ type: 'text', text: 'hi' }] } }] });
    await expect(collect(query({ prompt: 'x', options: run.options({ resume: '7f0c1a1e-1111-4222-8333-444455556666' }) }))).rejects.toThrow(/not found|No session|session/i);
    expect(run.requests()).toEqual([]);
  });

  it('maxBudgetUsd stops before the model call that would go over', async () => {
    const run = scriptedRun({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*' } }], usage: { input_tokens: 1_000_000, output_tokens: 0 } } },
        { reply: { content: [{ type: 'text', text: 'never' }] } },
      ],
    });
    // The last result is an error: the CLI exits 1 at stdin EOF (as Claude Code does) and the SDK throws with it.
    const { messages: msgs, error } = await collectSettled(query({ prompt: 'spend', options: run.options({ maxBudgetUsd: 1, model: 'claude-sonnet-4-5' }) }));
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'error_max_budget_usd', is_error: true, total_cost_usd: 3, num_turns: 1 });
    expect(error).toBe('Claude Code returned an error result: Reached the maximum budget ($1); spent $3.000000.');
    expect(run.requests()).toHaveLength(1);
  });

  it('outputFormat (JSON schema) yields structured_output', async () => {
    const run = scriptedRun({
      rules: [{ reply: { content: [{ type: 'tool_use', name: 'StructuredOutput', input: { city: 'Lisbon', population: 545000 } }] } }],
    });
    const schema = { type: 'object', properties: { city: { type: 'string' }, population: { type: 'integer' } }, required: ['city', 'population'] };
    const msgs = await collect(query({ prompt: 'a city please', options: run.options({ outputFormat: { type: 'json_schema', schema } }) }));
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success', structured_output: { city: 'Lisbon', population: 545000 } });
    const so = run.requests()[0]?.tools?.find((t) => t.name === 'StructuredOutput');
    expect(so && 'input_schema' in so ? so.input_schema : undefined).toEqual(schema);
  });
});
