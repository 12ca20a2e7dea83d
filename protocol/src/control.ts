// SDK→daemon control request payloads and the daemon's success payloads (protocol.md §4.2).
import * as z from 'zod/mini';
import { HookRegistrations } from './hooks.js';
import { McpAuthenticateRequest, McpClearAuthRequest, McpOAuthCallbackUrlRequest } from './mcp-auth.js';
import { PermissionMode } from './permissions.js';

export const InitializeRequest = z.looseObject({
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
  /** The SDK's `skills` option: which skills the main session lists (exact name or `:name` suffix). */
  skills: z.optional(z.nullable(z.array(z.string()))),
  /** `pluginsDelivery: 'initialize'`: the SDK's `plugins` option (one --plugin-dir each). */
  plugins: z.optional(
    z.nullable(z.array(z.looseObject({ type: z.literal('local'), path: z.string(), skipMcpDiscovery: z.optional(z.nullable(z.boolean())) }))),
  ),
  title: z.optional(z.nullable(z.string())),
});
export type InitializeRequest = z.infer<typeof InitializeRequest>;

export const InterruptRequest = z.looseObject({
  subtype: z.literal('interrupt'),
  cancel_queued: z.optional(z.nullable(z.boolean())),
});

export const SetPermissionModeRequest = z.looseObject({
  subtype: z.literal('set_permission_mode'),
  mode: PermissionMode,
});

export const SetModelRequest = z.looseObject({
  subtype: z.literal('set_model'),
  model: z.optional(z.nullable(z.string())),
});

export const SetMaxThinkingTokensRequest = z.looseObject({
  subtype: z.literal('set_max_thinking_tokens'),
  max_thinking_tokens: z.optional(z.nullable(z.number().check(z.int(), z.gte(0)))),
});

export const McpStatusRequest = z.looseObject({ subtype: z.literal('mcp_status') });

/** agentd → host: an MCP server asks the user for input (`elicitation/create`); the host answers an ElicitationResult. */
export const ElicitationRequest = z.strictObject({
  subtype: z.literal('elicitation'),
  mcp_server_name: z.string(),
  message: z.string(),
  mode: z.optional(z.enum(['form', 'url'])),
  url: z.optional(z.string()),
  elicitation_id: z.optional(z.string()),
  requested_schema: z.optional(z.record(z.string(), z.unknown())),
});
export type ElicitationRequest = z.infer<typeof ElicitationRequest>;

/** The host's answer to `elicitation` (the SDK's ElicitResult; no onElicitation callback → `decline`). */
export const ElicitationResult = z.looseObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
});

/** `reconnectMcpServer(name)`: close the server's connection and connect it again. */
export const McpReconnectRequest = z.looseObject({ subtype: z.literal('mcp_reconnect'), serverName: z.string() });

/** `toggleMcpServer(name, enabled)`: a disabled server is disconnected (status `disabled`) until enabled again. */
export const McpToggleRequest = z.looseObject({ subtype: z.literal('mcp_toggle'), serverName: z.string(), enabled: z.boolean() });

/**
 * `setMcpPermissionModeOverride(serverName, mode)`: pins (or clears, with null) a per-server mode. Tighten-only:
 * it applies only while the session mode would auto-allow. `askForTools` is Claude Code's internal field.
 */
export const SetMcpPermissionModeOverrideRequest = z.looseObject({
  subtype: z.literal('set_mcp_permission_mode_override'),
  serverName: z.string(),
  mode: z.nullable(z.enum(['default', 'auto'])),
  askForTools: z.optional(z.nullable(z.array(z.looseObject({ name: z.string() })))),
});
export const SetMcpPermissionModeOverrideResponse = z.strictObject({ warning: z.optional(z.string()) });

/** `setMcpServers(servers)`: replaces the servers added this way (SDK servers as `{type:'sdk', name}`). */
export const McpSetServersRequest = z.looseObject({ subtype: z.literal('mcp_set_servers'), servers: z.record(z.string(), z.unknown()) });

export const McpSetServersResponse = z.strictObject({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  errors: z.record(z.string(), z.string()),
});

/** A JSON-RPC 2.0 message (request, notification or response) as MCP defines it; checked for `jsonrpc` only. */
export const JsonRpcMessage = z.looseObject({ jsonrpc: z.literal('2.0') });

/**
 * Host → agentd: a message from one of the host's in-process ("SDK") MCP servers (a notification, a request to
 * the client, or a reply). agentd acknowledges with an empty success (protocol.md §8.2).
 */
export const McpMessageRequest = z.looseObject({
  subtype: z.literal('mcp_message'),
  server_name: z.string(),
  message: JsonRpcMessage,
});

/**
 * agentd → host: a JSON-RPC message for the host's SDK server `server_name`. For a request, the host's success
 * reply carries the server's JSON-RPC response as `mcp_response`.
 */
