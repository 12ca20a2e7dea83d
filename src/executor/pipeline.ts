// The pass-through implementations of the executor's pipeline ports (declared in tools/call-ports.ts, implemented
// by src/hooks and src/permissions): they keep every step in place when a session has neither.
import type { PermissionGate, ToolHooks } from '../tools/call-ports.js';

export type {
  HookPermissionDecision,
  PermissionGate,
  PermissionRequestInfo,
  PermissionVerdict,
  PostToolUseResult,
  PreToolUseResult,
  ToolCallInfo,
  ToolHooks,
} from '../tools/call-ports.js';

export const passThroughHooks: ToolHooks = {
  preToolUse: async () => ({}),
  postToolUse: async () => ({}),
  postToolUseFailure: async () => ({}),
};

/** Allows everything except what a hook denied. Only for sessions built without a permission layer (tests). */
export const passThroughPermissions: PermissionGate = {
  check: async (req) =>
    req.hook?.behavior === 'deny'
      ? {
          behavior: 'deny',
          message: req.hook.reason ?? 'Denied by a PreToolUse hook.',
          meta: { decision: 'reject', source: 'hook', decidedBy: `hook:${req.hook.source}` },
        }
      : { behavior: 'allow', meta: { decision: 'accept', source: 'config', reasonType: 'other', decidedBy: 'none' }, approval: { by: 'unchecked' } },
};
