// One model round trip: open the stream (retrying what can be retried), turn events into blocks, hand each
// completed tool_use to a fresh executor while the stream is still going, and wait for every call's result.
// A stream that breaks mid-message is retried with a new executor; the broken attempt's executor is discarded.
import { StreamingToolExecutor, type CallRecord } from '../executor/executor.js';
import type { AssistantBlock, ModelRequest, Usage } from '../model/types.js';
import { outputTokens } from '../model/token-estimate.js';
import type { SharedToolContext } from '../tools/tool.js';
import { ModelApiError } from '../model/types.js';
import { childController, sleep } from '../util/abort.js';
import { MessageAccumulator } from './accumulator.js';
import type { SessionEvent, TurnUsage } from '../thread/events.js';
import type { LoopServices, Toolset } from './loop.js';
import { type RetryPolicy, retryDelayMs } from './retry.js';
import type { UsageLedger } from './usage.js';

export type RoundOutcome =
  | {
      kind: 'complete';
      blocks: AssistantBlock[];
      records: CallRecord[];
      stopReason: string | null;
      model: string;
    }
  | {
      kind: 'aborted';
      /** What to keep of the cut message (complete blocks and partial text). */
      blocks: AssistantBlock[];
      records: CallRecord[];
      streaming: boolean;
    }
  | {
      kind: 'failed';
      error: ModelApiError;
      blocks: AssistantBlock[];
      records: CallRecord[];
      /** Assistant frames already reported by the failed attempts (not part of the conversation). */
      supersedes: string[];
    };

export interface RoundContext {
  deps: LoopServices;
  tools: Toolset;
  emit: (ev: SessionEvent) => void | Promise<void>;
  turnSignal: AbortSignal;
  ledger: UsageLedger;
  turnUsage: TurnUsage;
  addApiMs: (ms: number) => void;
  buildRequest: (model: string) => ModelRequest;
  model: string;
  fallbackModel: string | undefined;
  emitStreamEvents: boolean;
  /** Cost of this turn so far (for the per-call usage event). */
  turnCost: { value: number };
  /** The session's shared tool context; tools' context modifiers replace `current`. */
  shared: { current: SharedToolContext };
  /**
   * `conversation` (the default): a turn's round — the request, its blocks, stream events and usage are reported
   * and its tool calls run. `retries_only`: a compaction's summary request, whose answer is not part of the
   * conversation — the same attempts, retries, watchdog and fallback, but only its api_retry events are reported
   * and a tool call in the answer is not run.
   */
  reporting?: 'conversation' | 'retries_only';
}

function toModelError(err: unknown): ModelApiError {
  if (err instanceof ModelApiError) return err;
  if (err instanceof Error) return new ModelApiError('connection', err.message, { cause: err });
  return new ModelApiError('connection', String(err));
}


