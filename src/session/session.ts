// A session: the conversation, its settings, the queue of user messages, and the loop that runs one turn per
// queued message. Every turn ends with exactly one turn_result event, whatever happens inside it.
import type { ApiMessage } from '../model/types.js';
import { withThinkingOverride } from '../model/request-defaults.js';
import type { PermissionModeName } from '../permissions/modes.js';
import { AbortReason } from '../util/abort.js';
import { AsyncQueue } from '../util/async-queue.js';
import type { SharedToolContext } from '../tools/tool.js';
import type { QueuedInput, SessionDeps, SessionOptions, SessionSettings } from './config.js';
import type { SessionEvent, TurnResult } from '../thread/events.js';
import { Thread } from '../thread/thread.js';
import { runLocalCommand } from './local-command.js';
import { type NestedLoopOutcome, type NestedLoopSpec, runNestedLoop } from './nested.js';
import { runTurn } from './turn.js';
import { userIdFor } from './loop.js';
import { foldPrompts, isFoldable } from './fold.js';
import { runCompactTurn } from './compact-turn.js';
import { UsageLedger, emptyTurnUsage } from './usage.js';

export interface InterruptReceipt {
  stillQueued: string[];
  cancelled: string[];
  /** Whether a turn was running (and is now ending). */
  wasRunning: boolean;
}

/** Work a turn leaves running (src/agents/tasks.ts): counted at the end of input, stopped at shutdown. */
export interface BackgroundWork {
  running(): number;
  stopAll(): void;
}

export class Session {
  readonly id: string;
  /** `metadata.user_id` of every request of the session (its subagents' included). */
  private userIdMemo: string | undefined;
  /** The main thread: the conversation and its transcript, kept as one. */
  readonly thread: Thread;
  readonly ledger: UsageLedger;
  readonly shared: { current: SharedToolContext };
  private readonly queue = new AsyncQueue<QueuedInput>();
  private current: { controller: AbortController; input: QueuedInput } | undefined;
  private resultIndex = 0;
  private loop: Promise<void> | undefined;
  private started = false;
  private inputEnded = false;
  /** Work that outlives the turn that started it (background agents): the input ends only when it is done. */
  private background: BackgroundWork | undefined;

  constructor(
    private readonly deps: SessionDeps,
    private readonly opts: SessionOptions,
    readonly settings: SessionSettings,
  ) {
    this.id = opts.sessionId;
    this.ledger = new UsageLedger(opts.provider);
    this.thread = new Thread({ recorder: deps.recorder, history: opts.history, newUuid: deps.newUuid });
    this.shared = { current: deps.initialShared };
  }

