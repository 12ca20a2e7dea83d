// Compaction through the official SDK (issue 13, "Done when"): /compact and an automatic compaction each produce
// the summary request, compact_boundary, and a next request that carries the summary instead of the old turns
// (issue 21: and, at the start of a turn, the new prompt verbatim after it; the summary request retried as a turn's);
// resume after a compaction continues from the summary; a long session with large tool results never fails
// with a context error.
import type { HookCallbackMatcher, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiMessage, ModelRequest } from '../../src/model/types.js';
import { continuationText, summaryInstruction } from '../../src/compaction/prompt.js';
import { withoutContext } from '../support/context.js';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';
import { startLoopbackServer } from '../support/loopback-server.js';
import { collect, promptChannel, query, scriptedRun } from '../support/sdk-run.js';

const SUMMARY_REQ = { lastUserText: 'your summary will replace' };
const text = (m: ApiMessage | undefined): string => (m === undefined ? '' : typeof m.content === 'string' ? m.content : m.content.map((b) => ('text' in b ? String(b.text) : `[${b.type}]`)).join('|'));
const isSummaryRequest = (r: ModelRequest): boolean => text(r.messages.at(-1)).includes('your summary will replace');

/** Runs prompts one after another in one session (each waits for the previous result). */
async function conversation(prompts: string[], options: Parameters<typeof query>[0]['options']): Promise<SDKMessage[]> {
  const ch = promptChannel();
  let i = 0;
  ch.push(prompts[i++] as string);
  return collect(query({ prompt: ch, options }), (m) => {
    if (m.type !== 'result') return;
    if (i < prompts.length) ch.push(prompts[i++] as string);
    else ch.close();
  });
}

const compactFrames = (msgs: SDKMessage[]) =>
  msgs.flatMap((m) => {
    if (m.type !== 'system') return [];
    if (m.subtype === 'compact_boundary') return [`boundary:${m.compact_metadata.trigger}`];
    if (m.subtype === 'status' && (m.status === 'compacting' || m.compact_result)) return [`status:${m.status ?? m.compact_result}`];
    return [];
  });

