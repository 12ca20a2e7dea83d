// Control response payloads agentd writes (outbound). Kept apart from control.ts, which the daemon evaluates at
// run time to parse requests: these schemas serve the tests, the JSON Schema and the types only (runtime.ts).
import * as z from 'zod/mini';
import { PermissionMode } from './permissions.js';

// ---- success payloads ----

export const SlashCommand = z.lazy(() => z.strictObject({
  name: z.string(),
  description: z.string(),
  argumentHint: z.string(),
  aliases: z.optional(z.array(z.string())),
  builtin: z.optional(z.boolean()),
}));

export const ModelInfo = z.lazy(() => z.strictObject({
  value: z.string(),
  resolvedModel: z.optional(z.string()),
  displayName: z.string(),
  description: z.string(),
  supportsEffort: z.optional(z.boolean()),
  supportsAdaptiveThinking: z.optional(z.boolean()),
}));
export type ModelInfo = z.infer<typeof ModelInfo>;

export const AccountInfo = z.lazy(() => z.strictObject({
  email: z.optional(z.string()),
  organization: z.optional(z.string()),
  subscriptionType: z.optional(z.string()),
  tokenSource: z.optional(z.string()),
  apiKeySource: z.optional(z.string()),
  apiProvider: z.optional(z.string()),
}));

/** `reload_skills`: the skills as slash commands, after the reload. */
export const ReloadSkillsResponse = z.lazy(() => z.strictObject({ skills: z.array(SlashCommand) }));
export type ReloadSkillsResponse = z.infer<typeof ReloadSkillsResponse>;

export const InitializeResponse = z.lazy(() => z.strictObject({
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
}));
export type InitializeResponse = z.infer<typeof InitializeResponse>;

export const InterruptResponse = z.lazy(() => z.strictObject({
  still_queued: z.array(z.string()),
  cancelled: z.optional(z.array(z.string())),
}));
export type InterruptResponse = z.infer<typeof InterruptResponse>;

export const SetPermissionModeResponse = z.lazy(() => z.strictObject({ mode: PermissionMode }));

/** The SDK's McpServerStatus, the fields agentd fills. `config` never carries `env` or `headers` values. */
export const McpServerStatus = z.lazy(() => z.strictObject({
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
}));

export const McpStatusResponse = z.lazy(() => z.strictObject({
  mcpServers: z.array(McpServerStatus),
}));

/** The acknowledgement of a host's `mcp_message`. */
export const McpMessageResponse = z.lazy(() => z.strictObject({}));

/** `null` when the description holds nothing to title (as Claude Code answers for "hi"). */
export const GenerateSessionTitleResponse = z.lazy(() => z.strictObject({ title: z.nullable(z.string()) }));
export type GenerateSessionTitleResponse = z.infer<typeof GenerateSessionTitleResponse>;

/** `{}` when Remote Control is switched off (it never is on with agentd); switching it on is refused. */
export const RemoteControlResponse = z.lazy(() => z.strictObject({}));

const ContextCategoryId = z.lazy(() => z.enum([
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
]));

const Tokens = z.number().check(z.int(), z.gte(0));

/**
 * Claude Code's `SDKControlGetContextUsageResponse` (sdk.d.ts of SDK 0.3.330, the authoritative type), the subset
 * agentd fills. agentd's token counts are estimates (see protocol/CHANGELOG.md), never token-count API calls.
 */
export const GetContextUsageResponse = z.lazy(() => z.strictObject({
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
}));
export type GetContextUsageResponse = z.infer<typeof GetContextUsageResponse>;

/**
 * `authUrl` is for the user's browser. `callbackExpected`: the flow waits for the redirect (loopback listener on
 * `callbackPort` for `redirectScheme: "localhost"`, or `mcp_oauth_callback_url`). Neither flag set: the stored
 * authorization was still usable (refreshed) and no user action is needed.
 */
export const McpAuthenticateResponse = z.lazy(() => z.strictObject({
  authUrl: z.optional(z.string()),
  requiresUserAction: z.boolean(),
  callbackExpected: z.boolean(),
  redirectScheme: z.optional(z.enum(['localhost', 'custom'])),
  state: z.optional(z.string()),
  callbackPort: z.optional(z.number()),
}));
export type McpAuthenticateResponse = z.infer<typeof McpAuthenticateResponse>;
