// SDK→daemon control request payloads and the daemon's success payloads (protocol.md §4.2).
import * as z from 'zod/mini';
import { HookRegistrations } from './hooks.js';
import { McpAuthenticateRequest, McpClearAuthRequest, McpOAuthCallbackUrlRequest } from './mcp-auth.js';
import { PermissionMode } from './permissions.js';

export const InitializeRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('initialize'),
  // Python sends `hooks: null` when it has none.
  hooks: z.optional(z.nullable(HookRegistrations)),
  // TS 0.3.x sends string[] (`[""]` by default), TS 0.2.x a string.
  systemPrompt: z.optional(z.nullable(z.union([z.string(), z.array(z.string())]))),
  appendSystemPrompt: z.optional(z.nullable(z.string())),
  /** The claude_code preset without its per-session sections (they go to the first user message instead). */
  excludeDynamicSections: z.optional(z.nullable(z.boolean())),
  sdkMcpServers: z.optional(z.nullable(z.array(z.string()))),
  /** `mcpServersDelivery: 'initialize'`: external servers sent here instead of --mcp-config (entries parsed by src/mcp). */
  mcpServers: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  /** Per SDK server: `timeout` and per-tool `tools` policies (values of another shape are ignored, not refused). */
  sdkMcpServerConfigs: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  /** The host's own handshake results; agentd does the real handshake anyway and says so (`not_honoured`). */
  sdkMcpServerManifests: z.optional(z.unknown()),
  jsonSchema: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  agents: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  /** Forward subagents' text and thinking blocks too (by default only their tool calls and results). */
  forwardSubagentText: z.optional(z.nullable(z.boolean())),
  /** The SDK's `skills` option: which skills the main session lists (exact name or `:name` suffix). */
  skills: z.optional(z.nullable(z.array(z.string()))),
  /** `pluginsDelivery: 'initialize'`: the SDK's `plugins` option (one --plugin-dir each). */
  plugins: z.optional(
    z.nullable(z.array(z.looseObject({ type: z.literal('local'), path: z.string(), skipMcpDiscovery: z.optional(z.nullable(z.boolean())) }))),
  ),
  title: z.optional(z.nullable(z.string())),
}));
export type InitializeRequest = z.infer<typeof InitializeRequest>;

export const InterruptRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('interrupt'),
  cancel_queued: z.optional(z.nullable(z.boolean())),
}));

export const SetPermissionModeRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('set_permission_mode'),
  mode: PermissionMode,
}));

export const SetModelRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('set_model'),
  model: z.optional(z.nullable(z.string())),
}));

export const SetMaxThinkingTokensRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('set_max_thinking_tokens'),
  /** A budget (0: thinking off) for the rest of the session; null: back to the start-up choice; absent: unchanged. */
  max_thinking_tokens: z.optional(z.nullable(z.number().check(z.int(), z.gte(0)))),
  /** The thinking display from now on; null: back to the start-up display; absent: unchanged. */
  thinking_display: z.optional(z.nullable(z.enum(['summarized', 'omitted', 'highlights']))),
}));

export const McpStatusRequest = z.lazy(() => z.looseObject({ subtype: z.literal('mcp_status') }));

/** agentd → host: an MCP server asks the user for input (`elicitation/create`); the host answers an ElicitationResult. */
export const ElicitationRequest = z.lazy(() => z.strictObject({
  subtype: z.literal('elicitation'),
  mcp_server_name: z.string(),
  message: z.string(),
  mode: z.optional(z.enum(['form', 'url'])),
  url: z.optional(z.string()),
  elicitation_id: z.optional(z.string()),
  requested_schema: z.optional(z.record(z.string(), z.unknown())),
}));
export type ElicitationRequest = z.infer<typeof ElicitationRequest>;

/** The host's answer to `elicitation` (the SDK's ElicitResult; no onElicitation callback → `decline`). */
export const ElicitationResult = z.lazy(() => z.looseObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
}));

/** `reconnectMcpServer(name)`: close the server's connection and connect it again. */
export const McpReconnectRequest = z.lazy(() => z.looseObject({ subtype: z.literal('mcp_reconnect'), serverName: z.string() }));

/** `toggleMcpServer(name, enabled)`: a disabled server is disconnected (status `disabled`) until enabled again. */
export const McpToggleRequest = z.lazy(() => z.looseObject({ subtype: z.literal('mcp_toggle'), serverName: z.string(), enabled: z.boolean() }));

/**
 * `setMcpPermissionModeOverride(serverName, mode)`: pins (or clears, with null) a per-server mode. Tighten-only:
 * it applies only while the session mode would auto-allow. `askForTools` is Claude Code's internal field.
 */
export const SetMcpPermissionModeOverrideRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('set_mcp_permission_mode_override'),
  serverName: z.string(),
  mode: z.nullable(z.enum(['default', 'auto'])),
  askForTools: z.optional(z.nullable(z.array(z.looseObject({ name: z.string() })))),
}));
export const SetMcpPermissionModeOverrideResponse = z.lazy(() => z.strictObject({ warning: z.optional(z.string()) }));

/** `setMcpServers(servers)`: replaces the servers added this way (SDK servers as `{type:'sdk', name}`). */
export const McpSetServersRequest = z.lazy(() => z.looseObject({ subtype: z.literal('mcp_set_servers'), servers: z.record(z.string(), z.unknown()) }));

