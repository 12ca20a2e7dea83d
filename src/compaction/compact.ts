// One compaction of a thread: PreCompact hooks, a summary request to the model, the thread replaced by the
// summary (recorded as Claude Code records it: a compact_boundary entry, then the summary as the first user
// message of the new chain, so a resume continues from it), PostCompact hooks, and the frames Claude Code sends
// (status compacting → status null with compact_result → compact_boundary → the summary as a user message).
// The summary request is made by the caller's `ask` (the session sends it through the same model-call path as a
// turn's rounds: retries with api_retry frames, the stall watchdog). A reply without a <summary> block is asked
// for once more, as Claude Code asks; a second one without it fails the compaction. A failed compaction leaves
// the thread exactly as it was.
import type { TurnHooks } from '../hooks/turn-hooks.js';
import type { ModelRequest, SystemBlock, ToolDefinition } from '../model/types.js';
import type { SessionEvent } from '../thread/events.js';
import type { Thread } from '../thread/thread.js';
import { SUMMARY_RESERVE_TOKENS } from './policy.js';
import { continuationText, extractSummary, summaryRequestMessages } from './prompt.js';
import { messageTokens as estimateTokens } from '../model/token-estimate.js';
import { clearOldToolResults } from './prune.js';

export type CompactTrigger = 'manual' | 'auto';

/** PreCompact / PostCompact, as the session's hook layer runs them (hooks/turn-hooks.ts). */
export type CompactHooks = Pick<TurnHooks, 'preCompact' | 'postCompact'>;

/** How the summary request went: the answer's text, or why there is none (an API error, an interrupt). */
export type SummaryAnswer = { kind: 'answered'; text: string } | { kind: 'failed'; reason: string };

export interface CompactParams {
  /** Sends the summary request (retried as a turn's rounds are); never rejects. */
  ask: (request: ModelRequest) => Promise<SummaryAnswer>;
  modelId: string;
  thread: Thread;
  /** The same system prompt and tools as the thread's requests: the summary request then reads their cache. */
  system: SystemBlock[];
  tools: ToolDefinition[];
  trigger: CompactTrigger;
  /** What follows the summary: the interrupted work, or the user's new prompt (appended verbatim by the caller). */
  next: 'work' | 'prompt';
  customInstructions: string | undefined;
  /** The model's context window, and what the thread holds now (the API's count where known). */
  contextWindow: number;
  preTokens: number;
  transcriptPath: string | undefined;
  hooks: CompactHooks;
  emit: (ev: SessionEvent) => void | Promise<void>;
  now: () => number;
  newUuid: () => string;
  signal: AbortSignal;
}

export type CompactOutcome =
  | { kind: 'compacted'; summary: string; preTokens: number; postTokens: number; durationMs: number }
  | { kind: 'failed'; reason: string };

/** How many tokens the summary may take (the request's max_tokens). */
const SUMMARY_MAX_TOKENS = SUMMARY_RESERVE_TOKENS;
/** A reply without a <summary> block is asked for once more (Claude Code 2.1.330 does), then the compaction fails. */
const SUMMARY_ASKS = 2;

export async function compactThread(p: CompactParams): Promise<CompactOutcome> {
  const started = p.now();
  await p.emit({ type: 'compact_status', status: 'compacting' });
  const outcome = await summarise(p);
  if (outcome.kind === 'failed') {
    await p.emit({ type: 'compact_status', status: null, result: 'failed', error: outcome.reason });
    return outcome;
  }
  const logicalParentUuid = p.thread.lastRecordedUuid;
  const boundaryUuid = p.newUuid();
  const summaryUuid = p.newUuid();
  const text = continuationText(outcome.summary, p.transcriptPath, p.next);
  const postTokens = estimateTokens([{ role: 'user', content: text }]);
  const durationMs = p.now() - started;
  p.thread.replaceWithSummary({
    boundary: { uuid: boundaryUuid, trigger: p.trigger, preTokens: p.preTokens, postTokens, durationMs },
    summary: { uuid: summaryUuid, text },
  });
  await p.hooks.postCompact(p.trigger, outcome.summary, p.signal).catch(() => undefined);
  await p.emit({ type: 'compact_status', status: null, result: 'success' });
  await p.emit({
    type: 'compact_boundary',
    uuid: boundaryUuid,
    trigger: p.trigger,
    preTokens: p.preTokens,
    postTokens,
    droppedTokens: Math.max(0, p.preTokens - postTokens),
    durationMs,
    ...(logicalParentUuid !== null ? { logicalParentUuid } : {}),
  });
  await p.emit({ type: 'compact_summary', uuid: summaryUuid, text });
  return { kind: 'compacted', summary: outcome.summary, preTokens: p.preTokens, postTokens, durationMs };
}

async function summarise(p: CompactParams): Promise<{ kind: 'ok'; summary: string } | { kind: 'failed'; reason: string }> {
  if (p.thread.length === 0) return { kind: 'failed', reason: 'Nothing to compact: the conversation is empty.' };
  const pre = await p.hooks.preCompact(p.trigger, p.customInstructions, p.signal);
  if (pre.block !== undefined) return { kind: 'failed', reason: `A PreCompact hook blocked the compaction: ${pre.block}` };
  // A thread that overflowed cannot be sent whole even to be summarised: old bulky tool results go first.
  const budget = p.contextWindow - SUMMARY_MAX_TOKENS - estimateTokens([{ role: 'user', content: p.system.map((s) => s.text).join('\n') }]);
  let messages = summaryRequestMessages(p.thread.messages, p.customInstructions);
  if (estimateTokens(messages) > budget) messages = clearOldToolResults(messages, { targetTokens: budget, keepRecent: 2, minChars: 2_000 }).messages;
  const request: ModelRequest = {
    model: p.modelId,
    max_tokens: SUMMARY_MAX_TOKENS,
    system: p.system,
    messages,
    ...(p.tools.length ? { tools: p.tools } : {}),
  };
  for (let attempt = 1; ; attempt++) {
    const answer = await p.ask(request);
    if (answer.kind === 'failed') return { kind: 'failed', reason: p.signal.aborted ? 'Compaction interrupted.' : `The summary request failed: ${answer.reason}` };
    const summary = extractSummary(answer.text);
    if (summary.kind === 'summary') return { kind: 'ok', summary: summary.text };
    if (summary.kind === 'empty') return { kind: 'failed', reason: 'The model returned an empty summary; the conversation was left as it was.' };
    // No <summary> block (a refusal, a tool call, a reply cut short before it): asked once more, as Claude Code asks.
    if (attempt >= SUMMARY_ASKS) return { kind: 'failed', reason: `The model's reply has no <summary> block (asked ${SUMMARY_ASKS} times); the conversation was left as it was.` };
  }
}
