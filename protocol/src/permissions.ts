// Permission vocabulary of the SDK types (protocol.md §6).
import * as z from 'zod/mini';

export const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk', 'auto'] as const;
export const PermissionMode = z.lazy(() => z.enum(PERMISSION_MODES));
export type PermissionMode = z.infer<typeof PermissionMode>;

export const PermissionBehavior = z.lazy(() => z.enum(['allow', 'deny', 'ask']));
export const PermissionUpdateDestination = z.lazy(() => z.enum([
  'userSettings',
  'projectSettings',
  'localSettings',
  'session',
  'cliArg',
]));

export const PermissionRuleValue = z.lazy(() => z.looseObject({
  toolName: z.string(),
  ruleContent: z.optional(z.string()),
}));

const RulesUpdate = <T extends 'addRules' | 'replaceRules' | 'removeRules'>(type: T) =>
  z.looseObject({
    type: z.literal(type),
    rules: z.array(PermissionRuleValue),
    behavior: PermissionBehavior,
    destination: PermissionUpdateDestination,
  });

export const PermissionUpdate = z.lazy(() => z.discriminatedUnion('type', [
  RulesUpdate('addRules'),
  RulesUpdate('replaceRules'),
  RulesUpdate('removeRules'),
  z.looseObject({ type: z.literal('setMode'), mode: PermissionMode, destination: PermissionUpdateDestination }),
  z.looseObject({
    type: z.literal('addDirectories'),
    directories: z.array(z.string()),
    destination: PermissionUpdateDestination,
  }),
  z.looseObject({
    type: z.literal('removeDirectories'),
    directories: z.array(z.string()),
    destination: PermissionUpdateDestination,
  }),
]));
export type PermissionUpdate = z.infer<typeof PermissionUpdate>;

/** The host's answer to `can_use_tool` (validated strictly: `deny.message` is required, as in Claude Code). */
export const PermissionResult = z.lazy(() => z.discriminatedUnion('behavior', [
  z.looseObject({
    behavior: z.literal('allow'),
    updatedInput: z.optional(z.record(z.string(), z.unknown())),
    updatedPermissions: z.optional(z.array(PermissionUpdate)),
    toolUseID: z.optional(z.string()),
    decisionClassification: z.optional(z.string()),
  }),
  z.looseObject({
    behavior: z.literal('deny'),
    message: z.string(),
    interrupt: z.optional(z.boolean()),
    toolUseID: z.optional(z.string()),
    decisionClassification: z.optional(z.string()),
  }),
]));
export type PermissionResult = z.infer<typeof PermissionResult>;

export const DecisionReasonType = z.lazy(() => z.enum([
  'rule',
  'mode',
  'subcommandResults',
  'permissionPromptTool',
  'hook',
  'asyncAgent',
  'sandboxOverride',
  'workingDir',
  'safetyCheck',
  'classifier',
  'other',
]));

/** Outbound `can_use_tool` control request payload. */
export const CanUseToolRequest = z.lazy(() => z.strictObject({
  subtype: z.literal('can_use_tool'),
  tool_name: z.string(),
  input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string(),
  permission_suggestions: z.optional(z.array(PermissionUpdate)),
  blocked_path: z.optional(z.string()),
  decision_reason: z.optional(z.string()),
  decision_reason_type: z.optional(DecisionReasonType),
  display_name: z.optional(z.string()),
  description: z.optional(z.string()),
  title: z.optional(z.string()),
  /** For `mcp__*` tools: the server (its config key) and where its definition came from (`sdk`, `dynamic`, …). */
  mcp_server: z.optional(z.strictObject({ name: z.string(), source: z.string() })),
}));
export type CanUseToolRequest = z.infer<typeof CanUseToolRequest>;

export const PermissionDenial = z.lazy(() => z.strictObject({
  tool_name: z.string(),
  tool_use_id: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
}));
export type PermissionDenial = z.infer<typeof PermissionDenial>;
