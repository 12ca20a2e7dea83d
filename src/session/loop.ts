// The agent loop: model rounds and tool batches over one Thread until the turn ends, with exactly one
// TurnResult out. Reentrant: everything it needs comes in as parameters (toolset, model settings, system
// prompt, limits, abort signal, event sink, parent tool-use id), so the main session's turn is one caller and a
// tool that runs an agent of its own (a subagent) is another, with its own thread and toolset.
import type { AnyTool } from '../tools/tool.js';
import type { AssistantBlock, ModelApiError, ModelRequest, SystemBlock, ToolDefinition, Usage } from '../model/types.js';
import { type RequestProfile, requestDefaults } from '../model/request-defaults.js';
import { callTokens, messageTokens } from '../model/token-estimate.js';
import type { PermissionDenialInfo, SessionEvent, TerminalReason, TurnError, TurnResult } from '../thread/events.js';
import { isRecorded } from '../thread/recorder.js';
import type { Interjection, Thread } from '../thread/thread.js';
import type { SharedToolContext } from '../tools/tool.js';
import { reasonOf } from '../util/abort.js';
import type { SessionDeps, SessionSettings, TurnHooks } from './config.js';
import { modelForMode } from '../model/names.js';
import { PROMPT_TOO_LONG, describeApiError, errorCategoryOf, singleExchangeTooLong } from './errors.js';
import { type RoundOutcome, runModelRound } from './model-call.js';
import { type LoopCompaction, needsAutoCompact, runCompaction, threadTokens } from './loop-compaction.js';
import { withContext } from './system-prompt.js';
import { type UsageLedger, emptyTurnUsage } from './usage.js';

/** The tools a loop offers the model and runs (the session's registry, or a subagent's restricted set). */
export interface Toolset {
  get(name: string): AnyTool | undefined;
  /** A deny rule keeps this tool out of the session (the executor says so when the model calls it anyway). */
  withheld?(name: string): boolean;
  /** Asked per request: a set that changes during a turn (MCP servers connecting) offers its tools next round. */
  definitions(): ToolDefinition[];
}

/** The services a loop runs on; the same for the main loop and nested ones (tools and prompts differ). */
export type LoopServices = Pick<
  SessionDeps,
  'model' | 'hooks' | 'permissions' | 'toolEnv' | 'logger' | 'now' | 'newUuid' | 'random' | 'retry' | 'maxToolConcurrency' | 'progress' | 'entrypoint'
>;

/** Model settings and limits of one loop (a snapshot per turn; the session's setters change the next turn). */
export type LoopSettings = Pick<
  SessionSettings,
  'model' | 'fallbackModel' | 'request' | 'maxTurns' | 'maxBudgetUsd' | 'jsonSchema'
> &
  Partial<Pick<SessionSettings, 'planModel' | 'permissionMode'>>;

/** The model this round goes to: `opusplan`'s Opus while the permission mode is plan, else the session's. */
function roundModel(s: LoopSettings): string {
  return modelForMode({ model: s.model, ...(s.planModel !== undefined ? { planModel: s.planModel } : {}) }, s.permissionMode ?? 'default');
}

export interface AgentLoopParams {
  services: LoopServices;
  tools: Toolset;
  thread: Thread;
  settings: Readonly<LoopSettings>;
  /** The system prompt for a request to `model`. */
  system: (model: string) => SystemBlock[];
  /** Text blocks put before the first user message of every request (the main session's environment and memory files). */
  context?: (model: string) => readonly string[];
  /** Stop hooks (the main loop); a nested loop passes none. */
  stopHook?: TurnHooks['stop'];
  ledger: UsageLedger;
  /** The shared tool context (cwd); tools' context modifiers replace `current`. */
  shared: { current: SharedToolContext };
  signal: AbortSignal;
  /** Where events go; the loop records the conversational ones in its thread first (write-ahead). */
  sink: (ev: SessionEvent) => void | Promise<void>;
  /** Set for a nested loop: the tool_use id of the call that runs it; every event carries it. */
  parentToolUseId?: string;
  emitStreamEvents: boolean;
  /** `--betas`: sent after the ones Claude Code would send. */
  betas: readonly string[];
  profile: RequestProfile;
  /** `metadata.user_id` of requests (userIdFor). */
  userId: string;
  /** For the result: when the turn started, which user messages it answers, and the session's counters. */
  startedAt: number;
  userMessageUuids: string[];
  resultIndex: number;
  queuedCount: () => number;
  /** Automatic compaction and prompt-too-long recovery; without it the loop never compacts. */
  compaction?: LoopCompaction;
  /** An automatic compaction already failed this turn (the one before the prompt): not tried again each round. */
  autoCompactFailed?: boolean;
  /** User messages that join the turn after a round's tool results (the main loop: session/fold.ts). */
  interjections?: () => Promise<readonly Interjection[]>;
}

