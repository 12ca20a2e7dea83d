// The streaming tool executor. Calls are queued as their tool_use blocks complete, start as soon as the
// concurrency gate allows, and each ends with exactly one result, whatever happens (error, deny, interrupt,
// sibling failure, discarded attempt). Results are reported in completion order and returned to the
// session in tool_use order.
//
// Gate: a call may start when nothing is executing, or when it is concurrency-safe and everything executing is
// safe, and fewer than `maxConcurrency` run. The queue is scanned in order and the scan stops at the first call
// that cannot start (a barrier: nothing behind an exclusive call starts early).
import type { Logger } from '../log/logger.js';
import type { ToolResultBlock, ToolUseBlock } from '../model/types.js';
import type { DecisionMeta, PermissionDenialInfo, SessionEvent, ToolOutcomeKind } from '../session/events.js';
import { AbortReason, reasonOf } from '../util/abort.js';
import type { AnyTool, SharedToolContext, ToolEnvironment } from '../tools/tool.js';
import * as msg from './messages.js';
import type { PermissionGate, ToolHooks } from './pipeline.js';
import { type ProgressOptions, ProgressShaper } from './progress.js';
import { runPipeline } from './run-call.js';

export interface ToolLookup {
  get(name: string): AnyTool | undefined;
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

/** What the session gets back for each call, in tool_use order. */
export interface CallRecord {
  toolUseId: string;
  toolName: string;
  block: ToolResultBlock;
  outcome: ToolOutcomeKind;
  additionalContext: string[];
  denial?: PermissionDenialInfo;
  /** A deny answer asked to end the turn. */
  interruptTurn?: boolean;
  /** A hook asked to stop the turn. */
  stopReason?: string;
  /** The tool's structured output, for the session (e.g. StructuredOutput's answer). */
  data?: unknown;
}

/** `analyzing`: waiting for an async concurrency-safety answer; it blocks the queue scan like `queued`. */
type CallState = 'analyzing' | 'queued' | 'running' | 'completed';

interface Call {
  index: number;
  block: ToolUseBlock;
  tool: AnyTool | undefined;
  parsed: unknown;
  /** Set when the call can be answered without running (unknown tool, bad input). */
  immediateError?: string;
  safe: boolean;
  state: CallState;
  controller: AbortController;
  startedAt: number;
  /** The tool's own `call` has started (hooks and permission are behind it). */
  executing: boolean;
  record?: CallRecord;
  event?: SessionEvent;
}

export class StreamingToolExecutor {
  private readonly calls: Call[] = [];
  private readonly held: SessionEvent[] = [];
  private released = false;
  private discarded = false;
  private siblingFailure: { name: string; id: string; summary: string } | undefined;
  private readonly done = new Set<number>();
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

  /** Queues a completed tool_use block; it may start at once. */
  add(block: ToolUseBlock, parseError?: string): void {
    const index = this.calls.length;
    const tool = this.deps.tools.get(block.name);
    const call: Call = {
      index,
      block,
      tool,
      parsed: undefined,
      safe: false,
      state: 'queued',
      controller: new AbortController(),
      startedAt: 0,
      executing: false,
    };
    this.calls.push(call);
    if (!tool) call.immediateError = msg.noSuchTool(block.name);
    else if (parseError !== undefined) call.immediateError = msg.unparsableInput(block.name, parseError);
    else {
      const r = tool.inputSchema.safeParse(block.input);
      if (!r.success) call.immediateError = msg.inputValidationError(block.name, r.error.issues, block.input);
      else call.parsed = r.data;
    }
    if (this.discarded) return this.finish(call, this.synthetic(call, msg.DISCARDED_BY_FALLBACK, 'cancelled'));
    if (call.immediateError !== undefined) {
      // Nothing runs, so nothing can conflict: answer at once (Claude Code does the same).
      return this.finish(call, this.errorRecord(call, call.immediateError, 'error'));
    }
    if (this.turnSignal.aborted) return this.finish(call, this.synthetic(call, msg.INTERRUPTED_BEFORE_START, 'cancelled', msg.USER_REJECTED, 'user-rejected'));
    if (this.siblingFailure) return this.finish(call, this.synthetic(call, msg.cancelledBySibling(this.siblingFailure), 'cancelled'));
    let safety: boolean | Promise<boolean>;
    try {
      safety = (tool as AnyTool).isConcurrencySafe(call.parsed);
    } catch {
      safety = false;
    }
    if (typeof safety === 'boolean') {
      call.safe = safety;
      this.schedule();
      return;
    }
    call.state = 'analyzing';
    safety.then(
      (v) => this.analyzed(call, v === true),
      () => this.analyzed(call, false),
    );
  }

