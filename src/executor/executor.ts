// The streaming tool executor. Calls are queued as their tool_use blocks complete, start as soon as the
// concurrency gate allows, and each ends with exactly one result, whatever happens (error, deny, interrupt,
// sibling failure, discarded attempt). Results are reported in completion order and returned to the
// session in tool_use order. A call's life is a typed state machine (call-state.ts).
//
// Gate: a call may start when nothing is executing, or when it is concurrency-safe and everything executing is
// safe, and fewer than `maxConcurrency` run. The queue is scanned in order and the scan stops at the first call
// that cannot start (a barrier: nothing behind an exclusive call starts early, nor behind one whose
// concurrency answer is still pending).
import type { Logger } from '../log/logger.js';
import type { ToolUseBlock } from '../model/types.js';
import type { DecisionMeta, SessionEvent, ToolOutcomeKind } from '../thread/events.js';
import { AbortReason, reasonOf } from '../util/abort.js';
import type { AnyTool, SharedToolContext, ToolEnvironment } from '../tools/tool.js';
import { type Call, type CallErrorKind, type CallPhase, type CallRecord, type ReadyCall, type StartedCall, isEnded, isStarted, isWaiting } from './call-state.js';
import * as msg from './messages.js';
import type { PermissionGate, ToolHooks } from './pipeline.js';
import { type ProgressOptions, ProgressShaper } from './progress.js';
import { runPipeline } from './run-call.js';

export type { CallRecord } from './call-state.js';

export interface ToolLookup {
  get(name: string): AnyTool | undefined;
  /** A deny rule keeps this tool out of the session: a call of it is told so, not just that the name is unknown. */
  withheld?(name: string): boolean;
}

export interface ExecutorDeps {
  tools: ToolLookup;
  hooks: ToolHooks;
  permissions: PermissionGate;
  maxConcurrency: number;
  env: ToolEnvironment;
  getShared(): SharedToolContext;
  setShared(ctx: SharedToolContext): void;
  emit(event: SessionEvent): void;
  now(): number;
  newUuid(): string;
  logger: Logger;
  progress: ProgressOptions;
}

/** A result on its way to `finish`, with what only the event and the log need. */
interface Ending {
  record: CallRecord;
  errorKind: CallErrorKind | undefined;
  data?: unknown;
  decision?: DecisionMeta;
  nonExecutionKind?: string;
}

export class StreamingToolExecutor {
  /** Indexed by tool_use order; a call's entry is replaced as its state changes. */
  private readonly calls: Call[] = [];
  private readonly held: SessionEvent[] = [];
  private released = false;
  private discarded = false;
  private siblingFailure: { name: string; id: string; summary: string } | undefined;
  private ended = 0;
  private waiters: Array<() => void> = [];
  private pendingModifiers: Array<{ index: number; apply: (c: SharedToolContext) => SharedToolContext }> = [];
  private readonly onTurnAbort = (): void => this.handleTurnAbort();

  constructor(
    private readonly deps: ExecutorDeps,
    private readonly turnSignal: AbortSignal,
  ) {
    turnSignal.addEventListener('abort', this.onTurnAbort, { once: true });
  }

  get size(): number {
    return this.calls.length;
  }

  /** Each call's state with its kind of error, in tool_use order (diagnostics and tests). */
  states(): Array<{ id: string; state: Call['state']; errorKind?: CallErrorKind }> {
    return this.calls.map((c) => ({ id: c.block.id, state: c.state, ...(isEnded(c) && c.errorKind !== undefined ? { errorKind: c.errorKind } : {}) }));
  }

