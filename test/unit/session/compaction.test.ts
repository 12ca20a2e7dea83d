// Compaction in the session: automatic (the thread passed the threshold), /compact, and prompt-too-long recovery,
// on the in-process scripted model. What matters: what the model is sent before and after, the events, and
// that a failed compaction leaves the thread as it was.
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION } from '../../../src/compaction/policy.js';
import { summaryInstruction } from '../../../src/compaction/prompt.js';
import type { Scenario } from '../../../src/model/scripted/scenario.js';
import type { ApiMessage, ModelRequest } from '../../../src/model/types.js';
import type { LoopCompaction } from '../../../src/session/loop-compaction.js';
import type { SessionEvent } from '../../../src/thread/events.js';
import { withoutContext } from '../../support/context.js';
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
  it('before the request that would pass the threshold: a summary request, then the thread starts from the summary', async () => {
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
    const summaryReq = h.requests[1] as ModelRequest;
    // The summary request sees the whole thread, the new prompt included, then the instruction.
    expect(text(summaryReq.messages[0] as ApiMessage)).toBe('first prompt');
    expect(text(summaryReq.messages[2] as ApiMessage)).toBe(`second prompt|${summaryInstruction(undefined)}`);
    const next = h.requests[2] as ModelRequest;
    expect(next.messages).toHaveLength(1);
    expect(text(next.messages[0] as ApiMessage)).toContain('Summary:\nSUMMARY-1\n');
    expect(text(next.messages[0] as ApiMessage)).toContain('/t/s.jsonl');
    expect(JSON.stringify(next.messages)).not.toContain('first answer');
    expect(calls).toEqual(['pre:auto:', 'post:auto:SUMMARY-1']);
    const ce = compactEvents(h.events);
    expect(ce.map((e) => (e.type === 'compact_status' ? `status:${e.status ?? (e as { result: string }).result}` : e.type))).toEqual(['status:compacting', 'status:success', 'compact_boundary', 'compact_summary']);
    const b = ce.find((e) => e.type === 'compact_boundary');
    expect(b).toMatchObject({ trigger: 'auto', preTokens: expect.any(Number) as number });
    expect((b as { preTokens: number }).preTokens).toBeGreaterThanOrEqual(180_010);
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

  it('an empty summary leaves the thread as it was, reports the failure, and the turn goes on without retrying each round', async () => {
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
    expect(h.requests.map(isSummaryRequest)).toEqual([false, true, false]);
    expect(withoutContext((h.requests[2] as ModelRequest).messages).map(text)).toEqual(['first', 'first answer', 'second']);
    expect(compactEvents(h.events)).toEqual([
      { type: 'compact_status', status: 'compacting' },
      { type: 'compact_status', status: null, result: 'failed', error: 'The model returned an empty summary; the conversation was left as it was.' },
    ]);
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
