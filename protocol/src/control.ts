// SDK→daemon control request payloads and the daemon's success payloads (protocol.md §4.2).
import * as z from 'zod/mini';
import { HookRegistrations } from './hooks.js';
import { PermissionMode } from './permissions.js';

export const InitializeRequest = z.looseObject({
  subtype: z.literal('initialize'),
  // Python sends `hooks: null` when it has none.
  hooks: z.optional(z.nullable(HookRegistrations)),
  // TS 0.3.x sends string[] (`[""]` by default), TS 0.2.x a string.
  systemPrompt: z.optional(z.nullable(z.union([z.string(), z.array(z.string())]))),
  appendSystemPrompt: z.optional(z.nullable(z.string())),
  sdkMcpServers: z.optional(z.nullable(z.array(z.string()))),
  jsonSchema: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  agents: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
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

/** Subtypes agentd implements; everything else gets `unsupported_request`. */
export const SUPPORTED_CONTROL_SUBTYPES = [
  'initialize',
  'interrupt',
  'set_permission_mode',
  'set_model',
  'set_max_thinking_tokens',
  'mcp_status',
] as const;
export type SupportedControlSubtype = (typeof SUPPORTED_CONTROL_SUBTYPES)[number];

export const CONTROL_REQUEST_SCHEMAS = {
  initialize: InitializeRequest,
  interrupt: InterruptRequest,
  set_permission_mode: SetPermissionModeRequest,
  set_model: SetModelRequest,
  set_max_thinking_tokens: SetMaxThinkingTokensRequest,
  mcp_status: McpStatusRequest,
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
  agentd_version: z.string(),
});
export type InitializeResponse = z.infer<typeof InitializeResponse>;

export const InterruptResponse = z.strictObject({
  still_queued: z.array(z.string()),
  cancelled: z.optional(z.array(z.string())),
});
export type InterruptResponse = z.infer<typeof InterruptResponse>;

export const SetPermissionModeResponse = z.strictObject({ mode: PermissionMode });

export const McpStatusResponse = z.strictObject({
  mcpServers: z.array(z.looseObject({ name: z.string(), status: z.string() })),
});
