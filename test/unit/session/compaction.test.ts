// Compaction in the session: automatic (the thread passed the threshold), /compact, and prompt-too-long recovery,
// on the in-process scripted model. What matters: what the model is sent before and after, the events, and
// that a failed compaction leaves the thread as it was.
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION } from '../../../src/compaction/policy.js';
import { continuationText, summaryInstruction } from '../../../src/compaction/prompt.js';
import type { Scenario } from '../../../src/model/scripted/scenario.js';
import type { ApiMessage, ModelRequest } from '../../../src/model/types.js';
import type { LoopCompaction } from '../../../src/session/loop-compaction.js';
import type { SessionEvent } from '../../../src/thread/events.js';
import { withoutContext } from '../../support/context.js';
import { type RunLog, fakeTool } from '../../support/fake-tools.js';
import { sessionHarness } from '../../support/session-harness.js';

const SUMMARY_REQ = { lastUserText: 'your summary will replace' };

function compaction(over: Partial<LoopCompaction> = {}, calls: string[] = []): LoopCompaction {
  return {
    settings: DEFAULT_COMPACTION,
    contextWindow: () => 200_000,
    transcriptPath: () => '/t/s.jsonl',
    hooks: {
      preCompact: async (trigger, instr) => {
        calls.push(`pre:${trigger}:${instr ?? ''}`);
        return {};
      },
      postCompact: async (trigger, summary) => {
        calls.push(`post:${trigger}:${summary}`);
      },
    },
    ...over,
  };
}

const text = (m: ApiMessage): string => (typeof m.content === 'string' ? m.content : m.content.map((b) => ('text' in b ? String(b.text) : `[${b.type}]`)).join('|'));
const isSummaryRequest = (r: ModelRequest): boolean => text(r.messages[r.messages.length - 1] as ApiMessage).includes('your summary will replace');
const compactEvents = (events: SessionEvent[]) => events.filter((e) => e.type.startsWith('compact_'));