  /** Queues a completed tool_use block; it may start at once. */
  add(block: ToolUseBlock, parseError?: string): void {
    const index = this.calls.length;
    const tool = this.deps.tools.get(block.name);
    let immediate: { text: string; kind: CallErrorKind } | undefined;
    let parsed: unknown;
    if (!tool) immediate = { text: this.deps.tools.withheld?.(block.name) === true ? msg.withheldTool(block.name) : msg.noSuchTool(block.name), kind: 'unknown_tool' };
    else if (parseError !== undefined) immediate = { text: msg.unparsableInput(block.name, parseError), kind: 'input_validation' };
    else {
      const r = tool.inputSchema.safeParse(block.input);
      if (!r.success) immediate = { text: msg.inputValidationError(block.name, r.error.issues, block.input), kind: 'input_validation' };
      else parsed = r.data;
    }
    // Answered without running: the call goes straight to its end state.
    if (this.discarded) return this.complete(index, block, this.synthetic(block, msg.DISCARDED_BY_FALLBACK, 'cancelled'), undefined);
    if (immediate !== undefined) {
      // Nothing runs, so nothing can conflict: answer at once (Claude Code does the same).
      return this.complete(index, block, this.errorEnding(block, immediate.text, immediate.kind), undefined);
    }
    if (this.turnSignal.aborted) return this.complete(index, block, this.synthetic(block, msg.INTERRUPTED_BEFORE_START, 'cancelled', msg.USER_REJECTED, 'user-rejected'), undefined);
    if (this.siblingFailure) return this.complete(index, block, this.synthetic(block, msg.cancelledBySibling(this.siblingFailure), 'cancelled'), undefined);
    const t = tool as AnyTool;
    let safety: boolean | Promise<boolean>;
    try {
      safety = t.isConcurrencySafe(parsed);
    } catch {
      safety = false;
    }
    if (typeof safety === 'boolean') {
      this.calls[index] = { index, block, state: 'ready', tool: t, parsed, safe: safety };
      this.schedule();
      return;
    }
    this.calls[index] = { index, block, state: 'queued', tool: t, parsed };
    safety.then(
      (v) => this.analyzed(index, v === true),
      () => this.analyzed(index, false),
    );
  }

  private analyzed(index: number, safe: boolean): void {
    const call = this.calls[index];
    if (call?.state !== 'queued') return;
    this.calls[index] = { index, block: call.block, state: 'ready', tool: call.tool, parsed: call.parsed, safe };
    this.schedule();
  }

  /** The model message that produced these calls ended cleanly: results may now be reported. */
  release(): void {
    if (this.released || this.discarded) return;
    this.released = true;
    for (const ev of this.held.splice(0)) this.deps.emit(ev);
  }

  /** Streaming fallback: the attempt is void. Nothing more starts; running calls are aborted; no result leaks. */
  discard(): void {
    if (this.discarded) return;
    this.discarded = true;
    this.held.length = 0;
    const reason = new AbortReason('streaming_fallback');
    for (const c of this.calls) {
      if (isStarted(c)) c.controller.abort(reason);
      else if (isWaiting(c)) this.finish(c.index, this.synthetic(c.block, msg.DISCARDED_BY_FALLBACK, 'cancelled'));
    }
  }

  /** Resolves when every call has its result; records in tool_use order. */
  async settle(): Promise<CallRecord[]> {
    while (this.ended < this.calls.length) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.turnSignal.removeEventListener('abort', this.onTurnAbort);
    this.applyPendingModifiers();
    this.release();
    return this.calls.map((c) => {
      if (!isEnded(c)) throw new Error(`call ${c.block.id} settled in state ${c.state}`);
      return c.record;
    });
  }

  private canStart(call: ReadyCall): boolean {
    const running = this.calls.filter(isStarted);
    if (running.length >= this.deps.maxConcurrency) return false;
    if (running.length === 0) return true;
    return call.safe && running.every((c) => c.safe);
  }

  private schedule(): void {
    for (const call of this.calls) {
      if (call.state === 'queued') return;
      if (call.state !== 'ready') continue;
      if (this.discarded || this.turnSignal.aborted) return;
      if (!this.canStart(call)) return;
      this.start(call);
    }
  }

