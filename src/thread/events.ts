// What an agent loop reports (the main session's and every nested one's). These are internal events, not frames:
// control/projector.ts is the one place that turns them into protocol frames, so a second protocol adapter would
// only need a second projector. They live below the loop so the executor and the store can name them.
import type { AssistantBlock, RawStreamEvent, ToolResultBlock, Usage } from '../model/types.js';
import type { PermissionModeName } from '../permissions/modes.js';

export interface AssistantMeta {
  id: string;
  model: string;
  usage: Usage;
  requestId: string | undefined;
}

export type TerminalReason =
  | 'completed'
  | 'aborted_streaming'
  | 'aborted_tools'
  | 'max_turns'
  | 'budget_exhausted'
  | 'api_error'
  | 'prompt_too_long'
  | 'image_error'
  | 'hook_stopped'
  | 'structured_output_retry_exhausted'
  | 'turn_setup_failed';

export type ErrorCategory =
  | 'authentication'
  | 'rate_limit'
  | 'overloaded'
  | 'context_overflow'
  | 'max_turns'
  | 'max_budget'
  | 'permission'
  | 'tool'
  | 'interrupted'
  | 'invalid_request'
  | 'server_error'
  | 'connection'
  | 'timeout'
  | 'internal'
  | 'startup';

export interface TurnError {
  category: ErrorCategory;
  retryable: boolean;
  status: number | null;
  resetsAt?: string;
  message: string;
}

/** A model API error as the result and the synthetic message report it (Claude Code's api_error_status / _type). */
export interface ApiErrorInfo {
  status: number | null;
  type: string | undefined;
}

export interface TurnUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  ephemeral_1h_input_tokens: number;
  ephemeral_5m_input_tokens: number;
  web_search_requests: number;
  web_fetch_requests: number;
  service_tier: string;
}

export interface ModelUsageTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
  costBasis: string;
}

export interface PermissionDenialInfo {
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
}

export interface TurnResult {
  kind: 'success' | 'error_during_execution' | 'error_max_turns' | 'error_max_budget_usd' | 'error_max_structured_output_retries';
  isError: boolean;
  resultText: string;
  errors: string[];
  stopReason: string | null;
  terminalReason: TerminalReason;
  durationMs: number;
  durationApiMs: number;
  numTurns: number;
  usage: TurnUsage;
  modelUsage: Record<string, ModelUsageTotals>;
  totalCostUsd: number;
  permissionDenials: PermissionDenialInfo[];
  error?: TurnError;
  /** A turn a model API error ended (kind `success` with isError, as Claude Code reports it). */
  apiError?: ApiErrorInfo;
  structuredOutput?: unknown;
  userMessageUuids: string[];
  /** The slash command answered locally (Claude Code's `local_command` on the result). */
  localCommand?: string;
  resultIndex: number;
  queuedTurnCount: number;
}

/** How a tool call's permission was decided, recorded on its result. */
export interface DecisionMeta {
  decision: 'accept' | 'reject';
  /** Claude Code's vocabulary: config | user_temporary | user_permanent | user_reject | hook. */
  source: string;
  reasonType?: string;
  /** agentd: which rule, mode, hook or host decided (e.g. "rule:Read@cliArg", "mode:bypassPermissions"). */
  decidedBy?: string;
}

export type ToolOutcomeKind = 'success' | 'error' | 'denied' | 'cancelled';

export interface ProgressInfo {
  kind: 'output' | 'heartbeat';
  output?: string;
  totalBytes?: number;
  droppedBytes?: number;
  /** The newest MCP progress numbers of the call, when its server sends them. */
  progress?: number;
  total?: number;
}

/**
 * Events of a nested loop (a tool that runs an agent loop of its own, such as a subagent) carry
 * `parentToolUseId`: the tool_use id of the call that started it. The main loop's events have none; on the
 * wire that is `parent_tool_use_id: null`.
 */
