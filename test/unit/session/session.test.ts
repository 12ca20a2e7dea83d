import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeTool, type RunLog } from '../../support/fake-tools.js';
import { createStructuredOutputTool } from '../../../src/tools/builtin/structured-output.js';
import { kinds, sessionHarness } from '../../support/session-harness.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

const TOOL_SCENARIO = {
  rules: [
    {
      when: { hasToolResults: false },
      reply: {
        content: [
          { type: 'text' as const, text: 'Working.' },
          { type: 'tool_use' as const, id: 'toolu_a', name: 'T', input: { ms: 30, safe: true } },
          { type: 'tool_use' as const, id: 'toolu_b', name: 'T', input: { ms: 10, safe: true } },
        ],
      },
    },
    { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'Done: {{lastToolResult}}' }] } },
  ],
};

describe('session turns', () => {
  it('runs a tool turn: blocks, results in completion order, model sees them in tool_use order', async () => {
    const log: RunLog[] = [];
    const h = sessionHarness({ scenario: TOOL_SCENARIO, tools: [fakeTool('T', log)] });
    const done = h.ask('go');
    await vi.runAllTimersAsync();
    const r = await done;
    expect(kinds(h.events)).toEqual([
      'state:running',
      'turn_started',
      'model_request',
      'assistant:text',
      'assistant:tool_use:toolu_a',
      'assistant:tool_use:toolu_b',
      'result:toolu_b:success',
      'result:toolu_a:success',
      'model_request',
      'assistant:text',
      'turn_result:success',
      'state:idle',
    ]);
    expect(r).toMatchObject({ kind: 'success', resultText: 'Done: ok toolu_a\nok toolu_b', numTurns: 2, stopReason: 'end_turn', terminalReason: 'completed' });
    const second = h.requests[1];
    expect(second?.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: 'ok toolu_a' },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: 'ok toolu_b', cache_control: { type: 'ephemeral' } },
      ],
    });
  });

  it('keeps the conversation across turns and merges a prompt after an interrupt marker', async () => {
    const h = sessionHarness({
      scenario: {
        rules: [
          { when: { lastUserText: 'long' }, reply: { content: [{ type: 'text', text: 'aaaaaaaaaabbbbbbbbbb' }], chunkSize: 2, delays: { chunkMs: 10 } } },
          { reply: { content: [{ type: 'text', text: 'short' }] } },
        ],
      },
      emitStreamEvents: true,
    });
    const first = h.ask('long story');
    await vi.advanceTimersByTimeAsync(35);
    h.session.interrupt({ cancelQueued: false });
    await vi.runAllTimersAsync();
    expect(await first).toMatchObject({ kind: 'error_during_execution', isError: true, terminalReason: 'aborted_streaming', errors: ['Interrupted by the user.'], error: { category: 'interrupted', retryable: true } });
    const tail = kinds(h.events).slice(-8);
    expect(tail).toEqual([
      'stream:content_block_delta',
      'assistant:text:aborted',
      'stream:content_block_stop',
      'stream:message_delta',
      'stream:message_stop',
      'user_text:[Request interrupted by user]',
      'turn_result:error_during_execution',
      'state:idle',
    ]);
    const second = h.ask('next');
    await vi.runAllTimersAsync();
    expect(await second).toMatchObject({ kind: 'success', resultText: 'short' });
    // A custom system prompt: the environment goes before the first prompt (as Claude Code sends it).
    const environment = `<system-reminder>\n# Environment\n- Working directory: /w\n- Platform: ${process.platform}\n- Today's date: 1970-01-01\n- Model: claude-test\n</system-reminder>`;
    expect(h.requests[1]?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: environment }, { type: 'text', text: 'long story' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'aaaaaa' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: '[Request interrupted by user]' },
          { type: 'text', text: 'next', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('interrupt during tools: one result per tool_use, marker, aborted_tools', async () => {
    const log: RunLog[] = [];
    const h = sessionHarness({
      scenario: {
        rules: [
          {
            reply: {
              content: [
                { type: 'tool_use', id: 't1', name: 'T', input: { ms: 1000 } },
                { type: 'tool_use', id: 't2', name: 'T', input: { ms: 1000 } },
              ],
            },
          },
        ],
      },
      tools: [fakeTool('T', log)],
    });
    const r = h.ask('go');
    await vi.advanceTimersByTimeAsync(100);
    h.session.interrupt({ cancelQueued: false });
    await vi.runAllTimersAsync();
    expect(await r).toMatchObject({ kind: 'error_during_execution', terminalReason: 'aborted_tools', stopReason: 'tool_use' });
    // Queued t2 is cancelled synchronously; running t1's result follows (completion order).
    expect(kinds(h.events).filter((k) => k.startsWith('result:') || k.startsWith('user_text'))).toEqual([
      'result:t2:cancelled',
      'result:t1:cancelled',
      'user_text:[Request interrupted by user for tool use]',
    ]);
  });

  it('retries 529 twice with api_retry events, then succeeds with one result', async () => {
    const h = sessionHarness({
      scenario: {
        rules: [
          {
            replies: [
              { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
              { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
              { content: [{ type: 'text', text: 'Finally.' }] },
            ],
          },
        ],
      },
    });
    const r = h.ask('hi');
    await vi.runAllTimersAsync();
    expect(await r).toMatchObject({ kind: 'success', resultText: 'Finally.' });
    expect(h.events.filter((e) => e.type === 'api_retry')).toEqual([
      { type: 'api_retry', attempt: 1, maxRetries: 10, delayMs: 500, status: 529, error: 'overloaded' },
      { type: 'api_retry', attempt: 2, maxRetries: 10, delayMs: 1000, status: 529, error: 'overloaded' },
    ]);
    expect(h.results()).toHaveLength(1);
  });

  it('honours retry-after', async () => {
    const h = sessionHarness({
      scenario: { rules: [{ replies: [{ error: { status: 429, message: 'slow down', retryAfter: 2 } }, { content: [{ type: 'text', text: 'ok' }] }] }] },
    });
    const r = h.ask('hi');
    await vi.runAllTimersAsync();
    await r;
    expect(h.events.find((e) => e.type === 'api_retry')).toMatchObject({ delayMs: 2000, status: 429, error: 'rate_limit' });
  });

  it('a retry-after beyond the 60 s bound ends the turn at once, naming the wait (an hourly quota is not retried ten times)', async () => {
    const h = sessionHarness({
      scenario: { rules: [{ reply: { error: { status: 429, type: 'rate_limit_error', message: 'hourly quota used up', retryAfter: 3600 } } }] },
    });
    const r = h.ask('hi');
    await vi.runAllTimersAsync();
    const result = await r;
    expect(h.requests).toHaveLength(1);
    expect(h.events.filter((e) => e.type === 'api_retry')).toEqual([]);
    const message = 'hourly quota used up (the API asks to retry after 3600 s, at 1970-01-01T01:00:00.000Z; a turn waits for at most 60 s)';
    expect([result.isError, result.error]).toEqual([
      true,
      { category: 'rate_limit', retryable: true, status: 429, resetsAt: '1970-01-01T01:00:00.000Z', message: `API Error: Request rejected (429) · ${message}` },
    ]);
  });

  it('a retry-after of exactly the bound is still waited for', async () => {
    const h = sessionHarness({
      scenario: { rules: [{ replies: [{ error: { status: 429, message: 'slow down', retryAfter: 60 } }, { content: [{ type: 'text', text: 'ok' }] }] }] },
    });
    const r = h.ask('hi');
    await vi.runAllTimersAsync();
    expect(await r).toMatchObject({ kind: 'success', resultText: 'ok' });
    expect(h.events.filter((e) => e.type === 'api_retry')).toEqual([{ type: 'api_retry', attempt: 1, maxRetries: 10, delayMs: 60_000, status: 429, error: 'rate_limit' }]);
  });

  it('a stream cut mid-tool_use is retried; the broken attempt leaves no result and no orphan', async () => {
    const log: RunLog[] = [];
    const h = sessionHarness({
      scenario: {
        rules: [
          {
            when: { hasToolResults: false },
            replies: [
              {
                content: [
                  { type: 'tool_use', id: 'first', name: 'T', input: { ms: 1, safe: true } },
                  { type: 'tool_use', id: 'cut', name: 'T', input: { ms: 1, safe: true } },
                ],
                disconnectAfterBlocks: 1,
              },
              { content: [{ type: 'tool_use', id: 'again', name: 'T', input: { ms: 1, safe: true } }] },
            ],
          },
          { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
        ],
      },
      tools: [fakeTool('T', log)],
    });
    const r = h.ask('go');
    await vi.runAllTimersAsync();
    expect(await r).toMatchObject({ kind: 'success', resultText: 'ok' });
    expect(kinds(h.events).filter((k) => !k.startsWith('state') && k !== 'model_request')).toEqual([
      'turn_started',
      'assistant:tool_use:first',
      'api_retry:1:null',
      'assistant:tool_use:again',
      'result:again:success',
      'assistant:text',
      'turn_result:success',
    ]);
    const supersedes = h.events.find((e) => e.type === 'assistant_block' && e.block.type === 'tool_use' && e.block.id === 'again');
    const firstUuid = h.events.find((e) => e.type === 'assistant_block' && e.block.type === 'tool_use' && e.block.id === 'first');
    expect(supersedes && supersedes.type === 'assistant_block' && supersedes.supersedes).toEqual([firstUuid && firstUuid.type === 'assistant_block' ? firstUuid.uuid : '?']);
    // The retry re-sends the same conversation; nothing of the broken attempt reaches the model.
    expect(h.requests[1]?.messages).toEqual(h.requests[0]?.messages);
    expect(h.requests[2]?.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'again', name: 'T', input: { ms: 1, safe: true } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'again', content: 'ok again', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('a stalled response trips the watchdog, is retried, and ends as a typed timeout error when it never recovers', async () => {
    const h = sessionHarness({
      scenario: { rules: [{ reply: { stall: true } }] },
      retry: { firstEventTimeoutMs: 1000, maxAttempts: 3 },
    });
    const r = h.ask('hi');
    await vi.runAllTimersAsync();
    // As Claude Code ends a turn the API never answered: a `success` result with is_error and the error's text.
    expect(await r).toMatchObject({ kind: 'success', isError: true, terminalReason: 'api_error', resultText: 'API Error: No response from the model API in 1000 ms.', error: { category: 'timeout', retryable: true } });
    expect(h.events.filter((e) => e.type === 'api_retry')).toHaveLength(2);
  });

  it('an authentication error ends the turn with a typed, non-retryable error and a synthetic assistant message', async () => {
    const h = sessionHarness({ scenario: { rules: [{ reply: { error: { status: 401, message: 'invalid x-api-key' } } }] } });
    const r = h.ask('hi');
    await vi.runAllTimersAsync();
    expect(await r).toMatchObject({
      kind: 'success',
      isError: true,
      resultText: 'Not logged in · Please run /login',
      stopReason: 'stop_sequence',
      apiError: { status: 401, type: 'authentication_error' },
      error: { category: 'authentication', retryable: false, status: 401 },
    });
    expect(kinds(h.events)).toContain('assistant:text:authentication_failed');
    expect(h.events.filter((e) => e.type === 'api_retry')).toEqual([]);
  });

  it('stops at --max-turns with error_max_turns and a non-empty errors list', async () => {
    const log: RunLog[] = [];
    const h = sessionHarness({
      scenario: { rules: [{ reply: { content: [{ type: 'tool_use', name: 'T', input: { ms: 1 } }] } }] },
      tools: [fakeTool('T', log)],
      settings: { maxTurns: 2 },
    });
    const r = h.ask('loop forever');
    await vi.runAllTimersAsync();
    expect(await r).toMatchObject({ kind: 'error_max_turns', isError: true, numTurns: 2, errors: ['Reached the maximum number of turns (2).'] });
  });

  it('checks the budget before each model call', async () => {
    const log: RunLog[] = [];
    const h = sessionHarness({
      scenario: { rules: [{ reply: { content: [{ type: 'tool_use', name: 'T', input: { ms: 1 } }], usage: { input_tokens: 1_000_000, output_tokens: 0 } } }] },
      tools: [fakeTool('T', log)],
      settings: { maxBudgetUsd: 5, model: 'claude-sonnet-4-5' },
    });
    const r = h.ask('spend');
    await vi.runAllTimersAsync();
    // $3 per call: the first two calls happen (0 < 5, 3 < 5), the third is refused (6 >= 5).
    expect(await r).toMatchObject({ kind: 'error_max_budget_usd', numTurns: 2, totalCostUsd: 6 });
  });

  it('reports usage and cost after every model call, with running totals', async () => {
    const log: RunLog[] = [];
    const h = sessionHarness({
      scenario: {
        rules: [
          { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'T', input: { ms: 1 } }], usage: { input_tokens: 1_000_000, output_tokens: 0 } } },
          { reply: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 0, output_tokens: 100_000 } } },
        ],
      },
      tools: [fakeTool('T', log)],
      settings: { model: 'claude-sonnet-4-5' },
    });
    const r = h.ask('go');
    await vi.runAllTimersAsync();
    await r;
    expect(h.events.filter((e) => e.type === 'usage')).toEqual([
      { type: 'usage', model: 'claude-sonnet-4-5', call: { input_tokens: 1_000_000, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cost_usd: 3 }, turnCostUsd: 3, totalCostUsd: 3 },
      { type: 'usage', model: 'claude-sonnet-4-5', call: { input_tokens: 0, output_tokens: 100_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cost_usd: 1.5 }, turnCostUsd: 4.5, totalCostUsd: 4.5 },
    ]);
  });

  it('--json-schema: the answer comes through StructuredOutput, validated, with bounded retries', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'], additionalProperties: false };
    const h = sessionHarness({
      scenario: {
        rules: [
          {
            replies: [
              { content: [{ type: 'text', text: 'The answer is 42.' }] },
              { content: [{ type: 'tool_use', id: 'so1', name: 'StructuredOutput', input: { answer: 'forty-two' } }] },
              { content: [{ type: 'tool_use', id: 'so2', name: 'StructuredOutput', input: { answer: 42 } }] },
            ],
          },
        ],
      },
      tools: [createStructuredOutputTool(schema)],
      settings: { jsonSchema: schema },
    });
    const r = h.ask('What is the answer?');
    await vi.runAllTimersAsync();
    expect(await r).toMatchObject({ kind: 'success', structuredOutput: { answer: 42 }, numTurns: 3, resultText: '{"answer":42}' });
    expect(JSON.stringify(h.requests[1]?.messages.at(-1))).toContain('You must give your final answer by calling the StructuredOutput tool');
    expect(JSON.stringify(h.requests[2]?.messages.at(-1))).toContain('/answer must be integer');

    const never = sessionHarness({
      scenario: { rules: [{ reply: { content: [{ type: 'text', text: 'no' }] } }] },
      tools: [createStructuredOutputTool(schema)],
      settings: { jsonSchema: schema },
    });
    const r2 = never.ask('?');
    await vi.runAllTimersAsync();
    expect(await r2).toMatchObject({ kind: 'error_max_structured_output_retries', isError: true, numTurns: 4 });
  });

  it('prompts queued during a turn are folded into the next one, joined by newlines: one request and one result answer them', async () => {
    const h = sessionHarness({ scenario: { rules: [{ reply: { content: [{ type: 'text', text: 'echo {{lastUserText}}' }], delays: { firstTokenMs: 50 } } }] } });
    const a = h.ask('one');
    await vi.advanceTimersByTimeAsync(10); // the first turn's request is out
    const b = h.ask('two');
    const c = h.ask('three');
    await vi.runAllTimersAsync();
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect([ra?.resultText, rb?.resultText, rc === rb]).toEqual(['echo one', 'echo two\nthree', true]);
    expect(h.results().map((r) => [r.resultIndex, r.userMessageUuids])).toEqual([
      [0, ['p1']],
      [1, ['p2', 'p3']],
    ]);
    expect(h.requests).toHaveLength(2);
  });

  it('a slash command or a synthetic prompt is not folded: it keeps its own turn, in order', async () => {
    const h = sessionHarness({ scenario: { rules: [{ reply: { content: [{ type: 'text', text: 'echo {{lastUserText}}' }], delays: { firstTokenMs: 50 } } }] } });
    const a = h.ask('one');
    await vi.advanceTimersByTimeAsync(10);
    h.session.submit({ uuid: 's1', content: 'a task finished', shouldQuery: true, isSynthetic: true });
    const b = h.ask('two');
    const c = h.ask('three');
    await vi.runAllTimersAsync();
    await Promise.all([a, b, c]);
    expect(h.results().map((r) => [r.resultText, r.userMessageUuids])).toEqual([
      ['echo one', ['p1']],
      ['echo a task finished', ['s1']],
      ['echo two\nthree', ['p2', 'p3']],
    ]);
  });

  it('prompts sent while a tool runs join the running turn after its results, as reminders (no turn of their own)', async () => {
    const log: RunLog[] = [];
    const h = sessionHarness({
      scenario: {
        rules: [
          { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_slow', name: 'T', input: { ms: 100, safe: true } }] } },
          { reply: { content: [{ type: 'text', text: 'done' }] } },
        ],
      },
      tools: [fakeTool('T', log)],
    });
    const a = h.ask('go');
    await vi.advanceTimersByTimeAsync(50); // the tool is running
    const b = h.ask('also this');
    await vi.runAllTimersAsync();
    const [ra, rb] = await Promise.all([a, b]);
    expect([ra === rb, ra?.userMessageUuids, h.requests.length]).toEqual([true, ['p1', 'p2'], 2]);
    expect(h.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_slow', content: 'ok toolu_slow' },
        {
          type: 'text',
          text: '<system-reminder>\nThe user sent a new message while you were working:\nalso this\n\nThis is how agentd surfaces messages the user sends mid-turn — within the running turn, often alongside the next tool result, rather than as a separate conversation turn. Address the message above as you continue this turn.\n</system-reminder>',
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
  });
});