export const McpSetServersResponse = z.lazy(() => z.strictObject({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  errors: z.record(z.string(), z.string()),
}));

/** A JSON-RPC 2.0 message (request, notification or response) as MCP defines it; checked for `jsonrpc` only. */
export const JsonRpcMessage = z.lazy(() => z.looseObject({ jsonrpc: z.literal('2.0') }));

/**
 * Host → agentd: a message from one of the host's in-process ("SDK") MCP servers (a notification, a request to
 * the client, or a reply). agentd acknowledges with an empty success (protocol.md §8.2).
 */
export const McpMessageRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('mcp_message'),
  server_name: z.string(),
  message: JsonRpcMessage,
}));

/**
 * agentd → host: a JSON-RPC message for the host's SDK server `server_name`. For a request, the host's success
 * reply carries the server's JSON-RPC response as `mcp_response`.
 */
export const McpMessageToHostRequest = z.lazy(() => z.strictObject({
  subtype: z.literal('mcp_message'),
  server_name: z.string(),
  message: z.record(z.string(), z.unknown()),
}));
export type McpMessageToHostRequest = z.infer<typeof McpMessageToHostRequest>;

/**
 * A short title for the session (hidden SDK method `generateSessionTitle(description, {persist})`; the current
 * claude-agent-acp sends it for every new prompt). Claude Code asks a model; agentd derives the title locally
 * unless `agentd_use_model` asks for a model-written one (an agentd extension; see protocol/CHANGELOG.md).
 */
export const GenerateSessionTitleRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('generate_session_title'),
  description: z.string(),
  persist: z.optional(z.nullable(z.boolean())),
  agentd_use_model: z.optional(z.nullable(z.boolean())),
}));

/** `getContextUsage({detail})`: a breakdown of the context window by category. */
export const GetContextUsageRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('get_context_usage'),
  detail: z.optional(z.nullable(z.enum(['summary', 'full']))),
}));

/** Hidden SDK method `enableRemoteControl(enabled, name?)` (claude.ai Remote Control); the adapter's `/remote-control`. */
/** Re-reads the skills (and commands) from disk; answered with the skill commands. */
export const ReloadSkillsRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('reload_skills'),
}));

export const RemoteControlRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('remote_control'),
  enabled: z.boolean(),
  name: z.optional(z.nullable(z.string())),
}));

/** Re-reads the output-style directories; answers the refreshed names. */
export const ReloadOutputStylesRequest = z.lazy(() => z.looseObject({ subtype: z.literal('reload_output_styles') }));

export const ReloadOutputStylesResponse = z.lazy(() => z.strictObject({ available_output_styles: z.array(z.string()) }));
export type ReloadOutputStylesResponse = z.infer<typeof ReloadOutputStylesResponse>;

/** Stops a subagent task (the SDK's stopTask()); answered `{}` after its task_notification (stopped), as Claude Code does. */
export const StopTaskRequest = z.lazy(() => z.looseObject({ subtype: z.literal('stop_task'), task_id: z.string() }));
export type StopTaskRequest = z.infer<typeof StopTaskRequest>;

/** Subtypes agentd implements; everything else gets `unsupported_request`. */
export const SUPPORTED_CONTROL_SUBTYPES = [
  'initialize',
  'interrupt',
  'set_permission_mode',
  'set_model',
  'set_max_thinking_tokens',
  'mcp_status',
  'mcp_message',
  'mcp_reconnect',
  'mcp_toggle',
  'mcp_set_servers',
  'mcp_authenticate',
  'mcp_oauth_callback_url',
  'mcp_clear_auth',
  'set_mcp_permission_mode_override',
  'generate_session_title',
  'get_context_usage',
  'remote_control',
  'reload_output_styles',
  'reload_skills',
  'stop_task',
] as const;
export type SupportedControlSubtype = (typeof SUPPORTED_CONTROL_SUBTYPES)[number];

export const CONTROL_REQUEST_SCHEMAS = {
  initialize: InitializeRequest,
  interrupt: InterruptRequest,
  set_permission_mode: SetPermissionModeRequest,
  set_model: SetModelRequest,
  set_max_thinking_tokens: SetMaxThinkingTokensRequest,
  mcp_status: McpStatusRequest,
  mcp_message: McpMessageRequest,
  mcp_reconnect: McpReconnectRequest,
  mcp_toggle: McpToggleRequest,
  mcp_set_servers: McpSetServersRequest,
  mcp_authenticate: McpAuthenticateRequest,
  mcp_oauth_callback_url: McpOAuthCallbackUrlRequest,
  mcp_clear_auth: McpClearAuthRequest,
  set_mcp_permission_mode_override: SetMcpPermissionModeOverrideRequest,
  generate_session_title: GenerateSessionTitleRequest,
  reload_skills: ReloadSkillsRequest,
  get_context_usage: GetContextUsageRequest,
  remote_control: RemoteControlRequest,
  reload_output_styles: ReloadOutputStylesRequest,
  stop_task: StopTaskRequest,
} as const;

export type ControlRequestOf<S extends SupportedControlSubtype> = z.infer<(typeof CONTROL_REQUEST_SCHEMAS)[S]>;
