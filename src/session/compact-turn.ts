// /compact [instructions]: a turn of its own that runs no model round, only the compaction (as Claude Code does:
// num_turns 0, an empty result), queued like any turn so a /compact sent during a turn waits for it.
import { emptyTurnUsage } from './usage.js';
import type { QueuedInput } from './config.js';
import type { TurnResult } from '../thread/events.js';
import { runCompaction, threadTokens } from './loop-compaction.js';
import { type TurnContext, systemFor } from './turn.js';

export async function runCompactTurn(tc: TurnContext, input: QueuedInput, instructions: string | undefined, signal: AbortSignal): Promise<TurnResult> {
  const { deps } = tc;
  const startedAt = deps.now();
  const usage = emptyTurnUsage();
  const result = (r: Pick<TurnResult, 'kind' | 'isError' | 'terminalReason'> & Partial<TurnResult>): TurnResult => ({
    resultText: '',
    errors: [],
    stopReason: null,
    durationMs: deps.now() - startedAt,
    durationApiMs: 0,
    numTurns: 0,
    usage,
    modelUsage: tc.ledger.modelUsage(),
    totalCostUsd: tc.ledger.totalCostUsd,
    permissionDenials: [],
    userMessageUuids: [input.uuid],
    resultIndex: tc.resultIndex,
    queuedTurnCount: tc.queuedCount(),
    ...r,
  });
  const refuse = (message: string): TurnResult =>
    result({ kind: 'error_during_execution', isError: true, terminalReason: 'turn_setup_failed', errors: [message], error: { category: 'invalid_request', retryable: false, status: null, message } });

  await tc.emit({ type: 'turn_started', userMessageUuids: [input.uuid] });
  const c = deps.compaction;
  if (!c || c.settings.disabled) return refuse('Compaction is disabled (DISABLE_COMPACT).');
  if (tc.thread.length === 0) return refuse('Nothing to compact: the conversation is empty.');
  const model = tc.settings.model;
  const system = systemFor(tc, model);
  const tools = deps.tools.definitions();
  const apiStart = deps.now();
  const r = await runCompaction(c, {
    services: deps,
    tools: deps.tools,
    thread: tc.thread,
    model,
    fallbackModel: tc.settings.fallbackModel,
    system,
    trigger: 'manual',
    next: 'work',
    customInstructions: instructions,
    preTokens: threadTokens(tc.thread, system, tools),
    emit: tc.emit,
    ledger: tc.ledger,
    usage,
    shared: tc.shared,
    signal,
  });
  const durationApiMs = deps.now() - apiStart;
  if (r.kind === 'compacted') return result({ kind: 'success', isError: false, terminalReason: 'completed', durationApiMs, modelUsage: tc.ledger.modelUsage(), totalCostUsd: tc.ledger.totalCostUsd });
  if (signal.aborted) return result({ kind: 'error_during_execution', isError: true, terminalReason: 'aborted_streaming', errors: [r.reason], error: { category: 'interrupted', retryable: true, status: null, message: r.reason } });
  return result({
    kind: 'error_during_execution',
    isError: true,
    terminalReason: 'api_error',
    durationApiMs,
    errors: [r.reason],
    error: { category: 'server_error', retryable: true, status: null, message: r.reason },
    modelUsage: tc.ledger.modelUsage(),
    totalCostUsd: tc.ledger.totalCostUsd,
  });
}