export type SessionEvent =
  | { type: 'turn_started'; userMessageUuids: string[] }
  | { type: 'state'; state: 'idle' | 'running' | 'requires_action' }
  | { type: 'user_replay'; uuid: string; content: unknown; isSynthetic: boolean }
  | { type: 'model_request'; attempt: number }
  | { type: 'stream'; event: RawStreamEvent; messageId: string; ttftMs?: number; parentToolUseId?: string }
  | {
      type: 'assistant_block';
      uuid: string;
      meta: AssistantMeta;
      block: AssistantBlock;
      aborted?: boolean;
      error?: string;
      /** Set on the synthetic message that reports a model API error: the API's status and error type. */
      apiError?: ApiErrorInfo;
      supersedes?: string[];
      parentToolUseId?: string;
    }
  | {
      type: 'tool_result';
      uuid: string;
      toolUseId: string;
      toolName: string;
      block: ToolResultBlock;
      /** Structured output (tool_use_result): the tool's Output object, or an "Error: …" string. */
      data: unknown;
      outcome: ToolOutcomeKind;
      decision?: DecisionMeta;
      nonExecutionKind?: string;
      parentToolUseId?: string;
    }
  | { type: 'user_text'; uuid: string; text: string; parentToolUseId?: string }
  | {
      type: 'tool_progress';
      toolUseId: string;
      toolName: string;
      elapsedSeconds: number;
      progress: ProgressInfo;
      parentToolUseId?: string;
    }
  | {
      type: 'api_retry';
      attempt: number;
      maxRetries: number;
      delayMs: number;
      status: number | null;
      error: string;
    }
  | { type: 'permission_mode_changed'; mode: PermissionModeName }
  | {
      type: 'permission_denied';
      toolName: string;
      toolUseId: string;
      message: string;
      reasonType?: string;
      reason?: string;
    }
  | { type: 'turn_result'; result: TurnResult }
  | {
      /** After every model call: what it cost and the running totals, so a host can stop a run that overspends. */
      type: 'usage';
      model: string;
      call: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; cost_usd: number };
      turnCostUsd: number;
      totalCostUsd: number;
    }
  | { type: 'hook_started'; hookId: string; hookName: string; hookEvent: string }
  | {
      type: 'hook_response';
      hookId: string;
      hookName: string;
      hookEvent: string;
      outcome: 'success' | 'error' | 'cancelled';
      output: string;
      stdout: string;
      stderr: string;
      exitCode?: number;
    }
  /** A slash command answered locally: shown as a synthetic assistant message (Claude Code's `<synthetic>` model). */
  | { type: 'local_command_output'; uuid: string; text: string }
  /** /clear: the host should start a fresh transcript view. */
  | { type: 'conversation_reset'; newConversationId: string; userMessageUuid: string }
  /** The slash-command list changed (a reload): the full new list. */
  | { type: 'commands_changed'; commands: Array<{ name: string; description: string; argumentHint: string; aliases?: string[]; builtin?: boolean }> }
  /**
   * A file agentd skipped or cut, also logged on stderr; the session goes on without it. `file` says which kind,
   * and with it the frame hosts have always received for it (control/projector.ts): a settings file that is not
   * JSON, a project file (command, skill, agent, plugin hooks, --agents JSON) that cannot be used, a context
   * file (memory file, import, output style) that is binary, too large, unreadable or out of bounds; what a
   * repository's file carries that was skipped because the repository is not trusted (`untrusted`); variables a
   * trusted repository's settings may not set (`env`).
   */
  | { type: 'file_warning'; file: 'settings' | 'settings_key' | 'project' | 'context' | 'untrusted' | 'env'; message: string; path: string }
  /**
   * A resumed transcript had entries whose parent link was broken; each was attached to the nearest earlier
   * entry that ends a branch (null: none), so the earlier turns stay (store/reader.ts chainTo).
   */
  | {
      type: 'transcript_relinked';
      path: string;
      links: ReadonlyArray<{ line: number; uuid: string; parentUuid: string; problem: 'parent_missing' | 'cycle'; linkedTo: string | null }>;
    }
  /**
   * Transcript lines will not be saved (store/writer.ts TranscriptTrouble 'lost'): from `firstLostUuid` on, when
   * known, nothing recorded is in the file.
   */
  | { type: 'writes_lost'; errorCode: string; sessionIds: string[]; firstLostUuid?: string }
  /** Transcript writes fail (lines are held in memory and retried), or succeed again (the held lines are in). */
  | { type: 'transcript_writes'; state: 'failing'; code: string; path: string }
  | { type: 'transcript_writes'; state: 'recovered'; lines: number; path: string }
  /** A compaction started (status compacting) or ended (status null, with how it went). */
  | { type: 'compact_status'; status: 'compacting' }
  | { type: 'compact_status'; status: null; result: 'success' | 'failed'; error?: string }
  /** The thread was replaced by a summary: what the model sees next starts after this boundary. */
  | {
      type: 'compact_boundary';
      uuid: string;
      trigger: 'manual' | 'auto';
      preTokens: number;
      postTokens: number;
      droppedTokens: number;
      durationMs: number;
      logicalParentUuid?: string;
    }
  /** The summary the compacted thread starts from, as its first user message. */
  | { type: 'compact_summary'; uuid: string; text: string }
  /** A task (a subagent run by the Agent tool) started, made progress, or ended: see src/agents/tasks.ts. */
  | { type: 'task_started'; task: TaskInfo; prompt: string }
  | { type: 'task_progress'; task: TaskInfo; activity: string; usage: TaskUsage; lastToolName: string }
  /** The task's state changed (Claude Code sends it as it ends, before task_notification; ACP clients prune on it). */
  | { type: 'task_updated'; task: TaskInfo; status: 'completed' | 'failed' | 'killed'; endTime: number; error?: string }
  | { type: 'task_notification'; task: TaskInfo; status: 'completed' | 'failed' | 'stopped'; summary: string; summaryIsReport: boolean; usage: TaskUsage | undefined }
  /** The background tasks now running (the whole list). */
  | { type: 'background_tasks_changed'; tasks: TaskInfo[] };

/** A task as the host sees it. */
export interface TaskInfo {
  id: string;
  /** The Agent tool call that started it. */
  toolUseId: string;
  description: string;
  subagentType: string;
  taskType: 'local_agent';
  background: boolean;
  /** Where its transcript is written ('' when transcripts are off). */
  outputFile: string;
}

export interface TaskUsage {
  /** The tokens of its latest model call (request and answer): how full its context is. */
  totalTokens: number;
  toolUses: number;
  durationMs: number;
}

/** Where the session sends its events. A returned promise means "wait before producing more" (backpressure). */
export interface EventSink {
  emit(event: SessionEvent): void | Promise<void>;
}