  private start(ready: ReadyCall): void {
    const { index, block, tool, parsed, safe } = ready;
    const call: StartedCall = { index, block, tool, parsed, safe, state: 'validating', controller: new AbortController(), startedAt: this.deps.now() };
    this.calls[index] = call;
    const current = (): Call | undefined => this.calls[index];
    const shaper = new ProgressShaper(this.deps.progress, () => this.deps.now(), (p) => {
      const c = current();
      if (this.discarded || c === undefined || !isStarted(c)) return;
      this.deps.emit({
        type: 'tool_progress',
        toolUseId: block.id,
        toolName: block.name,
        elapsedSeconds: Math.round((this.deps.now() - call.startedAt) / 100) / 10,
        progress: p,
      });
    });
    const signal = call.controller.signal;
    const aborted = new Promise<'aborted'>((resolve) => {
      if (signal.aborted) resolve('aborted');
      else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
    });
    const work = runPipeline({
      tool,
      block,
      parsed,
      deps: this.deps,
      signal,
      onProgress: (u) => shaper.update(u),
      onPhase: (phase: CallPhase) => {
        const c = current();
        if (c !== undefined && isStarted(c)) this.calls[index] = { ...c, state: phase };
      },
    });
    // An aborted call is answered at once; a tool that ignores its signal cannot hold the turn hostage.
    void Promise.race([work, aborted]).then(
      (r) => {
        shaper.stop();
        if (r === 'aborted') return this.finishAborted(call);
        if (r.contextModifier) {
          if (safe) this.pendingModifiers.push({ index, apply: r.contextModifier });
          else this.deps.setShared(r.contextModifier(this.deps.getShared()));
        }
        const record: CallRecord = {
          toolUseId: block.id,
          toolName: block.name,
          block: r.block,
          outcome: r.outcome,
          additionalContext: r.additionalContext,
          ...(r.outcome === 'success' ? { data: r.data } : {}),
          ...(r.denial ? { denial: r.denial } : {}),
          ...(r.interruptTurn ? { interruptTurn: true } : {}),
          ...(r.stopReason ? { stopReason: r.stopReason } : {}),
        };
        // The tool declares what its failure does to the calls queued behind it (Bash cancels them). Cancel
        // them before finishing this one: finishing schedules the next call.
        if (r.outcome === 'error' && !safe && tool.cancelsSiblingsOnError === true) this.failSiblings(call);
        this.finish(index, {
          record,
          errorKind: r.errorKind,
          data: r.data,
          ...(r.decision ? { decision: r.decision } : {}),
          ...(r.nonExecutionKind ? { nonExecutionKind: r.nonExecutionKind } : {}),
        });
      },
      (err: unknown) => {
        // runPipeline turns every tool error into a result; reaching here is a bug, but the call still gets one.
        shaper.stop();
        this.deps.logger.error({ err, tool: block.name, tool_use_id: block.id }, 'executor pipeline crashed');
        this.finish(index, this.errorEnding(block, `Error: internal error while running ${block.name}`, 'internal'));
      },
    );
  }

  private finishAborted(call: StartedCall): void {
    const reason = reasonOf(call.controller.signal);
    const b = call.block;
    switch (reason.kind) {
      case 'streaming_fallback':
        return this.finish(call.index, this.synthetic(b, msg.DISCARDED_BY_FALLBACK, 'cancelled'));
      case 'sibling_error':
        return this.finish(call.index, this.synthetic(b, msg.cancelledBySibling(this.siblingFailure ?? { name: '?', id: '?', summary: '' }), 'cancelled'));
      case 'shutdown':
      case 'host_gone':
        return this.finish(call.index, this.synthetic(b, msg.SHUTDOWN_MESSAGE, 'cancelled'));
      default:
        return this.finish(call.index, this.synthetic(b, msg.INTERRUPTED_WHILE_RUNNING, 'cancelled', msg.USER_REJECTED, 'user-rejected'));
    }
  }

  private failSiblings(failed: StartedCall): void {
    let summary = '';
    try {
      summary = failed.tool.siblingSummary?.(failed.parsed) ?? '';
    } catch {
      summary = '';
    }
    this.siblingFailure = { name: failed.block.name, id: failed.block.id, summary };
    for (const c of this.calls) {
      if (isWaiting(c)) this.finish(c.index, this.synthetic(c.block, msg.cancelledBySibling(this.siblingFailure), 'cancelled'));
    }
  }