export const McpMessageToHostRequest = z.strictObject({
  subtype: z.literal('mcp_message'),
  server_name: z.string(),
  message: z.record(z.string(), z.unknown()),
});
export type McpMessageToHostRequest = z.infer<typeof McpMessageToHostRequest>;

/**
 * A short title for the session (hidden SDK method `generateSessionTitle(description, {persist})`; the current
 * claude-agent-acp sends it for every new prompt). Claude Code asks a model; agentd derives the title locally
 * unless `agentd_use_model` asks for a model-written one (an agentd extension; see protocol/CHANGELOG.md).
 */
export const GenerateSessionTitleRequest = z.looseObject({
  subtype: z.literal('generate_session_title'),
  description: z.string(),
  persist: z.optional(z.nullable(z.boolean())),
  agentd_use_model: z.optional(z.nullable(z.boolean())),
});

/** `getContextUsage({detail})`: a breakdown of the context window by category. */
export const GetContextUsageRequest = z.looseObject({
  subtype: z.literal('get_context_usage'),
  detail: z.optional(z.nullable(z.enum(['summary', 'full']))),
});

/** Hidden SDK method `enableRemoteControl(enabled, name?)` (claude.ai Remote Control); the adapter's `/remote-control`. */
/** Re-reads the skills (and commands) from disk; answered with the skill commands. */
export const ReloadSkillsRequest = z.looseObject({
  subtype: z.literal('reload_skills'),
});

export const RemoteControlRequest = z.looseObject({
  subtype: z.literal('remote_control'),
  enabled: z.boolean(),
  name: z.optional(z.nullable(z.string())),
});

/** Re-reads the output-style directories; answers the refreshed names. */
export const ReloadOutputStylesRequest = z.looseObject({ subtype: z.literal('reload_output_styles') });

export const ReloadOutputStylesResponse = z.strictObject({ available_output_styles: z.array(z.string()) });
export type ReloadOutputStylesResponse = z.infer<typeof ReloadOutputStylesResponse>;

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
} as const;

export type ControlRequestOf<S extends SupportedControlSubtype> = z.infer<(typeof CONTROL_REQUEST_SCHEMAS)[S]>;

// ---- success payloads ----

export const SlashCommand = z.strictObject({
  name: z.string(),
  description: z.string(),
  argumentHint: z.string(),
  aliases: z.optional(z.array(z.string())),
  builtin: z.optional(z.boolean()),
});

