// One turn: a user message in, model rounds and tool batches until the model stops, exactly one TurnResult out.
import type { CallRecord } from '../executor/executor.js';
import type { AssistantBlock, ModelApiError, ModelRequest, ThinkingConfig, UserBlock } from '../model/types.js';
import { reasonOf } from '../util/abort.js';
import type { QueuedInput, SessionDeps, SessionSettings } from './config.js';
import type { ErrorCategory, PermissionDenialInfo, SessionEvent, TerminalReason, TurnError, TurnResult } from './events.js';
import type { Conversation } from './history.js';
import { type RoundOutcome, runModelRound } from './model-call.js';
import { buildPrompt, withContext } from './system-prompt.js';
import { type UsageLedger, emptyTurnUsage } from './usage.js';
import type { SharedToolContext } from '../tools/tool.js';

export interface TurnContext {
  deps: SessionDeps;
  settings: SessionSettings;
  conversation: Conversation;
  ledger: UsageLedger;
  shared: { current: SharedToolContext };
  sessionId: string;
  emitStreamEvents: boolean;
  replayUserMessages: boolean;
  betas: string[];
  resultIndex: number;
  queuedCount: () => number;
  emit: (ev: SessionEvent) => void | Promise<void>;
}

const MARKER_STREAM = '[Request interrupted by user]';
const MARKER_TOOLS = '[Request interrupted by user for tool use]';
const MAX_STRUCTURED_RETRIES = 3;
/** Name of the synthetic tool through which a --json-schema answer is given (as in Claude Code). */
export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';