describe('automatic compaction', () => {
  it('at the start of a turn: the history is summarised without the new prompt, which follows the summary verbatim', async () => {
    const calls: string[] = [];
    const scenario: Scenario = {
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<analysis>a</analysis><summary>SUMMARY-1</summary>' }] } },
        { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'first answer' }], usage: { input_tokens: 180_000, output_tokens: 10 } } },
      ],
      fallback: { content: [{ type: 'text', text: 'later answer' }] },
    };
    const h = sessionHarness({ scenario, compaction: compaction({}, calls) });
    expect((await h.ask('first prompt')).kind).toBe('success');
    const r = await h.ask('second prompt');
    expect(r.kind).toBe('success');
    expect(r.resultText).toBe('later answer');
    expect(h.requests.map(isSummaryRequest)).toEqual([false, true, false]);
    // The summary request: the history as it was before the new prompt, then the instruction.
    expect(withoutContext((h.requests[1] as ModelRequest).messages)).toEqual([
      { role: 'user', content: 'first prompt' },
      { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
      { role: 'user', content: summaryInstruction(undefined) },
    ]);
    // The request after it: the summary, then the prompt exactly as sent; nothing else of the earlier turn.
    expect(withoutContext((h.requests[2] as ModelRequest).messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: continuationText('SUMMARY-1', '/t/s.jsonl', 'prompt') },
          { type: 'text', text: 'second prompt', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    expect(calls).toEqual(['pre:auto:', 'post:auto:SUMMARY-1']);
    const ce = compactEvents(h.events);
    expect(ce.map((e) => (e.type === 'compact_status' ? `status:${e.status ?? (e as { result: string }).result}` : e.type))).toEqual(['status:compacting', 'status:success', 'compact_boundary', 'compact_summary']);
    const b = ce.find((e) => e.type === 'compact_boundary');
    expect(b).toMatchObject({ trigger: 'auto', preTokens: expect.any(Number) as number });
    expect((b as { preTokens: number }).preTokens).toBeGreaterThanOrEqual(180_010);
    // The summary request's cost is the session's, not the turn's usage (Claude Code's result counts the turn's rounds).
    const calls2 = h.events.flatMap((e) => (e.type === 'usage' ? [e.call.input_tokens] : []));
    expect(calls2).toHaveLength(2); // the two rounds; the summary request reports no usage event
    expect(r.usage.input_tokens).toBe(calls2[1]);
    expect(Object.values(r.modelUsage)[0]?.inputTokens).toBeGreaterThan(180_000 + r.usage.input_tokens);
  });

  it('between rounds of a turn: the whole thread is summarised, and the work goes on from the summary', async () => {
    const scenario: Scenario = {
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<summary>MID-TURN</summary>' }] } },
        { when: { hasToolResults: false, lastUserText: 'go' }, reply: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'T', input: { ms: 1 } }], usage: { input_tokens: 185_000, output_tokens: 10 } } },
      ],
      fallback: { content: [{ type: 'text', text: 'done' }] },
    };
    const log: RunLog[] = [];
    const h = sessionHarness({ scenario, tools: [fakeTool('T', log)], compaction: compaction() });
    const r = await h.ask('go');
    expect(r.resultText).toBe('done');
    expect(h.requests.map(isSummaryRequest)).toEqual([false, true, false]);
    expect(withoutContext((h.requests[2] as ModelRequest).messages)).toEqual([{ role: 'user', content: [{ type: 'text', text: continuationText('MID-TURN', '/t/s.jsonl', 'work'), cache_control: { type: 'ephemeral' } }] }]);
  });

  it('does not compact under the threshold, nor when disabled', async () => {
    const scenario: Scenario = { rules: [{ when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'a' }], usage: { input_tokens: 100_000, output_tokens: 10 } } }], fallback: { content: [{ type: 'text', text: 'b' }] } };
    const h = sessionHarness({ scenario, compaction: compaction() });
    await h.ask('first');
    await h.ask('second');
    expect(h.requests.map(isSummaryRequest)).toEqual([false, false]);
    const big: Scenario = { rules: [{ when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'a' }], usage: { input_tokens: 199_000, output_tokens: 10 } } }], fallback: { content: [{ type: 'text', text: 'b' }] } };
    const off = sessionHarness({ scenario: big, compaction: compaction({ settings: { ...DEFAULT_COMPACTION, autoDisabled: true } }) });
    await off.ask('first');
    await off.ask('second');
    expect(off.requests.map(isSummaryRequest)).toEqual([false, false]);
  });

  it('a reply without <summary> is asked for once more; a second one without it fails: the thread is left as it was, the turn goes on', async () => {
    const scenario: Scenario = {
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<analysis>only</analysis>' }] } },
        { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'first answer' }], usage: { input_tokens: 190_000, output_tokens: 10 } } },
      ],
      fallback: { content: [{ type: 'text', text: 'later' }] },
    };
    const h = sessionHarness({ scenario, compaction: compaction() });
    await h.ask('first');
    const r = await h.ask('second');
    expect(r.kind).toBe('success');
    // Asked twice, then the turn's own request; no further attempt in the same turn.
    expect(h.requests.map(isSummaryRequest)).toEqual([false, true, true, false]);
    expect((h.requests[2] as ModelRequest).messages).toEqual((h.requests[1] as ModelRequest).messages);
    expect(withoutContext((h.requests[3] as ModelRequest).messages).map(text)).toEqual(['first', 'first answer', 'second']);
    expect(compactEvents(h.events)).toEqual([
      { type: 'compact_status', status: 'compacting' },
      { type: 'compact_status', status: null, result: 'failed', error: "The model's reply has no <summary> block (asked 2 times); the conversation was left as it was." },
    ]);
  });

  it('a reply without <summary>, then one with it: compacted from the second', async () => {
    const scenario: Scenario = {
      rules: [
        { when: SUMMARY_REQ, replies: [{ content: [{ type: 'text', text: 'I will summarise now.' }] }, { content: [{ type: 'text', text: '<summary>SECOND-TRY</summary>' }] }] },
        { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'first answer' }], usage: { input_tokens: 190_000, output_tokens: 10 } } },
      ],
      fallback: { content: [{ type: 'text', text: 'later' }] },
    };
    const h = sessionHarness({ scenario, compaction: compaction() });
    await h.ask('first');
    await h.ask('second');
    expect(h.requests.map(isSummaryRequest)).toEqual([false, true, true, false]);
    expect(text(withoutContext((h.requests[3] as ModelRequest).messages)[0] as ApiMessage)).toBe(`${continuationText('SECOND-TRY', '/t/s.jsonl', 'prompt')}|second`);
  });

  it('the summary request goes through the turn\'s model-call path: a 529 is retried with api_retry events, a stall trips the watchdog', async () => {
    const scenario: Scenario = {
      rules: [
        { when: SUMMARY_REQ, replies: [{ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, { stall: true }, { content: [{ type: 'text', text: '<summary>AFTER-RETRIES</summary>' }] }] },
        { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'first answer' }], usage: { input_tokens: 190_000, output_tokens: 10 } } },
      ],
      fallback: { content: [{ type: 'text', text: 'later' }] },
    };
    const h = sessionHarness({ scenario, compaction: compaction(), retry: { baseDelayMs: 1, firstEventTimeoutMs: 50 } });
    await h.ask('first');
    const r = await h.ask('second');
    expect(r.resultText).toBe('later');
    expect(h.requests.map(isSummaryRequest)).toEqual([false, true, true, true, false]);
    expect(h.events.filter((e) => e.type === 'api_retry').map((e) => e.type === 'api_retry' && [e.attempt, e.status, e.error])).toEqual([
      [1, 529, 'overloaded'],
      [2, null, 'unknown'],
    ]);
    // Nothing of the summary request reached the conversation's events: no assistant block, no usage event.
    expect(h.events.filter((e) => e.type === 'assistant_block').map((e) => e.type === 'assistant_block' && e.block)).toEqual([
      { type: 'text', text: 'first answer' },
      { type: 'text', text: 'later' },
    ]);
    expect(text(withoutContext((h.requests[4] as ModelRequest).messages)[0] as ApiMessage)).toBe(`${continuationText('AFTER-RETRIES', '/t/s.jsonl', 'prompt')}|second`);
  });

  it('a tool call in the summary answer is not run', async () => {
    const log: RunLog[] = [];
    const scenario: Scenario = {
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'tool_use', id: 'toolu_s', name: 'T', input: { ms: 1 } }, { type: 'text', text: '<summary>S</summary>' }] } },
        { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'first answer' }], usage: { input_tokens: 190_000, output_tokens: 10 } } },
      ],
      fallback: { content: [{ type: 'text', text: 'later' }] },
    };
    const h = sessionHarness({ scenario, tools: [fakeTool('T', log)], compaction: compaction() });
    await h.ask('first');
    await h.ask('second');
    expect(log).toEqual([]);
    expect(h.events.filter((e) => e.type === 'tool_result')).toEqual([]);
  });
});