  private analyzed(call: Call, safe: boolean): void {
    if (call.state !== 'analyzing') return;
    call.safe = safe;
    call.state = 'queued';
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
      if (c.state === 'running') c.controller.abort(reason);
      else if (c.state === 'queued' || c.state === 'analyzing') this.finish(c, this.synthetic(c, msg.DISCARDED_BY_FALLBACK, 'cancelled'));
    }
  }

  /** Resolves when every call has its result; records in tool_use order. */
  async settle(): Promise<CallRecord[]> {
    while (this.done.size < this.calls.length) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.turnSignal.removeEventListener('abort', this.onTurnAbort);
    this.applyPendingModifiers();
    this.release();
    return this.calls.map((c) => c.record as CallRecord);
  }

  private canStart(call: Call): boolean {
    const running = this.calls.filter((c) => c.state === 'running');
    if (running.length >= this.deps.maxConcurrency) return false;
    if (running.length === 0) return true;
    return call.safe && running.every((c) => c.safe);
  }

  private schedule(): void {
    for (const call of this.calls) {
      if (call.state === 'analyzing') return;
      if (call.state !== 'queued') continue;
      if (this.discarded || this.turnSignal.aborted) return;
      if (!this.canStart(call)) return;
      this.start(call);
    }
  }

  private start(call: Call): void {
    call.state = 'running';
    call.startedAt = this.deps.now();
    const tool = call.tool as AnyTool;
    const shaper = new ProgressShaper(this.deps.progress, () => this.deps.now(), (p) => {
      if (this.discarded || call.state !== 'running') return;
      this.deps.emit({
        type: 'tool_progress',
        toolUseId: call.block.id,
        toolName: call.block.name,
        elapsedSeconds: Math.round((this.deps.now() - call.startedAt) / 100) / 10,
        progress: p,
      });
    });
    const aborted = new Promise<'aborted'>((resolve) => {
      if (call.controller.signal.aborted) resolve('aborted');
      else call.controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
    });
    const work = runPipeline({
      tool,
      block: call.block,
      parsed: call.parsed,
      deps: this.deps,
      signal: call.controller.signal,
      onProgress: (u) => shaper.update(u),
      onCallStart: () => {
        call.executing = true;
      },
    });
    // An aborted call is answered at once; a tool that ignores its signal cannot hold the turn hostage.
    void Promise.race([work, aborted]).then(
      (r) => {
        shaper.stop();
        if (r === 'aborted') return this.finishAborted(call);
        if (r.contextModifier) {
          if (call.safe) this.pendingModifiers.push({ index: call.index, apply: r.contextModifier });
          else this.deps.setShared(r.contextModifier(this.deps.getShared()));
        }
        const record: CallRecord = {
          toolUseId: call.block.id,
          toolName: call.block.name,
          block: r.block,
          outcome: r.outcome,
          additionalContext: r.additionalContext,
          ...(r.outcome === 'success' ? { data: r.data } : {}),
          ...(r.denial ? { denial: r.denial } : {}),
          ...(r.interruptTurn ? { interruptTurn: true } : {}),
          ...(r.stopReason ? { stopReason: r.stopReason } : {}),
        };
        // Cancel the queue behind a failed exclusive call before finishing it: finishing schedules the next call.
        if (r.outcome === 'error' && !call.safe && tool.cancelsSiblingsOnError === true) this.failSiblings(call);
        this.finish(call, record, r.data, r.decision, r.nonExecutionKind);
      },
      (err: unknown) => {
        // runPipeline turns every tool error into a result; reaching here is a bug, but the call still gets one.
        shaper.stop();
        this.deps.logger.error({ err, tool: call.block.name, tool_use_id: call.block.id }, 'executor pipeline crashed');
        this.finish(call, this.errorRecord(call, `Error: internal error while running ${call.block.name}`, 'error'));
      },
    );
  }

  private finishAborted(call: Call): void {
    const reason = reasonOf(call.controller.signal);
    switch (reason.kind) {
      case 'streaming_fallback':
        return this.finish(call, this.synthetic(call, msg.DISCARDED_BY_FALLBACK, 'cancelled'));
      case 'sibling_error':
        return this.finish(call, this.synthetic(call, msg.cancelledBySibling(this.siblingFailure ?? { name: '?', id: '?', summary: '' }), 'cancelled'));
      case 'shutdown':
      case 'host_gone':
        return this.finish(call, this.synthetic(call, msg.SHUTDOWN_MESSAGE, 'cancelled'));
      default:
        return this.finish(call, this.synthetic(call, msg.INTERRUPTED_WHILE_RUNNING, 'cancelled', msg.USER_REJECTED, 'user-rejected'));
    }
  }