function textOf(blocks: readonly AssistantBlock[]): string {
  return blocks
    .filter((b): b is Extract<AssistantBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

function promptText(content: string | UserBlock[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter((b) => b.type === 'text')
    .map((b) => String((b as { text?: unknown }).text ?? ''))
    .join('\n');
}

export function errorCategoryOf(e: ModelApiError): ErrorCategory {
  switch (e.kind) {
    case 'missing_auth':
    case 'authentication':
    case 'permission':
      return 'authentication';
    case 'rate_limit':
      return 'rate_limit';
    case 'overloaded':
      return 'overloaded';
    case 'context_overflow':
    case 'request_too_large':
      return 'context_overflow';
    case 'invalid_request':
    case 'not_found':
      return 'invalid_request';
    case 'server_error':
      return 'server_error';
    case 'timeout':
    case 'stalled':
      return 'timeout';
    case 'connection':
    case 'stream_interrupted':
      return 'connection';
  }
}

function thinkingFor(s: SessionSettings): ThinkingConfig | undefined {
  if (s.maxThinkingTokens === 0) return undefined;
  if (s.maxThinkingTokens !== null && s.maxThinkingTokens > 0) return { type: 'enabled', budget_tokens: s.maxThinkingTokens };
  if (s.thinking === 'adaptive') return { type: 'adaptive' };
  return undefined;
}

export async function runTurn(tc: TurnContext, input: QueuedInput, signal: AbortSignal): Promise<TurnResult> {
  const { deps, settings, conversation } = tc;
  const t0 = deps.now();
  let apiMs = 0;
  let numTurns = 0;
  let resultText = '';
  let stopReason: string | null = null;
  const turnUsage = emptyTurnUsage();
  const turnCost = { value: 0 };
  const denials: PermissionDenialInfo[] = [];

  await tc.emit({ type: 'turn_started', userMessageUuids: [input.uuid] });
  if (tc.replayUserMessages) await tc.emit({ type: 'user_replay', uuid: input.uuid, content: input.content, isSynthetic: input.isSynthetic });

  const finish = (r: Partial<TurnResult> & Pick<TurnResult, 'kind' | 'isError' | 'terminalReason'>): TurnResult => ({
    resultText,
    errors: [],
    stopReason,
    durationMs: deps.now() - t0,
    durationApiMs: apiMs,
    numTurns,
    usage: turnUsage,
    modelUsage: tc.ledger.modelUsage(),
    totalCostUsd: tc.ledger.totalCostUsd,
    permissionDenials: denials,
    userMessageUuids: [input.uuid],
    resultIndex: tc.resultIndex,
    queuedTurnCount: tc.queuedCount(),
    ...r,
  });
  const fail = (kind: TurnResult['kind'], terminalReason: TerminalReason, error: TurnError): TurnResult =>
    finish({ kind, isError: true, terminalReason, errors: [error.message], error, resultText: '' });

  // UserPromptSubmit hooks see the prompt before the model does, and may refuse it.
  const prompt = await deps.turnHooks.userPromptSubmit(promptText(input.content), signal);
  deps.recorder.record({ type: 'user_prompt', uuid: input.uuid, content: input.content, isSynthetic: input.isSynthetic });
  conversation.appendUser(input.content);
  if (prompt.block !== undefined) {
    return fail('error_during_execution', 'hook_stopped', { category: 'permission', retryable: false, status: null, message: `Prompt blocked by a UserPromptSubmit hook: ${prompt.block}` });
  }
  for (const ctx of prompt.additionalContext) {
    const text = `<system-reminder>\n${ctx}\n</system-reminder>`;
    deps.recorder.record({ type: 'user_prompt', uuid: deps.newUuid(), content: [{ type: 'text', text }], isSynthetic: true });
    conversation.appendUser([{ type: 'text', text }]);
  }

  const useStructured = settings.jsonSchema !== undefined && deps.tools.get(STRUCTURED_OUTPUT_TOOL) !== undefined;
  const buildRequest = (model: string): ModelRequest => {
    // Per request, not per turn: an MCP server that connects during a turn offers its tools from the next model
    // round. Cheap: the registry caches the definitions until its set changes.
    const toolDefs = deps.tools.definitions();
    const thinking = thinkingFor(settings);
    const maxTokens = settings.maxOutputTokens ?? 32_000;
    const prompt = buildPrompt(
      settings.systemPrompt,
      {
        cwd: tc.shared.current.cwd,
        platform: process.platform,
        date: new Date(deps.now()).toISOString().slice(0, 10),
        model,
        additionalDirectories: tc.shared.current.additionalDirectories,
        ...deps.promptContext?.environment(),
      },
      deps.promptContext?.extras(),
    );
    return {
      model,
      max_tokens: thinking?.type === 'enabled' ? Math.max(maxTokens, thinking.budget_tokens + 4096) : maxTokens,
      system: prompt.system,
      // The project's context (environment, memory files) goes before the first user message, every request.
      messages: withContext(conversation.forRequest(), prompt.context),
      ...(toolDefs.length ? { tools: toolDefs } : {}),
      ...(thinking ? { thinking } : {}),
      metadata: { user_id: `agentd_session_${tc.sessionId}` },
      ...(tc.betas.length ? { betas: tc.betas } : {}),
    };
  };

  let stopHookActive = false;
  let structuredRetries = 0;
  const structuredExhausted = (): TurnResult =>
    fail('error_max_structured_output_retries', 'structured_output_retry_exhausted', {
      category: 'invalid_request',
      retryable: false,
      status: null,
      message: `No answer matching the JSON schema after ${MAX_STRUCTURED_RETRIES} retries.`,
    });
  for (;;) {
    if (settings.maxTurns !== undefined && numTurns >= settings.maxTurns) {
      return fail('error_max_turns', 'max_turns', { category: 'max_turns', retryable: false, status: null, message: `Reached the maximum number of turns (${settings.maxTurns}).` });
    }
    if (settings.maxBudgetUsd !== undefined && tc.ledger.totalCostUsd >= settings.maxBudgetUsd) {
      return fail('error_max_budget_usd', 'budget_exhausted', {
        category: 'max_budget',
        retryable: false,
        status: null,
        message: `Reached the maximum budget ($${settings.maxBudgetUsd}); spent $${tc.ledger.totalCostUsd.toFixed(6)}.`,
      });
    }
    numTurns++;
    const round: RoundOutcome = await runModelRound({
      deps,
      emit: tc.emit,
      turnSignal: signal,
      ledger: tc.ledger,
      turnUsage,
      addApiMs: (ms) => {
        apiMs += ms;
      },
      buildRequest,
      model: settings.model,
      fallbackModel: settings.fallbackModel,
      emitStreamEvents: tc.emitStreamEvents,
      turnCost,
      shared: tc.shared,
    });

    if (round.kind === 'failed') {
      const e = round.error;
      await tc.emit({
        type: 'assistant_block',
        uuid: deps.newUuid(),
        meta: { id: `msg_error_${deps.newUuid()}`, model: '<synthetic>', usage: { input_tokens: 0, output_tokens: 0 }, requestId: e.requestId },
        block: { type: 'text', text: apiErrorText(e) },
        error: assistantErrorName(e),
        ...(round.supersedes.length ? { supersedes: round.supersedes } : {}),
      });
      return fail('error_during_execution', e.kind === 'context_overflow' ? 'prompt_too_long' : 'api_error', {
        category: errorCategoryOf(e),
        retryable: e.retryable,
        status: e.status,
        ...(e.resetsAt ? { resetsAt: e.resetsAt } : {}),
        message: `API error${e.status ? ` ${e.status}` : ''} (${e.kind}): ${e.message}`,
      });
    }

    conversation.appendAssistant(round.blocks);
    collectDenials(round.records, denials);
    appendToolResults(conversation, round.records, (text) => deps.recorder.record({ type: 'user_prompt', uuid: deps.newUuid(), content: [{ type: 'text', text }], isSynthetic: true }));
    const interrupted = round.kind === 'aborted' || signal.aborted;
    const hostInterrupt = round.records.some((r) => r.interruptTurn);
    if (interrupted || hostInterrupt) {
      const marker = round.records.length ? MARKER_TOOLS : MARKER_STREAM;
      conversation.appendUser([{ type: 'text', text: marker }]);
      await tc.emit({ type: 'user_text', uuid: deps.newUuid(), text: marker });
      const byHost = !interrupted && hostInterrupt;
      stopReason = round.records.length ? 'tool_use' : null;
      const why = interrupted ? reasonOf(signal) : undefined;
      return fail('error_during_execution', round.kind === 'aborted' && round.streaming ? 'aborted_streaming' : 'aborted_tools', {
        category: byHost ? 'permission' : 'interrupted',
        retryable: !byHost,
        status: null,
        message: byHost ? 'The turn was ended by a permission decision (deny with interrupt).' : why?.kind === 'user_interrupted' || !why ? 'Interrupted by the user.' : `Stopped: ${why.kind}.`,
      });
    }

    const hookStop = round.records.find((r) => r.stopReason !== undefined);
    if (hookStop) {
      resultText = hookStop.stopReason ?? '';
      stopReason = 'tool_use';
      return finish({ kind: 'success', isError: false, terminalReason: 'hook_stopped' });
    }
    if (round.records.length > 0) {
      const so = useStructured ? round.records.find((r) => r.toolName === STRUCTURED_OUTPUT_TOOL) : undefined;
      if (so && so.outcome === 'success') {
        stopReason = 'tool_use';
        resultText = '';
        return finish({ kind: 'success', isError: false, terminalReason: 'completed', structuredOutput: so.data ?? structuredInput(round.blocks) });
      }
      if (so && ++structuredRetries > MAX_STRUCTURED_RETRIES) return structuredExhausted();
      continue;
    }
    stopReason = round.stopReason;
    resultText = textOf(round.blocks);
    if (stopReason === 'pause_turn') continue;
    if (useStructured) {
      // The answer has to come through the StructuredOutput tool; remind the model, a bounded number of times.
      if (++structuredRetries > MAX_STRUCTURED_RETRIES) return structuredExhausted();
      const uuid = deps.newUuid();
      const text = `You must give your final answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool, with input that matches its JSON schema.`;
      deps.recorder.record({ type: 'user_prompt', uuid, content: text, isSynthetic: true });
      conversation.appendUser(text);
      continue;
    }
    const stop = await deps.turnHooks.stop({ stopHookActive, lastAssistantMessage: resultText }, signal);
    if (stop.continueWith !== undefined && !signal.aborted) {
      stopHookActive = true;
      const uuid = deps.newUuid();
      deps.recorder.record({ type: 'user_prompt', uuid, content: stop.continueWith, isSynthetic: true });
      conversation.appendUser(stop.continueWith);
      continue;
    }
    return finish({ kind: 'success', isError: false, terminalReason: 'completed' });
  }
}

function structuredInput(blocks: readonly AssistantBlock[]): unknown {
  const call = blocks.find((b) => b.type === 'tool_use' && b.name === STRUCTURED_OUTPUT_TOOL);
  return call && call.type === 'tool_use' ? call.input : undefined;
}

function collectDenials(records: readonly CallRecord[], out: PermissionDenialInfo[]): void {
  for (const r of records) if (r.denial) out.push(r.denial);
}

/** One user message: every tool_result in tool_use order, then any hook-provided context. */
function appendToolResults(conversation: Conversation, records: readonly CallRecord[], record: (text: string) => void): void {
  if (records.length === 0) return;
  const content: UserBlock[] = records.map((r) => r.block);
  for (const r of records) {
    for (const ctx of r.additionalContext) {
      const text = `<system-reminder>\n${ctx}\n</system-reminder>`;
      // The tool results themselves are already in the transcript; the context follows them.
      record(text);
      content.push({ type: 'text', text });
    }
  }
  conversation.appendUser(content);
}

function apiErrorText(e: ModelApiError): string {
  if (e.kind === 'missing_auth' || e.kind === 'authentication') return `Authentication failed: ${e.message} · Please run /login or set ANTHROPIC_API_KEY.`;
  return `API Error${e.status ? ` ${e.status}` : ''}: ${e.message}`;
}

function assistantErrorName(e: ModelApiError): string {
  switch (e.kind) {
    case 'missing_auth':
    case 'authentication':
      return 'authentication_failed';
    case 'rate_limit':
      return 'rate_limit';
    case 'overloaded':
      return 'overloaded';
    case 'invalid_request':
    case 'context_overflow':
    case 'request_too_large':
      return 'invalid_request';
    case 'not_found':
      return 'model_not_found';
    case 'server_error':
      return 'server_error';
    default:
      return 'unknown';
  }
}