  /** `metadata.user_id`, made when the first request needs it (the device id is read or made then). */
  private get userId(): string {
    this.userIdMemo ??= userIdFor(this.opts.deviceId(), this.opts.sessionId);
    return this.userIdMemo;
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  get queuedCount(): number {
    return this.queue.size;
  }

  get history(): readonly ApiMessage[] {
    return this.thread.messages;
  }

  start(): void {
    this.loop ??= this.run();
  }

  submit(input: QueuedInput): void {
    this.queue.push(input);
  }

  /**
   * No more input will come (stdin EOF): queued turns still run, and background work still ends (its
   * notification turns run too, as Claude Code holds the last result until background agents finish); then
   * `done()` resolves.
   */
  endOfInput(): void {
    this.inputEnded = true;
    this.closeWhenSettled();
  }

  attachBackground(work: BackgroundWork): void {
    this.background = work;
  }

  /** Background work ended or a turn did: the input closes once nothing is queued, running or in the background. */
  closeWhenSettled(): void {
    if (this.inputEnded && this.current === undefined && this.queue.size === 0 && (this.background?.running() ?? 0) === 0) this.queue.close();
  }

  /** Reports an event of work running outside the loop's own events (a task's start and end). */
  notify(ev: SessionEvent): void | Promise<void> {
    return this.emit(ev);
  }

  done(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /** What an interrupt will do; with cancelQueued the queued messages are dropped now. Does not abort. */
  interruptReceipt(opts: { cancelQueued: boolean }): InterruptReceipt {
    const cancelled = opts.cancelQueued ? this.queue.drainAll().map((i) => i.uuid) : [];
    const stillQueued = this.queue.peekAll().map((i) => i.uuid);
    return { stillQueued, cancelled, wasRunning: this.current !== undefined };
  }

  /** Ends the running turn (if any) as interrupted by the user. Idempotent; a no-op when idle. */
  abortCurrentTurn(): void {
    const cur = this.current;
    if (cur && !cur.controller.signal.aborted) cur.controller.abort(new AbortReason('user_interrupted'));
  }

  interrupt(opts: { cancelQueued: boolean }): InterruptReceipt {
    const receipt = this.interruptReceipt(opts);
    this.abortCurrentTurn();
    return receipt;
  }

  /** Shutdown: the running turn is aborted hard (every tool stops) and queued input is dropped. */
  abortAll(reason: AbortReason): void {
    this.queue.drainAll();
    this.queue.close();
    this.background?.stopAll();
    const cur = this.current;
    if (cur && !cur.controller.signal.aborted) cur.controller.abort(reason);
  }

  /**
   * Runs a nested agent loop for a tool call (a subagent): its own thread, prompt and tools, this session's
   * services and host; its events carry `spec.parentToolUseId`. Ends when the loop's turn ends or `spec.signal` aborts.
   */
  runNested(spec: NestedLoopSpec): Promise<NestedLoopOutcome> {
    return runNestedLoop(
      {
        services: this.deps,
        ledger: this.ledger,
        shared: this.shared,
        sink: (ev) => this.emit(ev),
        sidechainRecorder: this.deps.sidechainRecorder,
        sessionId: this.id,
        betas: this.opts.betas,
        profile: this.opts.profile,
        userId: this.userId,
        request: () => this.settings.request,
      },
      spec,
    );
  }

  /** A resolved model (model/names.ts): `planModel` is used in plan mode (`opusplan`), else `model`. */
  setModel(choice: { model: string; planModel?: string | undefined }): void {
    this.settings.model = choice.model;
    this.settings.planModel = choice.planModel;
  }

  /** set_max_thinking_tokens: undefined leaves a value as it is, null returns it to the start-up one. */
  setMaxThinkingTokens(n: number | null | undefined, display?: 'summarized' | 'omitted' | 'highlights' | null): void {
    this.settings.request = withThinkingOverride(this.settings.request, n, display);
  }

  setPermissionMode(mode: PermissionModeName): void {
    this.settings.permissionMode = mode;
    void this.emit({ type: 'permission_mode_changed', mode });
  }

  /** Conversational events are recorded by the loop's thread before they get here (write-ahead). */
  private emit(ev: SessionEvent): void | Promise<void> {
    return this.deps.sink.emit(ev);
  }

  private async run(): Promise<void> {
    for await (const queued of this.queue) {
      // Prompts queued behind this one join it: one turn, one request, one result for all of them (fold.ts).
      let input = isFoldable(queued) ? foldPrompts([queued, ...this.queue.takeWhile(isFoldable)]) : queued;
      if (input.command) {
        const turn = await this.runLocal(input);
        if (turn === undefined) {
          this.resultIndex++;
          this.closeWhenSettled();
          continue;
        }
        input = { uuid: input.uuid, content: turn.content, shouldQuery: input.shouldQuery, isSynthetic: input.isSynthetic, ...(turn.model ? { model: turn.model } : {}) };
      }
      if (!input.shouldQuery) {
        this.thread.appendUser(input.content, { uuid: input.uuid, isSynthetic: input.isSynthetic });
        this.closeWhenSettled();
        continue;
      }
      const controller = new AbortController();
      this.current = { controller, input };
      let result: TurnResult;
      await this.emit({ type: 'state', state: 'running' });
      try {
        if (!this.started) {
          this.started = true;
          await this.deps.ready?.();
          // The project's memory files: loading since start-up, needed by the first request.
          await this.deps.promptContext?.ready();
          const ss = await this.deps.turnHooks.sessionStart(this.opts.startSource, controller.signal);
          for (const ctx of ss.additionalContext) {
            const text = `<system-reminder>\nSessionStart hook additional context: ${ctx}\n</system-reminder>`;
            this.thread.appendUser(text, { isSynthetic: true });
          }
        }
        const tc = {
            deps: this.deps,
            settings: this.settings,
            thread: this.thread,
            ledger: this.ledger,
            shared: this.shared,
            sessionId: this.id,
            emitStreamEvents: this.opts.emitStreamEvents,
            replayUserMessages: this.opts.replayUserMessages,
            betas: this.opts.betas,
            profile: this.opts.profile,
            userId: this.userId,
            resultIndex: this.resultIndex,
            queuedCount: () => this.queue.size,
            takeQueued: () => this.queue.takeWhile(isFoldable),
            emit: (ev: SessionEvent) => this.emit(ev),
          };
        result = input.local?.kind === 'compact' ? await runCompactTurn(tc, input, input.local.instructions, controller.signal) : await runTurn(tc, input, controller.signal);
      } catch (err) {
        // A bug, not a model or tool error (those become results inside runTurn). The turn still ends.
        this.deps.logger.error({ err }, 'turn crashed');
        result = this.internalErrorResult(input, err);
      }
      this.resultIndex++;
      this.current = undefined;
      try {
        await this.thread.flush();
      } catch (err) {
        this.deps.logger.error({ err }, 'transcript flush failed');
      }
      await this.emit({ type: 'turn_result', result });
      await this.emit({ type: 'state', state: 'idle' });
      this.closeWhenSettled();
    }
  }

  /** A slash command (src/commands), interruptible like a turn; undefined when it was answered locally. */
  private async runLocal(input: QueuedInput): Promise<{ content: QueuedInput['content']; model?: string } | undefined> {
    const controller = new AbortController();
    this.current = { controller, input };
    try {
      return await runLocalCommand({
        input,
        signal: controller.signal,
        clearConversation: () => this.thread.clear(),
        emit: (ev) => this.emit(ev),
        newUuid: this.deps.newUuid,
        now: this.deps.now,
        resultIndex: this.resultIndex,
        queuedCount: () => this.queue.size,
        modelUsage: () => this.ledger.modelUsage(),
        totalCostUsd: () => this.ledger.totalCostUsd,
      });
    } finally {
      this.current = undefined;
    }
  }

  private internalErrorResult(input: QueuedInput, err: unknown): TurnResult {
    const message = `Internal error: ${err instanceof Error ? err.message : String(err)}`;
    return {
      kind: 'error_during_execution',
      isError: true,
      resultText: '',
      errors: [message],
      stopReason: null,
      terminalReason: 'turn_setup_failed',
      durationMs: 0,
      durationApiMs: 0,
      numTurns: 0,
      usage: emptyTurnUsage(),
      modelUsage: this.ledger.modelUsage(),
      totalCostUsd: this.ledger.totalCostUsd,
      permissionDenials: [],
      error: { category: 'internal', retryable: false, status: null, message },
      userMessageUuids: [input.uuid],
      resultIndex: this.resultIndex,
      queuedTurnCount: this.queue.size,
    };
  }
}