  private handleTurnAbort(): void {
    const reason = reasonOf(this.turnSignal);
    const hard = reason.kind !== 'user_interrupted';
    for (const c of this.calls) {
      if (isWaiting(c)) {
        const text = hard ? msg.SHUTDOWN_MESSAGE : msg.INTERRUPTED_BEFORE_START;
        this.finish(c.index, this.synthetic(c.block, text, 'cancelled', hard ? undefined : msg.USER_REJECTED, hard ? undefined : 'user-rejected'));
      } else if (isStarted(c) && (hard || c.tool.interruptBehavior !== 'block' || c.state !== 'running')) {
        // A `block` tool finishes once it runs, but one still waiting on hooks or a permission answer is stopped.
        c.controller.abort(reason);
      }
    }
  }

  private synthetic(block: ToolUseBlock, text: string, outcome: ToolOutcomeKind, data?: string, nonExecutionKind?: string): Ending {
    return {
      record: {
        toolUseId: block.id,
        toolName: block.name,
        block: { type: 'tool_result', tool_use_id: block.id, content: text, is_error: true },
        outcome,
        additionalContext: [],
      },
      errorKind: 'cancelled',
      data: data ?? `Error: ${text}`,
      ...(nonExecutionKind ? { nonExecutionKind } : {}),
    };
  }

  private errorEnding(block: ToolUseBlock, text: string, kind: CallErrorKind): Ending {
    return {
      record: {
        toolUseId: block.id,
        toolName: block.name,
        block: { type: 'tool_result', tool_use_id: block.id, content: msg.toolUseError(text), is_error: true },
        outcome: 'error',
        additionalContext: [],
      },
      errorKind: kind,
      data: text,
    };
  }

  /** Ends a queued or started call (once; later attempts are ignored). */
  private finish(index: number, e: Ending): void {
    const call = this.calls[index];
    if (call === undefined || isEnded(call)) return;
    this.complete(index, call.block, e, isStarted(call) ? call.startedAt : undefined);
  }

  /** Puts the call at `index` (a new one when index = size) in its end state and reports its result. */
  private complete(index: number, block: ToolUseBlock, e: Ending, startedAt: number | undefined): void {
    const wasRunning = startedAt !== undefined;
    const { record } = e;
    this.calls[index] =
      record.outcome === 'cancelled' ? { index, block, state: 'cancelled', record, errorKind: 'cancelled' } : { index, block, state: 'done', record, errorKind: record.outcome === 'success' ? undefined : e.errorKind };
    this.ended++;
    const durationMs = wasRunning ? this.deps.now() - startedAt : 0;
    this.deps.logger.info(
      {
        tool: block.name,
        tool_use_id: block.id,
        duration_ms: durationMs,
        permission: e.decision?.decidedBy ?? (record.denial ? 'denied' : 'n/a'),
        outcome: record.outcome,
        error_class: record.outcome === 'success' ? undefined : record.denial ? 'permission_denied' : (e.nonExecutionKind ?? e.errorKind),
      },
      'tool call',
    );
    if (!this.discarded) {
      const ev: SessionEvent = {
        type: 'tool_result',
        uuid: this.deps.newUuid(),
        toolUseId: block.id,
        toolName: block.name,
        block: record.block,
        data: e.data,
        outcome: record.outcome,
        ...(e.decision ? { decision: e.decision } : {}),
        ...(e.nonExecutionKind ? { nonExecutionKind: e.nonExecutionKind } : {}),
      };
      if (this.released) this.deps.emit(ev);
      else this.held.push(ev);
    }
    for (const w of this.waiters.splice(0)) w();
    if (wasRunning) this.schedule();
  }

  private applyPendingModifiers(): void {
    // Modifiers of concurrent calls are applied after the batch, in tool_use order (stable, deterministic).
    this.pendingModifiers.sort((a, b) => a.index - b.index);
    for (const m of this.pendingModifiers.splice(0)) this.deps.setShared(m.apply(this.deps.getShared()));
  }
}