  private failSiblings(failed: Call): void {
    const input = failed.block.input as { command?: unknown; description?: unknown };
    const summary = typeof input.description === 'string' ? input.description : typeof input.command === 'string' ? input.command.slice(0, 80) : '';
    this.siblingFailure = { name: failed.block.name, id: failed.block.id, summary };
    for (const c of this.calls) {
      if (c.state === 'queued' || c.state === 'analyzing') this.finish(c, this.synthetic(c, msg.cancelledBySibling(this.siblingFailure), 'cancelled'));
    }
  }

  private handleTurnAbort(): void {
    const reason = reasonOf(this.turnSignal);
    const hard = reason.kind !== 'user_interrupted';
    for (const c of this.calls) {
      if (c.state === 'queued' || c.state === 'analyzing') {
        const text = hard ? msg.SHUTDOWN_MESSAGE : msg.INTERRUPTED_BEFORE_START;
        this.finish(c, this.synthetic(c, text, 'cancelled', hard ? undefined : msg.USER_REJECTED, hard ? undefined : 'user-rejected'));
      } else if (c.state === 'running' && (hard || c.tool?.interruptBehavior !== 'block' || !c.executing)) {
        // A `block` tool finishes once it runs, but one still waiting on hooks or a permission answer is stopped.
        c.controller.abort(reason);
      }
    }
  }

  private synthetic(call: Call, text: string, outcome: ToolOutcomeKind, data?: string, nonExecutionKind?: string): CallRecord & { data: unknown; nonExecutionKind?: string } {
    return {
      toolUseId: call.block.id,
      toolName: call.block.name,
      block: { type: 'tool_result', tool_use_id: call.block.id, content: text, is_error: true },
      outcome,
      additionalContext: [],
      data: data ?? `Error: ${text}`,
      ...(nonExecutionKind ? { nonExecutionKind } : {}),
    };
  }

  private errorRecord(call: Call, text: string, outcome: ToolOutcomeKind): CallRecord & { data: unknown } {
    return {
      toolUseId: call.block.id,
      toolName: call.block.name,
      block: { type: 'tool_result', tool_use_id: call.block.id, content: msg.toolUseError(text), is_error: true },
      outcome,
      additionalContext: [],
      data: text,
    };
  }

  private finish(
    call: Call,
    record: CallRecord & { data?: unknown; nonExecutionKind?: string },
    data?: unknown,
    decision?: DecisionMeta,
    nonExecutionKind?: string,
  ): void {
    if (call.state === 'completed') return;
    const wasRunning = call.state === 'running';
    call.state = 'completed';
    const { data: recData, nonExecutionKind: recKind, ...clean } = record;
    call.record = clean;
    this.done.add(call.index);
    const durationMs = wasRunning ? this.deps.now() - call.startedAt : 0;
    this.deps.logger.info(
      {
        tool: call.block.name,
        tool_use_id: call.block.id,
        duration_ms: durationMs,
        permission: decision?.decidedBy ?? (record.denial ? 'denied' : 'n/a'),
        outcome: clean.outcome,
        error_class: clean.outcome === 'success' ? undefined : errorClass(clean, recKind ?? nonExecutionKind),
      },
      'tool call',
    );
    if (!this.discarded) {
      const kind = recKind ?? nonExecutionKind;
      const ev: SessionEvent = {
        type: 'tool_result',
        uuid: this.deps.newUuid(),
        toolUseId: call.block.id,
        toolName: call.block.name,
        block: clean.block,
        data: data ?? recData,
        outcome: clean.outcome,
        ...(decision ? { decision } : {}),
        ...(kind ? { nonExecutionKind: kind } : {}),
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

function errorClass(r: CallRecord, kind: string | undefined): string {
  if (r.denial) return 'permission_denied';
  if (kind) return kind;
  const c = typeof r.block.content === 'string' ? r.block.content : '';
  if (c.includes('No such tool')) return 'unknown_tool';
  if (c.includes('InputValidationError')) return 'input_validation';
  if (r.outcome === 'cancelled') return 'cancelled';
  return 'tool_error';
}
