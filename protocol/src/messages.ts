// Conversation frames: every outbound SDKMessage agentd emits (protocol.md §5). The inbound `user` frame is in
// user-frame.ts: the daemon parses it at run time, while these schemas serve the tests, the JSON Schema and the
// types only (runtime.ts).
import * as z from 'zod/mini';
import { ErrorCode } from './envelope.js';
import { PermissionDenial, PermissionMode } from './permissions.js';
import { Ids } from './ids.js';
import { ASSISTANT_MESSAGE_ERRORS } from './assistant-errors.js';

// ---- outbound building blocks ----


export const ApiUsage = z.lazy(() => z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.optional(z.nullable(z.number())),
  cache_read_input_tokens: z.optional(z.nullable(z.number())),
}));

export const OutboundContentBlock = z.lazy(() => z.looseObject({ type: z.string() }));

export const ApiAssistantMessage = z.lazy(() => z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(OutboundContentBlock),
  stop_reason: z.nullable(z.string()),
  stop_sequence: z.nullable(z.string()),
  usage: ApiUsage,
}));

export const AssistantMessageError = z.lazy(() => z.enum(ASSISTANT_MESSAGE_ERRORS));
export type AssistantMessageError = z.infer<typeof AssistantMessageError>;

export const AssistantFrame = z.lazy(() => z.strictObject({
  type: z.literal('assistant'),
  message: ApiAssistantMessage,
  parent_tool_use_id: z.nullable(z.string()),
  ...Ids,
  timestamp: z.string(),
  request_id: z.optional(z.string()),
  error: z.optional(AssistantMessageError),
  /** The synthetic message that reports a model API error (Claude Code's fields): the API's status and error type. */
  is_api_error_message: z.optional(z.literal(true)),
  api_error_status: z.optional(z.nullable(z.number())),
  api_error_type: z.optional(z.nullable(z.string())),
  aborted: z.optional(z.literal(true)),
  /** Uuids of earlier assistant frames this one replaces (a response that broke off and was requested again). */
  supersedes: z.optional(z.array(z.string())),
}));
export type AssistantFrame = z.infer<typeof AssistantFrame>;

/** How a tool call's permission was decided; Claude Code's observed `tool_result_meta` plus agentd's detail. */
export const ToolResultMeta = z.lazy(() => z.strictObject({
  id: z.string(),
  permission_decision: z.optional(
    z.strictObject({
      decision: z.enum(['accept', 'reject']),
      source: z.string(),
      reason_type: z.optional(z.string()),
      // agentd: which rule / mode / hook / host decided, e.g. "rule:Bash(git status:*)@cliArg".
      decided_by: z.optional(z.string()),
    }),
  ),
  non_execution_kind: z.optional(z.string()),
}));

export const UserFrame = z.lazy(() => z.strictObject({
  type: z.literal('user'),
  message: z.strictObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(OutboundContentBlock)]),
  }),
  parent_tool_use_id: z.nullable(z.string()),
  ...Ids,
  timestamp: z.string(),
  tool_use_result: z.optional(z.unknown()),
  tool_result_meta: z.optional(z.array(ToolResultMeta)),
  isSynthetic: z.optional(z.boolean()),
  isReplay: z.optional(z.literal(true)),
}));
export type UserFrame = z.infer<typeof UserFrame>;

export const StreamEventFrame = z.lazy(() => z.strictObject({
  type: z.literal('stream_event'),
  event: z.looseObject({ type: z.string() }),
  parent_tool_use_id: z.nullable(z.string()),
  ...Ids,
  ttft_ms: z.optional(z.number()),
  api_message_id: z.optional(z.string()),
}));
export type StreamEventFrame = z.infer<typeof StreamEventFrame>;