const MARKER_STREAM = '[Request interrupted by user]';
const MARKER_TOOLS = '[Request interrupted by user for tool use]';
/** The usage of a synthetic (API error) assistant message: zero, in the shape Claude Code sends it. */
const SYNTHETIC_USAGE: Usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
  service_tier: null,
  cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
};
const MAX_STRUCTURED_RETRIES = 3;
/** Name of the synthetic tool through which a --json-schema answer is given (as in Claude Code). */
export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';

function textOf(blocks: readonly AssistantBlock[]): string {
  return blocks
    .filter((b): b is Extract<AssistantBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/** Claude Code's `metadata.user_id`: a JSON object in a string (no account uuid: agentd signs no one in). */
export function userIdFor(deviceId: string, sessionId: string): string {
  return JSON.stringify({ device_id: deviceId, account_uuid: '', session_id: sessionId });
}

/** The counters of one loop run, for its result. */
class RunTotals {
  apiMs = 0;
  numTurns = 0;
  resultText = '';
  stopReason: string | null = null;
  readonly usage = emptyTurnUsage();
  readonly cost = { value: 0 };
  readonly denials: PermissionDenialInfo[] = [];
}

/** A result for a turn that ended before the loop ran (a blocked prompt, say). */
export function earlyResult(p: Pick<AgentLoopParams, 'services' | 'ledger' | 'startedAt' | 'userMessageUuids' | 'resultIndex' | 'queuedCount'>, kind: TurnResult['kind'], terminalReason: TerminalReason, error: TurnError): TurnResult {
  return resultOf(p, new RunTotals(), { kind, isError: true, terminalReason, errors: [error.message], error, resultText: '' });
}

function resultOf(
  p: Pick<AgentLoopParams, 'services' | 'ledger' | 'startedAt' | 'userMessageUuids' | 'resultIndex' | 'queuedCount'>,
  t: RunTotals,
  r: Partial<TurnResult> & Pick<TurnResult, 'kind' | 'isError' | 'terminalReason'>,
): TurnResult {
  return {
    resultText: t.resultText,
    errors: [],
    stopReason: t.stopReason,
    durationMs: p.services.now() - p.startedAt,
    durationApiMs: t.apiMs,
    numTurns: t.numTurns,
    usage: t.usage,
    modelUsage: p.ledger.modelUsage(),
    totalCostUsd: p.ledger.totalCostUsd,
    permissionDenials: t.denials,
    userMessageUuids: p.userMessageUuids,
    resultIndex: p.resultIndex,
    queuedTurnCount: p.queuedCount(),
    ...r,
  };
}

/** Runs the loop over `p.thread` (whose last message is the user's) until the turn ends. */
export async function runAgentLoop(p: AgentLoopParams): Promise<TurnResult> {
  const { services: deps, settings, thread, signal } = p;
  const t = new RunTotals();
  const parent = p.parentToolUseId;
  // Conversational events are recorded in the thread before they are reported (write-ahead); a nested loop's
  // events carry the id of the call that runs it.
  const emit = (ev: SessionEvent): void | Promise<void> => {
    if (ev.type === 'assistant_block' || ev.type === 'tool_result') thread.record(ev);
    else if (isRecorded(ev)) throw new Error(`${ev.type} must go through the thread`);
    return p.sink(parent === undefined ? ev : withParent(ev, parent));
  };
  const finish = (r: Partial<TurnResult> & Pick<TurnResult, 'kind' | 'isError' | 'terminalReason'>): TurnResult => resultOf(p, t, r);
  const fail = (kind: TurnResult['kind'], terminalReason: TerminalReason, error: TurnError): TurnResult =>
    finish({ kind, isError: true, terminalReason, errors: [error.message], error, resultText: '' });
  // A model API error ends the turn as Claude Code 2.1.330 ends it (measured: test/measure/api-error-results.measure.ts):
  // a synthetic assistant message with the error's text, then a `success` result with is_error and that text as
  // its `result`; agentd's own classification rides along in agentd_error.
  const apiErrorEnd = async (e: ModelApiError, supersedes: readonly string[], text?: string): Promise<TurnResult> => {
    const report = describeApiError(e, { model: settings.model, provider: deps.model.provider, endpoint: deps.model.endpoint, entrypoint: deps.entrypoint });
    const resultText = text ?? report.text;
    // Claude Code's wording is short ("Not logged in · Please run /login"); agentd's own explanation goes to the log.
    deps.logger.warn({ kind: e.kind, status: e.status, err: e.message }, 'the model API call failed; the turn ends');
    const apiError = { status: e.status, type: e.apiType };
    await emit({
      type: 'assistant_block',
      uuid: deps.newUuid(),
      meta: { id: deps.newUuid(), model: '<synthetic>', usage: SYNTHETIC_USAGE, requestId: e.requestId },
      block: { type: 'text', text: resultText },
      error: report.error,
      apiError,
      ...(supersedes.length ? { supersedes: [...supersedes] } : {}),
    });
    t.stopReason = 'stop_sequence';
    t.resultText = resultText;
    return finish({
      kind: 'success',
      isError: true,
      terminalReason: report.terminalReason,
      errors: [resultText],
      apiError,
      error: { category: errorCategoryOf(e), retryable: e.retryable, status: e.status, ...(e.resetsAt ? { resetsAt: e.resetsAt } : {}), message: resultText },
    });
  };

  const useStructured = settings.jsonSchema !== undefined && p.tools.get(STRUCTURED_OUTPUT_TOOL) !== undefined;
  const buildRequest = (model: string): ModelRequest => {
    const toolDefs = p.tools.definitions();
    // Thinking, effort, max_tokens and betas as Claude Code sends them for this model (request-defaults.ts).
    const { betas, ...fields } = requestDefaults(model, settings.request, p.profile);
    for (const b of p.betas) if (!betas.includes(b)) betas.push(b);
    return {
      model,
      system: p.system(model),
      messages: p.context ? withContext(thread.forRequest(), p.context(model)) : thread.forRequest(),
      ...(toolDefs.length ? { tools: toolDefs } : {}),
      metadata: { user_id: p.userId },
      ...fields,
      ...(betas.length ? { betas } : {}),
    };
  };

  let stopHookActive = false;
  let structuredRetries = 0;
  let autoCompactFailed = p.autoCompactFailed === true;
  let afterTools = false;
  let overflowCompacted = false;
  const compact = (c: LoopCompaction, trigger: 'auto', preTokens: number) =>
    runCompaction(c, {
      services: deps,
      tools: p.tools,
      thread,
      model: settings.model,
      fallbackModel: settings.fallbackModel,
      system: p.system(settings.model),
      trigger,
      next: 'work',
      customInstructions: undefined,
      preTokens,
      emit: p.sink,
      ledger: p.ledger,
      addApiMs: (ms) => {
        t.apiMs += ms;
      },
      shared: p.shared,
      signal,
    });
  const structuredExhausted = (): TurnResult =>
    fail('error_max_structured_output_retries', 'structured_output_retry_exhausted', {
      category: 'invalid_request',
      retryable: false,
      status: null,
      message: `No answer matching the JSON schema after ${MAX_STRUCTURED_RETRIES} retries.`,
    });
  for (;;) {
    if (settings.maxTurns !== undefined && t.numTurns >= settings.maxTurns) {
      return fail('error_max_turns', 'max_turns', { category: 'max_turns', retryable: false, status: null, message: `Reached the maximum number of turns (${settings.maxTurns}).` });
    }
    if (settings.maxBudgetUsd !== undefined && p.ledger.totalCostUsd >= settings.maxBudgetUsd) {
      return fail('error_max_budget_usd', 'budget_exhausted', {
        category: 'max_budget',
        retryable: false,
        status: null,
        message: `Reached the maximum budget ($${settings.maxBudgetUsd}); spent $${p.ledger.totalCostUsd.toFixed(6)}.`,
      });
    }
    if (p.compaction && !autoCompactFailed) {
      const tokens = threadTokens(thread, p.system(settings.model), p.tools.definitions());
      if (needsAutoCompact(p.compaction, settings.model, tokens)) {
        const r = await compact(p.compaction, 'auto', tokens);
        if (r.kind === 'failed') autoCompactFailed = true;
        if (signal.aborted) return fail('error_during_execution', 'aborted_streaming', { category: 'interrupted', retryable: true, status: null, message: 'Interrupted by the user.' });
      }
    }
    // The next request answers tool results: messages the user sent meanwhile join the turn here, after the results
    // (merged into their user message), now that the turn is sure to ask the model again.
    if (afterTools && p.interjections) for (const i of await p.interjections()) thread.appendUser(i.content, { uuid: i.uuid, isSynthetic: false });
    afterTools = false;
    t.numTurns++;
    const usageBefore = callTokens(t.usage);
    const round: RoundOutcome = await runModelRound({
      deps,
      tools: p.tools,
      emit,
      turnSignal: signal,
      ledger: p.ledger,
      turnUsage: t.usage,
      addApiMs: (ms) => {
        t.apiMs += ms;
      },
      buildRequest,
      model: roundModel(settings),
      fallbackModel: settings.fallbackModel,
      emitStreamEvents: p.emitStreamEvents,
      turnCost: t.cost,
      shared: p.shared,
    });

    // A thread of one message is not compacted (the summary request would carry that message itself): Claude
    // Code's words for it. Nor is a thread whose automatic compaction already failed this turn.
    if (round.kind === 'failed' && round.error.kind === 'context_overflow' && thread.length <= 1) {
      return apiErrorEnd(round.error, round.supersedes, singleExchangeTooLong(round.error.message, messageTokens(thread.messages)));
    }
    if (round.kind === 'failed' && round.error.kind === 'context_overflow' && p.compaction && !overflowCompacted && !p.compaction.settings.disabled && !autoCompactFailed) {
      // The API refused the prompt as too long: compact once and retry the round; a second refusal is final.
      overflowCompacted = true;
      t.numTurns--;
      const r = await compact(p.compaction, 'auto', threadTokens(thread, p.system(settings.model), p.tools.definitions()));
      if (r.kind === 'compacted') continue;
      t.numTurns++;
      return apiErrorEnd(round.error, round.supersedes, `${PROMPT_TOO_LONG} · automatic compaction failed: ${r.reason}`);
    }
    if (round.kind === 'failed') return apiErrorEnd(round.error, round.supersedes);

    thread.appendRound(round.blocks, round.records);
    if (round.kind === 'complete') thread.markCounted(callTokens(t.usage) - usageBefore, round.records.length ? 1 : 0);
    for (const r of round.records) if (r.denial) t.denials.push(r.denial);
    const interrupted = round.kind === 'aborted' || signal.aborted;
    const hostInterrupt = round.records.some((r) => r.interruptTurn);
    if (interrupted || hostInterrupt) {
      const marker = round.records.length ? MARKER_TOOLS : MARKER_STREAM;
      const ev = thread.appendUserText(deps.newUuid(), marker);
      await p.sink(parent === undefined ? ev : withParent(ev, parent));
      const byHost = !interrupted && hostInterrupt;
      t.stopReason = round.records.length ? 'tool_use' : null;
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
      t.resultText = hookStop.stopReason ?? '';
      t.stopReason = 'tool_use';
      return finish({ kind: 'success', isError: false, terminalReason: 'hook_stopped' });
    }
    if (round.records.length > 0) {
      const so = useStructured ? round.records.find((r) => r.toolName === STRUCTURED_OUTPUT_TOOL) : undefined;
      if (so && so.outcome === 'success') {
        const structuredOutput = so.data ?? structuredInput(round.blocks);
        t.stopReason = 'tool_use';
        // The answer as JSON text too, as Claude Code 2.1.330 gives it (measured): `-p --output-format text` prints it.
        t.resultText = JSON.stringify(structuredOutput) ?? '';
        return finish({ kind: 'success', isError: false, terminalReason: 'completed', structuredOutput });
      }
      if (so && ++structuredRetries > MAX_STRUCTURED_RETRIES) return structuredExhausted();
      afterTools = true;
      continue;
    }
    t.stopReason = round.stopReason;
    t.resultText = textOf(round.blocks);
    if (t.stopReason === 'pause_turn') continue;
    if (useStructured) {
      // The answer has to come through the StructuredOutput tool; remind the model, a bounded number of times.
      if (++structuredRetries > MAX_STRUCTURED_RETRIES) return structuredExhausted();
      thread.appendUser(`You must give your final answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool, with input that matches its JSON schema.`, { isSynthetic: true });
      continue;
    }
    const stop = p.stopHook ? await p.stopHook({ stopHookActive, lastAssistantMessage: t.resultText }, signal) : {};
    if (stop.continueWith !== undefined && !signal.aborted) {
      stopHookActive = true;
      thread.appendUser(stop.continueWith, { isSynthetic: true });
      continue;
    }
    return finish({ kind: 'success', isError: false, terminalReason: 'completed' });
  }
}

function structuredInput(blocks: readonly AssistantBlock[]): unknown {
  const call = blocks.find((b) => b.type === 'tool_use' && b.name === STRUCTURED_OUTPUT_TOOL);
  return call && call.type === 'tool_use' ? call.input : undefined;
}

/** The event as a nested loop reports it: stamped with the id of the tool call that runs the loop. */
function withParent(ev: SessionEvent, parentToolUseId: string): SessionEvent {
  switch (ev.type) {
    case 'stream':
    case 'assistant_block':
    case 'tool_result':
    case 'user_text':
    case 'tool_progress':
      return { ...ev, parentToolUseId };
    default:
      return ev;
  }
}

