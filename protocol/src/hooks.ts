// Hook registration (initialize.hooks), hook_callback requests and HookJSONOutput (protocol.md §7).
import * as z from 'zod/mini';

export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Notification',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'PreModelSwitch',
  'PostModelSwitch',
  'PermissionRequest',
  'PermissionDenied',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'Elicitation',
  'ElicitationResult',
  'ConfigChange',
  'WorktreeCreate',
  'WorktreeRemove',
  'InstructionsLoaded',
  'CwdChanged',
  'FileChanged',
  'DirectoryAdded',
  'MessageDisplay',
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export const HookCallbackMatcher = z.lazy(() => z.looseObject({
  matcher: z.optional(z.nullable(z.string())),
  hookCallbackIds: z.array(z.string()),
  timeout: z.optional(z.nullable(z.number())),
  onFailure: z.optional(z.nullable(z.enum(['continue', 'block']))),
}));
export type HookCallbackMatcher = z.infer<typeof HookCallbackMatcher>;

/** `initialize.hooks`: unknown event names are kept (and ignored later) rather than rejecting the handshake. */
export const HookRegistrations = z.lazy(() => z.record(z.string(), z.array(HookCallbackMatcher)));
export type HookRegistrations = z.infer<typeof HookRegistrations>;

export const HookCallbackRequest = z.lazy(() => z.strictObject({
  subtype: z.literal('hook_callback'),
  callback_id: z.string(),
  input: z.record(z.string(), z.unknown()),
  tool_use_id: z.optional(z.string()),
}));
export type HookCallbackRequest = z.infer<typeof HookCallbackRequest>;

/** What an SDK hook callback (or a command hook's stdout JSON) may return. Validated, never cast. */
export const HookJSONOutput = z.lazy(() => z.union([
  z.looseObject({ async: z.literal(true), asyncTimeout: z.optional(z.number()) }),
  z.looseObject({
    continue: z.optional(z.boolean()),
    suppressOutput: z.optional(z.boolean()),
    stopReason: z.optional(z.string()),
    decision: z.optional(z.enum(['approve', 'block'])),
    reason: z.optional(z.string()),
    systemMessage: z.optional(z.string()),
    hookSpecificOutput: z.optional(
      z.looseObject({
        hookEventName: z.string(),
        permissionDecision: z.optional(z.enum(['allow', 'deny', 'ask', 'defer'])),
        permissionDecisionReason: z.optional(z.string()),
        updatedInput: z.optional(z.record(z.string(), z.unknown())),
        additionalContext: z.optional(z.string()),
        updatedToolOutput: z.optional(z.unknown()),
        updatedMCPToolOutput: z.optional(z.unknown()),
        decision: z.optional(z.unknown()),
      }),
    ),
  }),
]));
export type HookJSONOutput = z.infer<typeof HookJSONOutput>;