/** agentd's extension of tool_progress: live output of a running tool (documented in protocol/CHANGELOG.md). */
export const ToolProgressDetail = z.lazy(() => z.strictObject({
  kind: z.enum(['output', 'heartbeat']),
  /** New output since the previous progress frame of this call (capped; see `dropped_bytes`). */
  output: z.optional(z.string()),
  /** Bytes of output the tool has produced so far. */
  total_bytes: z.optional(z.number()),
  /** Bytes produced since the previous frame that were not included in `output` (rate/size cap). */
  dropped_bytes: z.optional(z.number()),
  /** An MCP tool's newest `notifications/progress` numbers (`total` only when the server gave one). */
  progress: z.optional(z.number()),
  total: z.optional(z.number()),
}));

export const ToolProgressFrame = z.lazy(() => z.strictObject({
  type: z.literal('tool_progress'),
  tool_use_id: z.string(),
  tool_name: z.string(),
  parent_tool_use_id: z.nullable(z.string()),
  elapsed_time_seconds: z.number(),
  heartbeat: z.optional(z.boolean()),
  ...Ids,
  agentd_progress: z.optional(ToolProgressDetail),
}));
export type ToolProgressFrame = z.infer<typeof ToolProgressFrame>;

// ---- result ----

export const ResultUsage = z.lazy(() => z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
  cache_read_input_tokens: z.number(),
  server_tool_use: z.strictObject({ web_search_requests: z.number(), web_fetch_requests: z.number() }),
  service_tier: z.string(),
  cache_creation: z.strictObject({ ephemeral_1h_input_tokens: z.number(), ephemeral_5m_input_tokens: z.number() }),
}));
export type ResultUsage = z.infer<typeof ResultUsage>;

export const ModelUsageEntry = z.lazy(() => z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  webSearchRequests: z.number(),
  costUSD: z.number(),
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
  /** agentd: "table" when the model is in the price table, "fallback:<family>" otherwise. */
  costBasis: z.optional(z.string()),
}));
export type ModelUsageEntry = z.infer<typeof ModelUsageEntry>;

export const TERMINAL_REASONS = [
  'completed',
  'aborted_streaming',
  'aborted_tools',
  'max_turns',
  'budget_exhausted',
  'api_error',
  'model_error',
  'prompt_too_long',
  'image_error',
  'hook_stopped',
  'stop_hook_prevented',
  'tool_deferred',
  'structured_output_retry_exhausted',
  'turn_setup_failed',
] as const;

/** agentd's error taxonomy on results (see README "Errors"). */
export const ERROR_CATEGORIES = [
  'authentication',
  'rate_limit',
  'overloaded',
  'context_overflow',
  'max_turns',
  'max_budget',
  'permission',
  'tool',
  'interrupted',
  'invalid_request',
  'server_error',
  'connection',
  'timeout',
  'internal',
  'startup',
] as const;
export const ErrorCategory = z.lazy(() => z.enum(ERROR_CATEGORIES));
export type ErrorCategory = z.infer<typeof ErrorCategory>;

export const AgentdError = z.lazy(() => z.strictObject({
  category: ErrorCategory,
  /** Whether sending the same turn again may succeed (rate limits, overload, connection). */
  retryable: z.boolean(),
  status: z.optional(z.nullable(z.number())),
  /** For rate limits: when the limit resets (ISO time), where the API said so. */
  resets_at: z.optional(z.string()),
}));
export type AgentdError = z.infer<typeof AgentdError>;

const ResultCommon = {
  type: z.literal('result'),
  is_error: z.boolean(),
  duration_ms: z.number(),
  duration_api_ms: z.number(),
  num_turns: z.number(),
  stop_reason: z.nullable(z.string()),
  total_cost_usd: z.number(),
  usage: ResultUsage,
  modelUsage: z.record(z.string(), ModelUsageEntry),
  permission_denials: z.array(PermissionDenial),
  terminal_reason: z.optional(z.enum(TERMINAL_REASONS)),
  result_index: z.optional(z.number()),
  queued_turn_count: z.optional(z.number()),
  user_message_uuids: z.optional(z.array(z.string())),
  /** The slash command answered locally (no model call), e.g. `cost`, `context`, `clear`. */
  local_command: z.optional(z.string()),
  agentd_error: z.optional(AgentdError),
  ...Ids,
};

