// Compaction inside the agent loop: before a model round when the thread has grown past the threshold
// (automatic), and once when the API says the prompt is too long (recovery). The compaction itself is
// compaction/compact.ts; this decides when, and with which prompt, tools and window.
import { type CompactHooks, type CompactOutcome, compactThread } from '../compaction/compact.js';
import { type CompactionSettings, autoCompactThreshold } from '../compaction/policy.js';
import { contextTokens } from '../model/token-estimate.js';
import type { SystemBlock, ToolDefinition, Usage } from '../model/types.js';
import type { SessionEvent } from '../thread/events.js';
import type { Thread } from '../thread/thread.js';
import type { LoopServices } from './loop.js';

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

/** Whether the thread is past the automatic threshold for `model`. */
export function needsAutoCompact(c: LoopCompaction, model: string, tokens: number): boolean {
  const threshold = autoCompactThreshold(c.contextWindow(model), c.settings);
  return threshold !== undefined && tokens >= threshold;
}

export function runCompaction(
  c: LoopCompaction,
  a: {
    services: Pick<LoopServices, 'model' | 'now' | 'newUuid'>;
    thread: Thread;
    model: string;
    system: SystemBlock[];
    tools: ToolDefinition[];
    trigger: 'manual' | 'auto';
    customInstructions: string | undefined;
    preTokens: number;
    emit: (ev: SessionEvent) => void | Promise<void>;
    onUsage: (model: string, usage: Usage) => void | Promise<void>;
    signal: AbortSignal;
  },
): Promise<CompactOutcome> {
  return compactThread({
    model: a.services.model,
    modelId: a.model,
    thread: a.thread,
    system: a.system,
    tools: a.tools,
    trigger: a.trigger,
    customInstructions: a.customInstructions,
    contextWindow: c.contextWindow(a.model),
    preTokens: a.preTokens,
    transcriptPath: c.transcriptPath(),
    hooks: c.hooks,
    emit: a.emit,
    onUsage: a.onUsage,
    now: a.services.now,
    newUuid: a.services.newUuid,
    signal: a.signal,
  });
}
