// The states of one tool call in the executor, as a discriminated union: each state carries only what exists
// in it, so the compiler knows, say, that a call has a controller once it started and a record once it ended.
//
//   queued ──(concurrency answer)──▶ ready ──start──▶ validating ▶ awaiting_hooks ▶ awaiting_permission ▶ running ─▶ done
//      └───────────────┴──────────────────────────────────┴──────────── (interrupt, sibling failure, …) ──────────▶ cancelled
//
// A call answered without running (unknown tool, bad input) goes straight to done.
import type { ToolResultBlock, ToolUseBlock } from '../model/types.js';
import type { PermissionDenialInfo, ToolOutcomeKind } from '../thread/events.js';
import type { AnyTool } from '../tools/tool.js';

/**
 * Why a call did not succeed, as a type (the log's `error_class`; never inferred from message text).
 * `permission_denied` and the executor's own cancellations are kinds too.
 */
export type CallErrorKind = 'unknown_tool' | 'input_validation' | 'tool_error' | 'permission_denied' | 'cancelled' | 'internal';

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

interface CallCore {
  readonly index: number;
  readonly block: ToolUseBlock;
}

/** Validated input, waiting for its tool's (possibly async) concurrency-safety answer. */
export interface QueuedCall extends CallCore {
  readonly state: 'queued';
  readonly tool: AnyTool;
  readonly parsed: unknown;
}

/** Knows whether it may run alongside others; waits for the concurrency gate. */
export interface ReadyCall extends CallCore {
  readonly state: 'ready';
  readonly tool: AnyTool;
  readonly parsed: unknown;
  readonly safe: boolean;
}

/** The pipeline's phases once a call has started (run-call.ts reports each as it enters it). */
export type CallPhase = 'validating' | 'awaiting_hooks' | 'awaiting_permission' | 'running';

/** Started: holds a concurrency slot and an abort controller; `running` means the tool's own code runs. */
export interface StartedCall extends CallCore {
  readonly state: CallPhase;
  readonly tool: AnyTool;
  readonly parsed: unknown;
  readonly safe: boolean;
  readonly controller: AbortController;
  readonly startedAt: number;
}

/** Ended with a result from its tool or the pipeline (success, tool error, denial, bad input). */
export interface DoneCall extends CallCore {
  readonly state: 'done';
  readonly record: CallRecord;
  /** Set unless the call succeeded. */
  readonly errorKind: CallErrorKind | undefined;
}

/** Ended by the executor: interrupt, shutdown, a failed sibling, a discarded stream attempt. */
export interface CancelledCall extends CallCore {
  readonly state: 'cancelled';
  readonly record: CallRecord;
  readonly errorKind: 'cancelled';
}

export type Call = QueuedCall | ReadyCall | StartedCall | DoneCall | CancelledCall;

export function isStarted(c: Call): c is StartedCall {
  return c.state === 'validating' || c.state === 'awaiting_hooks' || c.state === 'awaiting_permission' || c.state === 'running';
}

export function isWaiting(c: Call): c is QueuedCall | ReadyCall {
  return c.state === 'queued' || c.state === 'ready';
}

export function isEnded(c: Call): c is DoneCall | CancelledCall {
  return c.state === 'done' || c.state === 'cancelled';
}