export const ResultSuccessFrame = z.lazy(() => z.strictObject({
  ...ResultCommon,
  subtype: z.literal('success'),
  result: z.string(),
  structured_output: z.optional(z.unknown()),
  /** A turn a model API error ended (is_error true, `result` the error's text): the API's status and error type. */
  api_error_status: z.optional(z.nullable(z.number())),
  api_error_type: z.optional(z.string()),
}));
export type ResultSuccessFrame = z.infer<typeof ResultSuccessFrame>;

export const RESULT_ERROR_SUBTYPES = [
  'error_during_execution',
  'error_max_turns',
  'error_max_budget_usd',
  'error_max_structured_output_retries',
] as const;

export const ResultErrorFrame = z.lazy(() => z.strictObject({
  ...ResultCommon,
  subtype: z.enum(RESULT_ERROR_SUBTYPES),
  errors: z.array(z.string()),
  startup_failure_reason: z.optional(z.string()),
}));
export type ResultErrorFrame = z.infer<typeof ResultErrorFrame>;

export const ResultFrame = z.lazy(() => z.union([ResultSuccessFrame, ResultErrorFrame]));
export type ResultFrame = z.infer<typeof ResultFrame>;

// ---- system ----

export const SystemInitFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  cwd: z.string(),
  tools: z.array(z.string()),
  // `error` (why a server failed) is an agentd addition; Claude Code reports the status only.
  mcp_servers: z.array(z.strictObject({ name: z.string(), status: z.string(), source: z.optional(z.string()), error: z.optional(z.string()) })),
  model: z.string(),
  permissionMode: PermissionMode,
  slash_commands: z.array(z.string()),
  apiKeySource: z.string(),
  claude_code_version: z.string(),
  output_style: z.string(),
  agents: z.array(z.string()),
  skills: z.array(z.string()),
  plugins: z.array(z.strictObject({ name: z.string(), path: z.string() })),
  capabilities: z.array(z.string()),
  additional_directories: z.optional(z.array(z.string())),
  agentd_version: z.string(),
  ...Ids,
}));
export type SystemInitFrame = z.infer<typeof SystemInitFrame>;

export const SystemStatusFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('status'),
  status: z.nullable(z.enum(['compacting', 'requesting'])),
  permissionMode: z.optional(PermissionMode),
  /** After a compaction (status back to null): how it went, and why it failed. */
  compact_result: z.optional(z.enum(['success', 'failed'])),
  compact_error: z.optional(z.string()),
  ...Ids,
}));
export type SystemStatusFrame = z.infer<typeof SystemStatusFrame>;

/** The thread was compacted: what the model sees next starts from a summary (Claude Code's frame). */
export const SystemCompactBoundaryFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('compact_boundary'),
  compact_metadata: z.strictObject({
    trigger: z.enum(['manual', 'auto']),
    pre_tokens: z.number(),
    post_tokens: z.optional(z.number()),
    cumulative_dropped_tokens: z.optional(z.number()),
    duration_ms: z.optional(z.number()),
  }),
  /** The last message before the boundary (the transcript's logicalParentUuid). */
  logical_parent_uuid: z.optional(z.string()),
  ...Ids,
}));
export type SystemCompactBoundaryFrame = z.infer<typeof SystemCompactBoundaryFrame>;

export const SystemApiRetryFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number(),
  error_status: z.nullable(z.number()),
  error: AssistantMessageError,
  ...Ids,
}));
export type SystemApiRetryFrame = z.infer<typeof SystemApiRetryFrame>;

export const SystemSessionStateChangedFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('session_state_changed'),
  state: z.enum(['idle', 'running', 'requires_action']),
  sdk_host_only: z.optional(z.literal(true)),
  ...Ids,
}));
export type SystemSessionStateChangedFrame = z.infer<typeof SystemSessionStateChangedFrame>;