export async function runModelRound(input: RoundContext): Promise<RoundOutcome> {
  const quiet = input.reporting === 'retries_only';
  const rc: RoundContext = quiet ? { ...input, emit: (ev) => (ev.type === 'api_retry' ? input.emit(ev) : undefined), emitStreamEvents: false } : input;
  const { deps, turnSignal } = rc;
  const policy = deps.retry;
  let model = rc.model;
  let overloads = 0;
  let supersedes: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const attemptCtl = childController(turnSignal);
    const executor = new StreamingToolExecutor(
      {
        tools: rc.tools,
        hooks: deps.hooks,
        permissions: deps.permissions,
        maxConcurrency: deps.maxToolConcurrency,
        env: deps.toolEnv,
        getShared: () => rc.shared.current,
        setShared: (c) => {
          rc.shared.current = c;
        },
        emit: (ev) => void rc.emit(ev),
        now: deps.now,
        newUuid: deps.newUuid,
        logger: deps.logger,
        progress: deps.progress,
      },
      turnSignal,
    );
    const acc = new MessageAccumulator();
    const emittedUuids: string[] = [];
    const started = deps.now();
    let firstEventAt: number | undefined;
    // One timer for the whole attempt, re-armed with refresh() (no allocation per event): first the wait for the
    // response, then the allowed silence between events.
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const arm = (ms: number, what: string): void => {
      if (watchdog) clearTimeout(watchdog);
      watchdog = setTimeout(() => attemptCtl.abort(new ModelApiError('stalled', `No ${what} from the model API in ${ms} ms.`)), ms);
      watchdog.unref?.();
    };
    const modelRequest = rc.emit({ type: 'model_request', attempt });
    if (modelRequest) await modelRequest;
    let requestId: string | undefined;
    let mapError: ((err: unknown) => unknown) | undefined;
    try {
      arm(policy.firstEventTimeoutMs, 'response');
      const stream = await deps.model.open(rc.buildRequest(model), attemptCtl.signal);
      requestId = stream.requestId;
      mapError = stream.mapError;
      for await (const ev of stream.events) {
        if (firstEventAt === undefined) {
          firstEventAt = deps.now();
          arm(policy.idleTimeoutMs, 'stream event');
        } else watchdog?.refresh();
        const done = acc.push(ev);
        if (done) {
          const uuid = deps.newUuid();
          emittedUuids.push(uuid);
          // The completed block is reported before its content_block_stop stream event (Claude Code's order).
          const w = rc.emit({
            type: 'assistant_block',
            uuid,
            meta: { id: acc.id ?? 'msg_unknown', model: acc.model ?? model, usage: acc.usage, requestId },
            block: done.block,
            ...(supersedes.length && emittedUuids.length === 1 ? { supersedes } : {}),
          });
          if (w) await w;
          if (done.block.type === 'tool_use' && !quiet) executor.add(done.block, done.parseError);
        }
        if (rc.emitStreamEvents && ev.type !== 'ping') {
          const w = rc.emit(
            ev.type === 'message_start'
              ? { type: 'stream', event: ev, messageId: acc.id ?? 'msg_unknown', ttftMs: (firstEventAt ?? started) - started }
              : { type: 'stream', event: ev, messageId: acc.id ?? 'msg_unknown' },
          );
          if (w) await w;
        }
      }
      attemptCtl.release();
      if (!acc.stopped) throw new ModelApiError('stream_interrupted', 'The response stream ended before message_stop.');
      if (watchdog) clearTimeout(watchdog);
      rc.addApiMs(deps.now() - started);
      await recordUsage(rc, model, acc.usage);
      executor.release();
      const records = await executor.settle();
      return { kind: 'complete', blocks: acc.completedBlocks(), records, stopReason: acc.stopReason, model: acc.model ?? model };
    } catch (err) {
      attemptCtl.release();
      if (watchdog) clearTimeout(watchdog);
      rc.addApiMs(deps.now() - started);
      if (turnSignal.aborted) {
        // User interrupt (or shutdown): keep what is real, close the cut message for stream consumers.
        const kept = acc.keptOnAbort();
        if (acc.started) await recordUsage(rc, model, { ...acc.usage, output_tokens: Math.max(acc.usage.output_tokens, outputTokens(kept.blocks)) });
        if (kept.partialText) {
          await rc.emit({
            type: 'assistant_block',
            uuid: deps.newUuid(),
            meta: { id: acc.id ?? 'msg_unknown', model: acc.model ?? model, usage: acc.usage, requestId },
            block: kept.partialText.block,
            aborted: true,
          });
        }
        if (rc.emitStreamEvents && acc.started && !acc.stopped) await closeStream(rc, acc);
        executor.release();
        const records = await executor.settle();
        return { kind: 'aborted', blocks: kept.blocks, records, streaming: !acc.stopped };
      }
      const error = toModelError(mapError ? mapError(err) : err);
      executor.discard();
      await executor.settle();
      if (acc.started) await recordUsage(rc, model, acc.usage);
      if (error.kind === 'overloaded') overloads++;
      else overloads = 0;
      const wait = error.retryable ? waitBeyondBound(error, policy, deps.now()) : undefined;
      if (!error.retryable || attempt >= policy.maxAttempts || wait) {
        return { kind: 'failed', error: wait ?? error, blocks: [], records: [], supersedes: emittedUuids.length ? emittedUuids : supersedes };
      }
      const delayMs = retryDelayMs(policy, attempt, error, deps.random);
      deps.logger.warn({ attempt, status: error.status, kind: error.kind, delay_ms: delayMs, err: error.message }, 'model call failed; retrying');
      await rc.emit({
        type: 'api_retry',
        attempt,
        maxRetries: policy.maxAttempts - 1,
        delayMs,
        status: error.status,
        error: retryErrorName(error),
      });
      supersedes = emittedUuids.length ? emittedUuids : supersedes;
      if (rc.fallbackModel && model !== rc.fallbackModel && overloads >= policy.fallbackAfterOverloads) {
        deps.logger.warn({ from: model, to: rc.fallbackModel }, 'repeated overload; switching to the fallback model');
        model = rc.fallbackModel;
      }
      try {
        await sleep(delayMs, turnSignal);
      } catch {
        return { kind: 'aborted', blocks: [], records: [], streaming: true };
      }
    } finally {
      // The attempt is over whichever way it ended: its controller stops listening to the turn's signal.
      attemptCtl.release();
    }
  }
}

