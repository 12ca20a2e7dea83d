import { describe, expect, it } from 'vitest';
import { AUTO_COMPACT_BUFFER_TOKENS, DEFAULT_COMPACTION, SUMMARY_RESERVE_TOKENS, autoCompactThreshold, parseCompactionEnv } from '../../../src/compaction/policy.js';
import { continuationText, extractSummary, summaryInstruction, summaryRequestMessages } from '../../../src/compaction/prompt.js';
import { clearOldToolResults } from '../../../src/compaction/prune.js';
import { messageTokens as estimateTokens } from '../../../src/model/token-estimate.js';
import type { ApiMessage } from '../../../src/model/types.js';

describe('compaction policy', () => {
  it('reads Claude Code’s variables; bad values are ignored', () => {
    expect(parseCompactionEnv({})).toEqual(DEFAULT_COMPACTION);
    expect(parseCompactionEnv({ DISABLE_COMPACT: '1', DISABLE_AUTO_COMPACT: 'true', CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50', CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' })).toEqual({
      disabled: true, autoDisabled: true, percentOverride: 50, windowOverride: 200_000,
    });
    expect(parseCompactionEnv({ DISABLE_COMPACT: '0', CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '150', CLAUDE_CODE_AUTO_COMPACT_WINDOW: 'x' })).toEqual(DEFAULT_COMPACTION);
  });

  it('threshold: the window minus the summary reserve and a buffer; lowered by the overrides; none when disabled', () => {
    expect(autoCompactThreshold(200_000, DEFAULT_COMPACTION)).toBe(200_000 - SUMMARY_RESERVE_TOKENS - AUTO_COMPACT_BUFFER_TOKENS);
    expect(autoCompactThreshold(1_000_000, { ...DEFAULT_COMPACTION, windowOverride: 200_000 })).toBe(167_000);
    expect(autoCompactThreshold(200_000, { ...DEFAULT_COMPACTION, percentOverride: 50 })).toBe(90_000);
    // An override can only lower the threshold.
    expect(autoCompactThreshold(200_000, { ...DEFAULT_COMPACTION, percentOverride: 100 })).toBe(167_000);
    expect(autoCompactThreshold(200_000, { ...DEFAULT_COMPACTION, autoDisabled: true })).toBeUndefined();
    expect(autoCompactThreshold(200_000, { ...DEFAULT_COMPACTION, disabled: true })).toBeUndefined();
  });
});

describe('compaction prompt', () => {
  it('adds the user’s instructions', () => {
    expect(summaryInstruction(undefined)).not.toContain('also follow');
    expect(summaryInstruction('  keep the todo list ')).toMatch(/also follow these instructions:\nkeep the todo list$/);
  });

  it('appends the instruction as its own message, or to a trailing user message', () => {
    const a: ApiMessage[] = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }];
    const ra = summaryRequestMessages(a, undefined);
    expect(ra.slice(0, 2)).toEqual(a);
    expect(ra[2]).toEqual({ role: 'user', content: summaryInstruction(undefined) });
    const b: ApiMessage[] = [{ role: 'user', content: 'only' }];
    expect(summaryRequestMessages(b, 'x')).toEqual([{ role: 'user', content: [{ type: 'text', text: 'only' }, { type: 'text', text: summaryInstruction('x') }] }]);
    expect(b).toEqual([{ role: 'user', content: 'only' }]); // not mutated
  });

  it('extracts the summary block; the analysis is dropped; no block and an empty block are told apart', () => {
    expect(extractSummary('<analysis>think</analysis>\n<summary>\nS1\n</summary>')).toEqual({ kind: 'summary', text: 'S1' });
    // No <summary> block: asked for again (compact.ts), never taken as the summary.
    expect(extractSummary('<analysis>think</analysis> plain')).toEqual({ kind: 'missing' });
    expect(extractSummary('<summary>cut off')).toEqual({ kind: 'summary', text: 'cut off' });
    expect(extractSummary('  ')).toEqual({ kind: 'missing' });
    expect(extractSummary('<analysis>only thinking</analysis>')).toEqual({ kind: 'missing' });
    expect(extractSummary('<summary> </summary>')).toEqual({ kind: 'empty' });
  });

  it('continuation names the transcript when there is one, and says what follows it', () => {
    expect(continuationText('S', '/t.jsonl', 'work')).toContain('Summary:\nS\n');
    expect(continuationText('S', '/t.jsonl', 'work')).toContain('/t.jsonl');
    expect(continuationText('S', undefined, 'work')).not.toContain('JSONL');
    expect(continuationText('S', undefined, 'work').split('\n').at(-1)).toBe('Continue from where the work stopped, without asking the user anything further and without restating the summary.');
    expect(continuationText('S', undefined, 'prompt').split('\n').at(-1)).toBe("The user's newest message follows, exactly as they sent it (the summary was written before it): answer it, without restating the summary.");
  });
});

describe('clearing old tool results', () => {
  const big = 'x'.repeat(40_000);
  const thread: ApiMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: big }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Read', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: big }] },
  ];

  it('clears the oldest bulky results until under the target, sparing the recent ones', () => {
    expect(estimateTokens(thread)).toBeGreaterThan(20_000);
    const r = clearOldToolResults(thread, { targetTokens: 12_000, keepRecent: 1, minChars: 1000 });
    expect(r.clearedResults).toBe(1);
    expect(r.clearedChars).toBe(40_000);
    expect(r.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '[Old tool result cleared to make room (40000 characters).]' }] });
    expect(r.messages[4]).toBe(thread[4]);
    expect(estimateTokens(r.messages)).toBeLessThanOrEqual(12_000);
    expect((thread[2] as { content: Array<{ content: string }> }).content[0]?.content).toBe(big); // input untouched
  });

  it('does nothing when already under the target', () => {
    const r = clearOldToolResults(thread, { targetTokens: 1_000_000, keepRecent: 0, minChars: 1 });
    expect(r).toEqual({ messages: thread, clearedResults: 0, clearedChars: 0 });
  });
});
