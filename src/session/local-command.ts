// Where a slash command runs: in the session's queue, where its input would have become a turn, so `/cost`
// after a prompt answers after that prompt's turn. A local answer has the frames Claude Code sends for one
// (system/init, a synthetic assistant message, a result with `local_command`, no model call); an expansion
// (a custom command) comes back as the content of a normal turn.
import type { UserBlock } from '../model/types.js';
import type { LocalCommandOutcome, QueuedInput } from './config.js';
import type { ModelUsageTotals, SessionEvent, TurnResult } from './events.js';
import { emptyTurnUsage } from './usage.js';

export interface LocalRunDeps {
  input: QueuedInput;
  signal: AbortSignal;
  clearConversation(): void;
  emit(ev: SessionEvent): void | Promise<void>;
  newUuid(): string;
  now(): number;
  resultIndex: number;
  queuedCount(): number;
  modelUsage(): Record<string, ModelUsageTotals>;
  totalCostUsd(): number;
}

/** Runs the command; returns the turn to run instead (its content, and a model for it), or undefined when it was answered. */
export async function runLocalCommand(d: LocalRunDeps): Promise<{ content: string | UserBlock[]; model?: string } | undefined> {
  const started = d.now();
  const run = d.input.command;
  if (!run) return { content: d.input.content };
  let outcome: LocalCommandOutcome;
  try {
    outcome = await run({ signal: d.signal, clearConversation: () => d.clearConversation(), emit: (ev) => d.emit(ev) });
  } catch (err) {
    outcome = { kind: 'error', command: 'unknown', message: `The command failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (outcome.kind === 'turn') return { content: outcome.content, ...(outcome.model ? { model: outcome.model } : {}) };
  await d.emit({ type: 'state', state: 'running' });
  await d.emit({ type: 'turn_started', userMessageUuids: [d.input.uuid] });
  const text = outcome.kind === 'output' ? outcome.text : outcome.message;
  if (text !== '') await d.emit({ type: 'local_command_output', uuid: d.newUuid(), text });
  const result: TurnResult = {
    kind: outcome.kind === 'output' ? 'success' : 'error_during_execution',
    isError: outcome.kind === 'error',
    resultText: outcome.kind === 'output' ? text : '',
    errors: outcome.kind === 'error' ? [text] : [],
    stopReason: null,
    terminalReason: 'completed',
    durationMs: d.now() - started,
    durationApiMs: 0,
    numTurns: 0,
    usage: emptyTurnUsage(),
    modelUsage: d.modelUsage(),
    totalCostUsd: d.totalCostUsd(),
    permissionDenials: [],
    userMessageUuids: [d.input.uuid],
    localCommand: outcome.command,
    resultIndex: d.resultIndex,
    queuedTurnCount: d.queuedCount(),
  };
  await d.emit({ type: 'turn_result', result });
  await d.emit({ type: 'state', state: 'idle' });
  return undefined;
}