/** agentd: an inbound line or frame that could not be served and had no request id to answer. */
export const SystemProtocolErrorFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('protocol_error'),
  error_code: ErrorCode,
  message: z.string(),
  /** 1-based number of the offending stdin line. */
  line_number: z.number(),
  line_bytes: z.optional(z.number()),
  request_id: z.optional(z.string()),
  ...Ids,
}));
export type SystemProtocolErrorFrame = z.infer<typeof SystemProtocolErrorFrame>;

/**
 * agentd: the last frame before the daemon exits with code 70 — an error escaped every handler (a bug: an
 * unhandled rejection or an uncaught exception). The host sees why the stream ends instead of a bare exit.
 */
export const SystemInternalErrorFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('internal_error'),
  error_code: z.literal('internal'),
  message: z.string(),
  exit_code: z.literal(70),
  ...Ids,
}));
export type SystemInternalErrorFrame = z.infer<typeof SystemInternalErrorFrame>;

export const SystemPermissionDeniedFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('permission_denied'),
  tool_name: z.string(),
  tool_use_id: z.string(),
  decision_reason_type: z.optional(z.string()),
  decision_reason: z.optional(z.string()),
  message: z.string(),
  ...Ids,
}));
export type SystemPermissionDeniedFrame = z.infer<typeof SystemPermissionDeniedFrame>;

export { SystemHookProgressFrame, SystemHookResponseFrame, SystemHookStartedFrame } from './hook-frames.js';

/**
 * Lines of the session transcript will not be saved (disk full, quota, I/O error). Claude Code's frame (SDK type
 * SDKSessionWritesLostMessage), which it sends at exit. agentd holds lines in memory while writes fail and
 * appends them when writes succeed again (system/agentd_warning `transcript_write_failed`, then
 * `transcript_writes_recovered`); this frame comes when lines are lost for good: at exit while some are still
 * held, when the held lines pass their bound (64 MiB), or when the file cannot be written at all. The code is
 * the OS error code: `ENOSPC`, `EDQUOT`, or another (`EIO`, …; the SDK says more may be added). agentd adds
 * `first_lost_uuid`: the first conversation entry missing from the transcript; nothing recorded after it is in
 * the file either (the transcript stays a prefix of the conversation).
 */
export const SystemSessionWritesLostFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('session_writes_lost'),
  error_code: z.string(),
  lost: z.array(z.enum(['transcript', 'global_config'])),
  transcript_session_ids: z.optional(z.array(z.string())),
  first_lost_uuid: z.optional(z.string()),
  ...Ids,
}));
export type SystemSessionWritesLostFrame = z.infer<typeof SystemSessionWritesLostFrame>;

/** Claude Code's SDKInformationalMessage; agentd sends `level: "warning"` for a project file skipped or cut (README, "Project context"). */
export const SystemInformationalFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('informational'),
  content: z.string(),
  level: z.enum(['info', 'notice', 'suggestion', 'warning']),
  ...Ids,
}));
export type SystemInformationalFrame = z.infer<typeof SystemInformationalFrame>;

/**
 * agentd: something the session was configured with was not used — a settings file that is not JSON, for one —
 * and the session started without it. Claude Code skips such files silently; agentd says so (also on stderr).
 * `code` is stable (`settings_file_invalid`, `project_file_skipped`, `project_untrusted`, `project_env_refused`, …);
 * `path` names the file when there is one.
 */
export const SystemAgentdWarningFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('agentd_warning'),
  code: z.string(),
  message: z.string(),
  path: z.optional(z.string()),
  ...Ids,
}));
export type SystemAgentdWarningFrame = z.infer<typeof SystemAgentdWarningFrame>;

/** agentd: after every model call, its usage and cost and the running totals (for budget-watching hosts). */
export const SystemUsageFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('agentd_usage'),
  model: z.string(),
  call: z.strictObject({
    input_tokens: z.number(),
    output_tokens: z.number(),
    cache_creation_input_tokens: z.number(),
    cache_read_input_tokens: z.number(),
    cost_usd: z.number(),
  }),
  turn_cost_usd: z.number(),
  total_cost_usd: z.number(),
  ...Ids,
}));
export type SystemUsageFrame = z.infer<typeof SystemUsageFrame>;
