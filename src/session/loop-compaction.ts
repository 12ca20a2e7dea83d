// Compaction inside the agent loop: at the start of a turn, before the user's new prompt joins the thread, when
// the thread with that prompt would pass the threshold (the history is summarised, the prompt then follows the
// summary verbatim, as Claude Code 2.1.330 sends it); before a later model round when the thread has grown past
// the threshold; and once when the API says the prompt is too long (recovery). The compaction itself is
// compaction/compact.ts; this decides when, and with which prompt, tools and window, and sends its summary
// request through the turn's model-call path (retries with api_retry frames, the stall watchdog, the fallback
// model).
import { type CompactHooks, type CompactOutcome, type SummaryAnswer, compactThread } from '../compaction/compact.js';
import { type CompactionSettings, autoCompactThreshold } from '../compaction/policy.js';
import { contextTokens, messageTokens } from '../model/token-estimate.js';
import type { AssistantBlock, ModelRequest, SystemBlock, ToolDefinition, UserBlock } from '../model/types.js';
import type { SessionEvent, TurnUsage } from '../thread/events.js';
import type { Thread } from '../thread/thread.js';
import type { SharedToolContext } from '../tools/tool.js';
import type { LoopServices, Toolset } from './loop.js';
import { runModelRound } from './model-call.js';
import { type UsageLedger, emptyTurnUsage } from './usage.js';

/** What a loop needs to compact its thread; a loop without it never compacts (nested loops, for now). */
export interface LoopCompaction {
  settings: CompactionSettings;
  contextWindow: (model: string) => number;
  transcriptPath: () => string | undefined;
  hooks: CompactHooks;
}

/** The thread's size for the next request: the API's count of what was sent, plus an estimate of what was added. */
export function threadTokens(thread: Thread, system: readonly SystemBlock[], tools: readonly ToolDefinition[]): number {
  const c = thread.countedPrefix;
  return contextTokens(c ? { counted: { tokens: c.tokens, since: c.uncounted } } : { counted: undefined, system, tools, messages: thread.messages });
}

/** Whether a thread of `tokens` is past the automatic threshold for `model`. */
export function needsAutoCompact(c: LoopCompaction, model: string, tokens: number): boolean {
  const threshold = autoCompactThreshold(c.contextWindow(model), c.settings);
  return threshold !== undefined && tokens >= threshold;
}

export interface CompactionRun {
  services: LoopServices;
  tools: Toolset;
  thread: Thread;
  model: string;
  fallbackModel: string | undefined;
  system: SystemBlock[];
  trigger: 'manual' | 'auto';
  /** What follows the summary: the interrupted work, or the user's new prompt (appended by the caller). */
  next: 'work' | 'prompt';
  customInstructions: string | undefined;
  preTokens: number;
  emit: (ev: SessionEvent) => void | Promise<void>;
  /** The session's ledger: the summary request's cost is the session's (modelUsage, total_cost_usd). */
  ledger: UsageLedger;
  /** Where the summary request's usage is counted too: a /compact turn's own usage; the turn's `usage` otherwise
   * leaves it out, as Claude Code's result does (only the turn's rounds). */
  usage?: TurnUsage;
  addApiMs?: (ms: number) => void;
  shared: { current: SharedToolContext };
  signal: AbortSignal;
}

export function runCompaction(c: LoopCompaction, a: CompactionRun): Promise<CompactOutcome> {
  const tools = a.tools.definitions();
  return compactThread({
    ask: (request) => askForSummary(a, request),
    modelId: a.model,
    thread: a.thread,
    system: a.system,
    tools,
    trigger: a.trigger,
    next: a.next,
    customInstructions: a.customInstructions,
    contextWindow: c.contextWindow(a.model),
    preTokens: a.preTokens,
    transcriptPath: c.transcriptPath(),
    hooks: c.hooks,
    emit: a.emit,
    now: a.services.now,
    newUuid: a.services.newUuid,
    signal: a.signal,
  });
}

/**
 * At the start of a turn, before `content` (the user's new prompt) joins the thread: when the thread with it would
 * pass the threshold, the history alone is compacted, so the prompt goes to the model verbatim after the summary.
 * Undefined when no compaction was needed.
 */
export async function compactBeforePrompt(c: LoopCompaction, a: Omit<CompactionRun, 'trigger' | 'next' | 'customInstructions' | 'preTokens'>, content: string | UserBlock[]): Promise<CompactOutcome | undefined> {
  if (a.thread.length === 0) return undefined;
  const tools = a.tools.definitions();
  const tokens = threadTokens(a.thread, a.system, tools) + messageTokens([{ role: 'user', content }]);
  if (!needsAutoCompact(c, a.model, tokens)) return undefined;
  return runCompaction(c, { ...a, trigger: 'auto', next: 'prompt', customInstructions: undefined, preTokens: tokens });
}

/** The summary request, sent as a turn's round is (retries, api_retry frames, watchdog, fallback), reporting only its retries. */
async function askForSummary(a: CompactionRun, request: ModelRequest): Promise<SummaryAnswer> {
  const round = await runModelRound({
    deps: a.services,
    tools: a.tools,
    emit: a.emit,
    turnSignal: a.signal,
    ledger: a.ledger,
    turnUsage: a.usage ?? emptyTurnUsage(),
    addApiMs: a.addApiMs ?? (() => undefined),
    buildRequest: (model) => ({ ...request, model }),
    model: a.model,
    fallbackModel: a.fallbackModel,
    emitStreamEvents: false,
    turnCost: { value: 0 },
    shared: a.shared,
    reporting: 'retries_only',
  });
  switch (round.kind) {
    case 'complete':
      return { kind: 'answered', text: textOf(round.blocks) };
    case 'aborted':
      return { kind: 'failed', reason: 'interrupted' };
    case 'failed':
      return { kind: 'failed', reason: round.error.message };
  }
}

function textOf(blocks: readonly AssistantBlock[]): string {
  return blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
}