describe('/compact', () => {
  it('runs as a turn of its own with no model round of the thread; the next prompt starts from the summary', async () => {
    const calls: string[] = [];
    const scenario: Scenario = {
      rules: [{ when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<summary>S2</summary>' }] } }],
      fallback: { content: [{ type: 'text', text: 'plain' }] },
    };
    const h = sessionHarness({ scenario, compaction: compaction({}, calls) });
    await h.ask('hello');
    const r = await h.command({ kind: 'compact', instructions: 'keep the todo list' });
    expect({ kind: r.kind, numTurns: r.numTurns, resultText: r.resultText, isError: r.isError }).toEqual({ kind: 'success', numTurns: 0, resultText: '', isError: false });
    expect(text((h.requests[1] as ModelRequest).messages.at(-1) as ApiMessage)).toBe(summaryInstruction('keep the todo list'));
    await h.ask('after');
    expect((h.requests[2] as ModelRequest).messages.map(text)).toEqual([expect.stringContaining('Summary:\nS2\n') as string]);
    expect(text((h.requests[2] as ModelRequest).messages[0] as ApiMessage)).toMatch(/\|after$/);
    expect(calls).toEqual(['pre:manual:keep the todo list', 'post:manual:S2']);
    expect(r.totalCostUsd).toBeGreaterThan(0);
  });

  it('refuses on an empty conversation, when disabled, and when a PreCompact hook blocks', async () => {
    const h = sessionHarness({ compaction: compaction() });
    const empty = await h.command({ kind: 'compact', instructions: undefined });
    expect(empty.error).toEqual({ category: 'invalid_request', retryable: false, status: null, message: 'Nothing to compact: the conversation is empty.' });
    const off = sessionHarness({ compaction: compaction({ settings: { ...DEFAULT_COMPACTION, disabled: true } }) });
    expect((await off.command({ kind: 'compact', instructions: undefined })).error?.message).toBe('Compaction is disabled (DISABLE_COMPACT).');
    const blocked = sessionHarness({
      scenario: { rules: [], fallback: { content: [{ type: 'text', text: 'x' }] } },
      compaction: compaction({ hooks: { preCompact: async () => ({ block: 'not now' }), postCompact: async () => undefined } }),
    });
    await blocked.ask('hi');
    const r = await blocked.command({ kind: 'compact', instructions: undefined });
    expect(r.isError).toBe(true);
    expect(r.error?.message).toBe('A PreCompact hook blocked the compaction: not now');
    expect(blocked.requests).toHaveLength(1);
  });
});

describe('prompt too long', () => {
  it('compacts once and retries the round', async () => {
    const scenario: Scenario = {
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<summary>S3</summary>' }] } },
        { when: { lastUserText: 'second' }, replies: [{ error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } }] },
      ],
      fallback: { content: [{ type: 'text', text: 'ok' }] },
    };
    const h = sessionHarness({ scenario, compaction: compaction() });
    await h.ask('first');
    const r = await h.ask('second');
    expect(r.kind).toBe('success');
    expect(r.resultText).toBe('ok');
    expect(r.numTurns).toBe(1);
    expect(h.requests.map(isSummaryRequest)).toEqual([false, false, true, false]);
  });

  it('a second refusal after compacting is a typed context_overflow error, not a loop', async () => {
    const tooLong = { error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } };
    const scenario: Scenario = {
      rules: [
        { when: SUMMARY_REQ, reply: { content: [{ type: 'text', text: '<summary>S4</summary>' }] } },
        { when: { lastUserText: 'second' }, reply: tooLong },
        { when: { lastUserText: 'Summary:' }, reply: tooLong },
      ],
      fallback: { content: [{ type: 'text', text: 'ok' }] },
    };
    const h = sessionHarness({ scenario, compaction: compaction() });
    await h.ask('first');
    const r = await h.ask('second');
    expect(r.isError).toBe(true);
    expect(r.error?.category).toBe('context_overflow');
    expect(r.terminalReason).toBe('prompt_too_long');
    expect(h.requests.map(isSummaryRequest)).toEqual([false, false, true, false]);
  });
});