/**
 * Usage is counted under the model name the request was made for (`claude-sonnet-4-5[1m]`, `opusplan`'s Opus), as
 * Claude Code keys modelUsage: its price and context window are that name's, whatever id the API echoes back.
 */
async function recordUsage(rc: RoundContext, model: string, usage: Usage): Promise<void> {
  const before = rc.ledger.totalCostUsd;
  const c = rc.ledger.record(model, usage, rc.turnUsage);
  rc.turnCost.value += rc.ledger.totalCostUsd - before;
  await rc.emit({
    type: 'usage',
    model,
    call: {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
      cost_usd: c.costUsd,
    },
    turnCostUsd: rc.turnCost.value,
    totalCostUsd: rc.ledger.totalCostUsd,
  });
}

/**
 * A retryable error whose `retry-after` asks for a longer wait than a turn retries through (an hourly quota's
 * 429 says 3600 s): the turn ends at once, as Claude Code 2.1.330 ends it (it retries waits up to 60 s and answers
 * longer ones at once, measured), with the API's message and the time it named. Retrying would hold the turn
 * for ten attempts at the cap instead, each refused the same way. Undefined when the wait is within the bound.
 */
function waitBeyondBound(e: ModelApiError, policy: RetryPolicy, now: number): ModelApiError | undefined {
  if (e.retryAfterMs === undefined || e.retryAfterMs <= policy.maxRetryAfterMs) return undefined;
  const until = new Date(now + e.retryAfterMs).toISOString();
  const message = `${e.message} (the API asks to retry after ${Math.round(e.retryAfterMs / 1000)} s, at ${until}; a turn waits for at most ${Math.round(policy.maxRetryAfterMs / 1000)} s)`;
  return new ModelApiError(e.kind, message, {
    status: e.status,
    retryAfterMs: e.retryAfterMs,
    resetsAt: e.resetsAt ?? until,
    ...(e.requestId !== undefined ? { requestId: e.requestId } : {}),
    cause: e,
  });
}

function retryErrorName(e: ModelApiError): string {
  switch (e.kind) {
    case 'overloaded':
      return 'overloaded';
    case 'rate_limit':
      return 'rate_limit';
    case 'server_error':
      return 'server_error';
    default:
      return 'unknown';
  }
}

async function closeStream(rc: RoundContext, acc: MessageAccumulator): Promise<void> {
  const messageId = acc.id ?? 'msg_unknown';
  for (const index of acc.openBlockIndexes()) {
    await rc.emit({ type: 'stream', event: { type: 'content_block_stop', index }, messageId });
  }
  const usage: Partial<Usage> & { output_tokens: number } = { output_tokens: acc.usage.output_tokens };
  await rc.emit({ type: 'stream', event: { type: 'message_delta', delta: { stop_reason: null, stop_sequence: null }, usage }, messageId });
  await rc.emit({ type: 'stream', event: { type: 'message_stop' }, messageId });
}

