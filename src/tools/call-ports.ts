// The ports of the executor's fixed pipeline, declared below both sides: the executor calls them, and hooks and
// permissions implement them (src/hooks, src/permissions), so neither of those has to know the executor.
import type { DecisionMeta } from '../thread/events.js';
import type { AnyTool, Approval, SharedToolContext } from './tool.js';

export interface ToolCallInfo {
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  /** An MCP tool's server and its config source (hooks' `mcp_server`, as Claude Code sends it). */
  mcpServer?: { name: string; source: string };
}

export interface HookPermissionDecision {
  behavior: 'allow' | 'deny' | 'ask';
  reason?: string;
  /** Which hook decided, for the result's metadata. */
  source: string;
}

export interface PreToolUseResult {
  decision?: HookPermissionDecision;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string[];
  /** A hook answered `continue: false`: the turn stops after this batch. */
  stop?: { reason: string };
}

export interface PostToolUseResult {
  additionalContext?: string[];
  /** Replaces what the model sees for this call. */
  updatedOutput?: unknown;
  /** `decision: "block"` on PostToolUse: the reason is fed to the model alongside the result. */
  blockReason?: string;
  stop?: { reason: string };
}

export interface ToolHooks {
  preToolUse(call: ToolCallInfo, signal: AbortSignal): Promise<PreToolUseResult>;
  postToolUse(call: ToolCallInfo & { response: unknown; durationMs: number }, signal: AbortSignal): Promise<PostToolUseResult>;
  postToolUseFailure(
    call: ToolCallInfo & { error: string; isInterrupt: boolean; durationMs: number },
    signal: AbortSignal,
  ): Promise<PostToolUseResult>;
}

export type PermissionVerdict =
  | {
      behavior: 'allow';
      /**
       * The input as the host (can_use_tool, the permission prompt tool) or a PermissionRequest hook rewrote it; the
       * deny rules already hold for it, and the executor checks it against the tool's schema and own checks
       * before it runs (executor/rewrite.ts).
       */
      rewrite?: { input: Record<string, unknown>; by: 'host' | 'hook' };
      meta: DecisionMeta;
      /** Why the call may run (a command only the shell analyser approved runs in the read-only sandbox). */
      approval: Approval;
      /** The real path the decision was made for; the tool must open exactly this file. */
      pinnedRealPath?: string;
    }
  | {
      behavior: 'deny';
      message: string;
      /** The host asked to end the turn along with the deny. */
      interrupt?: boolean;
      meta: DecisionMeta;
      /** Announce as system/permission_denied (an automatic deny, not a host's or a hook's answer). */
      announce?: { reasonType: string; reason: string };
    };

export interface PermissionRequestInfo {
  tool: AnyTool;
  /** Input after schema validation and hook rewrites. */
  input: Record<string, unknown>;
  toolUseId: string;
  hook: HookPermissionDecision | undefined;
  shared: SharedToolContext;
}

export interface PermissionGate {
  check(req: PermissionRequestInfo, signal: AbortSignal): Promise<PermissionVerdict>;
}