describe('compaction through the SDK', () => {
  it('/compact: hooks, frames, a result with no model turn, and the next request starts from the summary; resume continues from it', async () => {
    const run = scriptedRun({
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<analysis>x</analysis><summary>THE-SUMMARY</summary>' }] } },
        { reply: { content: [{ type: 'text', text: 'You said: {{lastUserText}}' }] } },
      ],
    });
    const hookInputs: unknown[] = [];
    const record: HookCallbackMatcher[] = [{ hooks: [async (input) => (hookInputs.push(input), {})] }];
    const msgs = await conversation(['remember PELICAN', '/compact keep the bird', 'what now?'], run.options({ hooks: { PreCompact: record, PostCompact: record } }));
    const results = msgs.filter((m) => m.type === 'result');
    expect(results.map((r) => [r.subtype, r.num_turns, r.subtype === 'success' ? r.result : ''])).toEqual([
      ['success', 1, 'You said: remember PELICAN'],
      ['success', 0, ''],
      ['success', 1, expect.stringContaining('You said:') as string],
    ]);
    expect(compactFrames(msgs)).toEqual(['status:compacting', 'status:success', 'boundary:manual']);
    expect(hookInputs).toEqual([
      expect.objectContaining({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'keep the bird' }),
      expect.objectContaining({ hook_event_name: 'PostCompact', trigger: 'manual', compact_summary: 'THE-SUMMARY' }),
    ]);
    const reqs = run.requests();
    expect(reqs.map(isSummaryRequest)).toEqual([false, true, false]);
    expect(text(reqs[1]?.messages.at(-1))).toContain('keep the bird');
    expect(reqs[2]?.messages).toHaveLength(1);
    expect(text(reqs[2]?.messages[0])).toContain('Summary:\nTHE-SUMMARY\n');
    expect(JSON.stringify(reqs[2]?.messages)).not.toContain('remember PELICAN');

    const sessionId = (results[0] as { session_id: string }).session_id;
    await collect(query({ prompt: 'and after resume?', options: run.options({ resume: sessionId }) }));
    const resumed = run.requests()[3];
    expect(text(resumed?.messages[0])).toContain('Summary:\nTHE-SUMMARY\n');
    expect(JSON.stringify(resumed?.messages)).not.toContain('remember PELICAN');
    expect(JSON.stringify(resumed?.messages)).toContain('what now?');
  });

  it('automatic: usage near the window compacts before the next request, in the same turn', async () => {
    const run = scriptedRun({
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<summary>AUTO-SUMMARY</summary>' }] } },
        { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'big answer' }], usage: { input_tokens: 185_000, output_tokens: 100 } } },
        { reply: { content: [{ type: 'text', text: 'small answer' }] } },
      ],
    });
    const msgs = await conversation(['first', 'second'], run.options({ model: 'claude-sonnet-4-5' }));
    expect(compactFrames(msgs)).toEqual(['status:compacting', 'status:success', 'boundary:auto']);
    const boundary = msgs.find((m) => m.type === 'system' && m.subtype === 'compact_boundary');
    expect(boundary).toMatchObject({ compact_metadata: { trigger: 'auto', pre_tokens: expect.any(Number) as number } });
    expect(msgs.filter((m) => m.type === 'result').map((r) => (r.subtype === 'success' ? r.result : r.subtype))).toEqual(['big answer', 'small answer']);
    const reqs = run.requests();
    expect(reqs.map(isSummaryRequest)).toEqual([false, true, false]);
    expect(text(reqs[2]?.messages[0])).toContain('AUTO-SUMMARY');
  });

  it('automatic, at the start of a turn, over the real client: the prompt follows the summary verbatim; a 529 on the summary request is retried with api_retry', async () => {
    // The loopback Messages server (agentd's Anthropic client, its retry path) answers the first summary request
    // with 529, the second with the summary.
    const server = await startLoopbackServer({
      rules: [
        { when: SUMMARY_REQ, replies: [{ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, { content: [{ type: 'text', text: '<analysis>a</analysis><summary>AUTO-SUMMARY</summary>' }] }] },
        { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'big answer' }], usage: { input_tokens: 185_000, output_tokens: 100 } } },
        { reply: { content: [{ type: 'text', text: 'small answer' }] } },
      ],
    });
    try {
      const env = baseEnv({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, AGENTD_RETRY_BASE_DELAY_MS: '5' });
      const cwd = tempDir('agentd-ac-');
      const msgs = await conversation(['first', 'second: the exact words'], { pathToClaudeCodeExecutable: AGENTD, cwd, env, model: 'claude-sonnet-4-5' });
      expect(msgs.filter((m) => m.type === 'result').map((r) => [r.subtype, r.is_error, r.subtype === 'success' ? r.result : ''])).toEqual([
        ['success', false, 'big answer'],
        ['success', false, 'small answer'],
      ]);
      const reqs = server.requests.map((r) => r.body);
      expect(reqs.map(isSummaryRequest)).toEqual([false, true, true, false]);
      // The summary request: the history before the new prompt, then the instruction (both attempts the same).
      expect(withoutContext(reqs[1]?.messages ?? [])).toEqual([
        { role: 'user', content: 'first' },
        { role: 'assistant', content: [{ type: 'text', text: 'big answer' }] },
        { role: 'user', content: summaryInstruction(undefined) },
      ]);
      expect(reqs[2]?.messages).toEqual(reqs[1]?.messages);
      const retries = msgs.filter((m) => m.type === 'system' && m.subtype === 'api_retry');
      expect(retries.map((m) => m.type === 'system' && m.subtype === 'api_retry' && [m.attempt, m.error_status, m.error])).toEqual([[1, 529, 'overloaded']]);
      // The frames Claude Code sends, in its order, and the summary as the synthetic user message.
      expect(compactFrames(msgs)).toEqual(['status:compacting', 'status:success', 'boundary:auto']);
      const summary = msgs.find((m) => m.type === 'user' && m.isSynthetic === true && typeof m.message.content === 'string' && m.message.content.includes('AUTO-SUMMARY'));
      const summaryText = summary?.type === 'user' ? String(summary.message.content) : '';
      const transcript = /kept in (\S+\.jsonl)/.exec(summaryText)?.[1];
      expect(summaryText).toBe(continuationText('AUTO-SUMMARY', transcript, 'prompt'));
      // The request after it: the summary, then the prompt exactly as sent, and nothing else of the earlier turn.
      expect(withoutContext(reqs[3]?.messages ?? [])).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: summaryText },
            { type: 'text', text: 'second: the exact words', cache_control: { type: 'ephemeral' } },
          ],
        },
      ]);
      // The transcript records it in that order: a resume continues from the summary and the prompt after it.
      const sessionId = (msgs.find((m) => m.type === 'result') as { session_id: string }).session_id;
      await collect(query({ prompt: 'third', options: { pathToClaudeCodeExecutable: AGENTD, cwd, env, model: 'claude-sonnet-4-5', resume: sessionId } }));
      expect(withoutContext(server.requests[4]?.body.messages ?? [])).toEqual([
        { role: 'user', content: [{ type: 'text', text: summaryText }, { type: 'text', text: 'second: the exact words' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'small answer' }] },
        { role: 'user', content: [{ type: 'text', text: 'third', cache_control: { type: 'ephemeral' } }] },
      ]);
    } finally {
      await server.close();
    }
  });

  it('300 model rounds with large tool results never fail with a context error', async () => {
    const run = scriptedRun({
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<summary>Reading big.txt again and again.</summary>' }] } },
        { times: 299, reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: '{{cwd}}/big.txt' } }] } },
      ],
      fallback: { content: [{ type: 'text', text: 'done reading' }] },
    });
    writeFileSync(join(run.cwd, 'big.txt'), `${'x'.repeat(90)}\n`.repeat(400)); // ~36 KB, ~10k tokens a read
    const msgs = await collect(query({ prompt: 'read it 299 times', options: run.options({ model: 'claude-sonnet-4-5', permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true }) }));
    const result = msgs.at(-1);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'done reading', num_turns: 300 });
    const reqs = run.requests();
    const summaries = reqs.filter(isSummaryRequest).length;
    expect(summaries).toBeGreaterThanOrEqual(10);
    expect(compactFrames(msgs).filter((f) => f === 'boundary:auto')).toHaveLength(summaries);
    // No request the model was sent exceeded the window (the scripted model counts ~4 characters a token).
    const biggest = Math.max(...reqs.map((r) => JSON.stringify(r.messages).length / 4));
    expect(biggest).toBeLessThan(200_000);
  }, 120_000);
});
