// A real Session (scripted model, fake tools) records through the store; reading the file back must give the
// conversation the session had in memory, and the official SDK must list and replay it.
import { getSessionMessages, listSessions } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Scenario } from '../../../src/model/scripted/scenario.js';
import { loadSession } from '../../../src/store/session-store.js';
import { fakeTool, type RunLog } from '../../support/fake-tools.js';
import { type SessionHarness, sessionHarness } from '../../support/session-harness.js';
import { type TempProject, openTest, tempProject, viaJson } from './support.js';

const SCENARIO: Scenario = {
  rules: [
    { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Done: {{lastToolResult}}' }] } },
    {
      when: { lastUserText: { regex: 'tools$' } },
      reply: {
        content: [
          { type: 'text', text: 'Working.' },
          { type: 'tool_use', id: 'toolu_slow', name: 'T', input: { ms: 30, safe: true } },
          { type: 'tool_use', id: 'toolu_fast', name: 'T', input: { ms: 10, safe: true } },
        ],
      },
    },
    { when: { lastUserText: { regex: 'long story$' } }, reply: { content: [{ type: 'text', text: 'aaaaaaaaaabbbbbbbbbb' }], chunkSize: 2, delays: { chunkMs: 10 } } },
    { when: { lastUserText: { regex: 'fail$' } }, reply: { error: { status: 400, type: 'invalid_request_error', message: 'bad request' } } },
    {
      when: { lastUserText: { regex: 'retry$' } },
      replies: [
        { content: [{ type: 'text', text: 'cut short' }, { type: 'text', text: 'never seen' }], disconnectAfterBlocks: 1 },
        { content: [{ type: 'text', text: 'second attempt' }] },
      ],
    },
  ],
  fallback: { content: [{ type: 'text', text: 'plain answer' }] },
};

let p: TempProject;
beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-05-06T07:08:09Z'), toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  p = tempProject();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  p.cleanup();
});

async function ask(h: SessionHarness, text: string): Promise<void> {
  const done = h.ask(text);
  await vi.runAllTimersAsync();
  await done;
}

describe('a recorded session read back', () => {
  it('equals the live conversation after tool turns, an interrupt, an API error and a retried stream', async () => {
    const opened = openTest(p, { usage: () => h.session.ledger.modelUsage() });
    const log: RunLog[] = [];
    const h: SessionHarness = sessionHarness({ scenario: SCENARIO, tools: [fakeTool('T', log)], recorder: opened.recorder });

    await ask(h, 'use the tools');
    const long = h.ask('tell a long story');
    await vi.advanceTimersByTimeAsync(35);
    h.session.interrupt({ cancelQueued: false });
    await vi.runAllTimersAsync();
    await long;
    await ask(h, 'now fail');
    await ask(h, 'please retry');
    await ask(h, 'and a last one');
    opened.recorder.close();

    // The interrupt is an error_during_execution; the API error a `success` with is_error (as Claude Code ends it).
    expect(h.results().map((r) => [r.kind, r.isError])).toEqual([['success', false], ['error_during_execution', true], ['success', true], ['success', false], ['success', false]]);
    const loaded = loadSession(p.root, p.cwd, opened.sessionId);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.tailRepairs).toEqual([]);
    expect(loaded.history).toEqual(viaJson(h.session.history));
    // Not vacuous: the conversation has every kind of turn in it.
    expect(loaded.history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(loaded.modelUsage).toEqual(h.session.ledger.modelUsage());

    const listed = await listSessions({ dir: p.cwd });
    expect(listed.map((s) => ({ id: s.sessionId, summary: s.summary, firstPrompt: s.firstPrompt, cwd: s.cwd }))).toEqual([
      { id: opened.sessionId, summary: 'and a last one', firstPrompt: 'use the tools', cwd: p.cwd },
    ]);
    const replay = await getSessionMessages(opened.sessionId, { dir: p.cwd });
    const shown = replay.map((m) => `${m.type}:${summarize(m.message)}`);
    expect(shown).toEqual([
      'user:use the tools',
      'assistant:text Working.',
      'assistant:tool_use toolu_slow',
      'assistant:tool_use toolu_fast',
      'user:tool_result toolu_fast',
      'user:tool_result toolu_slow',
      'assistant:text Done: ok toolu_slow\nok toolu_fast',
      'user:tell a long story',
      'assistant:text aaaaaa',
      'user:text [Request interrupted by user]',
      'user:now fail',
      'assistant:text API Error: 400 bad request',
      'user:please retry',
      'assistant:text second attempt',
      'user:and a last one',
      'assistant:text plain answer',
    ]);
  });
});

function summarize(message: unknown): string {
  if (typeof message !== 'object' || message === null || !('content' in message)) return '?';
  const c = message.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '?';
  return c
    .map((b: Record<string, unknown>) => `${String(b['type'])} ${String(b['text'] ?? b['id'] ?? b['tool_use_id'] ?? '')}`)
    .join(' | ');
}