export const ModelInfo = z.strictObject({
  value: z.string(),
  resolvedModel: z.optional(z.string()),
  displayName: z.string(),
  description: z.string(),
  supportsEffort: z.optional(z.boolean()),
  supportsAdaptiveThinking: z.optional(z.boolean()),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

export const AccountInfo = z.strictObject({
  email: z.optional(z.string()),
  organization: z.optional(z.string()),
  subscriptionType: z.optional(z.string()),
  tokenSource: z.optional(z.string()),
  apiKeySource: z.optional(z.string()),
  apiProvider: z.optional(z.string()),
});

/** `reload_skills`: the skills as slash commands, after the reload. */
export const ReloadSkillsResponse = z.strictObject({ skills: z.array(SlashCommand) });
export type ReloadSkillsResponse = z.infer<typeof ReloadSkillsResponse>;

export const InitializeResponse = z.strictObject({
  commands: z.array(SlashCommand),
  agents: z.array(z.strictObject({ name: z.string(), description: z.string(), model: z.optional(z.string()) })),
  output_style: z.string(),
  available_output_styles: z.array(z.string()),
  models: z.array(ModelInfo).check(z.minLength(1)),
  account: AccountInfo,
  hooks_applied: z.optional(z.boolean()),
  hook_on_failure_supported: z.optional(z.boolean()),
  claude_code_version: z.optional(z.string()),
  pid: z.optional(z.number()),
  current_model: z.optional(z.string()),
  current_permission_mode: z.optional(PermissionMode),
  session_state: z.optional(z.enum(['idle', 'running', 'requires_action'])),
  capabilities: z.optional(z.array(z.string())),
  /** Present (true) when the request carried `mcpServers`: they were taken (the TS SDK requires it). */
  mcp_servers_applied: z.optional(z.boolean()),
  /** `initialize.plugins` were given and loaded (their commands, skills and agents; not yet hooks or MCP servers). */
  plugins_applied: z.optional(z.boolean()),
  /** For each SDK server the request sent a manifest for: agentd never uses one (it does the real handshake). */
  sdk_mcp_manifests_parked: z.optional(z.record(z.string(), z.literal('not_honoured'))),
  agentd_version: z.string(),
});
export type InitializeResponse = z.infer<typeof InitializeResponse>;

export const InterruptResponse = z.strictObject({
  still_queued: z.array(z.string()),
  cancelled: z.optional(z.array(z.string())),
});
export type InterruptResponse = z.infer<typeof InterruptResponse>;

export const SetPermissionModeResponse = z.strictObject({ mode: PermissionMode });

/** The SDK's McpServerStatus, the fields agentd fills. `config` never carries `env` or `headers` values. */
export const McpServerStatus = z.strictObject({
  name: z.string(),
  status: z.enum(['connected', 'failed', 'needs-auth', 'pending', 'disabled']),
  serverInfo: z.optional(z.strictObject({ name: z.string(), version: z.string() })),
  error: z.optional(z.string()),
  config: z.optional(z.record(z.string(), z.unknown())),
  scope: z.optional(z.string()),
  source: z.optional(z.string()),
  tools: z.optional(
    z.array(
      z.strictObject({
        name: z.string(),
        description: z.optional(z.string()),
        annotations: z.optional(z.strictObject({ readOnly: z.optional(z.boolean()), destructive: z.optional(z.boolean()), openWorld: z.optional(z.boolean()) })),
      }),
    ),
  ),
});

export const McpStatusResponse = z.strictObject({
  mcpServers: z.array(McpServerStatus),
});

/** The acknowledgement of a host's `mcp_message`. */
export const McpMessageResponse = z.strictObject({});

/** `null` when the description holds nothing to title (as Claude Code answers for "hi"). */
export const GenerateSessionTitleResponse = z.strictObject({ title: z.nullable(z.string()) });
export type GenerateSessionTitleResponse = z.infer<typeof GenerateSessionTitleResponse>;

/** `{}` when Remote Control is switched off (it never is on with agentd); switching it on is refused. */
export const RemoteControlResponse = z.strictObject({});

const ContextCategoryId = z.enum([
  'system_prompt',
  'system_tools',
  'mcp_tools',
  'mcp_instructions',
  'mcp_tools_deferred',
  'system_tools_deferred',
  'custom_agents',
  'memory_files',
  'skills',
  'messages',
  'autocompact_buffer',
  'compact_buffer',
  'free_space',
]);

const Tokens = z.number().check(z.int(), z.gte(0));

/**
 * Claude Code's `SDKControlGetContextUsageResponse` (sdk.d.ts of SDK 0.3.330, the authoritative type), the subset
 * agentd fills. agentd's token counts are estimates (see protocol/CHANGELOG.md), never token-count API calls.
 */
export const GetContextUsageResponse = z.strictObject({
  categories: z.array(
    z.strictObject({
      id: ContextCategoryId,
      name: z.string(),
      tokens: Tokens,
      color: z.string(),
      isDeferred: z.optional(z.boolean()),
      kind: z.enum(['used', 'free', 'buffer', 'deferred']),
    }),
  ),
  totalTokens: Tokens,
  maxTokens: Tokens,
  rawMaxTokens: Tokens,
  percentage: z.number(),
  gridRows: z.array(
    z.array(
      z.strictObject({
        color: z.string(),
        isFilled: z.boolean(),
        categoryName: z.string(),
        tokens: Tokens,
        percentage: z.number(),
        squareFullness: z.number(),
      }),
    ),
  ),
  model: z.string(),
  memoryFiles: z.array(z.strictObject({ path: z.string(), type: z.string(), tokens: Tokens })),
  mcpTools: z.array(z.strictObject({ name: z.string(), serverName: z.string(), tokens: Tokens, isLoaded: z.optional(z.boolean()) })),
  systemTools: z.optional(z.array(z.strictObject({ name: z.string(), tokens: Tokens }))),
  systemPromptSections: z.optional(z.array(z.strictObject({ name: z.string(), tokens: Tokens }))),
  agents: z.array(z.strictObject({ agentType: z.string(), source: z.string(), tokens: Tokens })),
  isAutoCompactEnabled: z.boolean(),
  messageBreakdown: z.optional(
    z.strictObject({
      toolCallTokens: Tokens,
      toolResultTokens: Tokens,
      attachmentTokens: Tokens,
      assistantMessageTokens: Tokens,
      userMessageTokens: Tokens,
      redirectedContextTokens: Tokens,
      unattributedTokens: Tokens,
      toolCallsByType: z.array(z.strictObject({ name: z.string(), callTokens: Tokens, resultTokens: Tokens })),
      attachmentsByType: z.array(z.strictObject({ name: z.string(), tokens: Tokens })),
    }),
  ),
  apiUsage: z.nullable(
    z.strictObject({
      input_tokens: Tokens,
      output_tokens: Tokens,
      cache_creation_input_tokens: Tokens,
      cache_read_input_tokens: Tokens,
    }),
  ),
  /**
   * agentd extension: how the total was made. `"estimate"`: every category at about 4 characters a token;
   * `"api_plus_estimate"`: the API's usage for the last request and its answer, plus an estimate of what was
   * appended since (the categories stay estimates).
   */
  agentd_estimate: z.enum(['estimate', 'api_plus_estimate']),
});
export type GetContextUsageResponse = z.infer<typeof GetContextUsageResponse>;
