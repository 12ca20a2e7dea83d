// Hook events wired to the ports the executor, the permission layer and the session call. A command hook that
// exits with a code other than 0 or 2 is a non-blocking error for every event (Claude Code's documented
// semantics: reported, then the event goes on as if the hook had not run). Permission-deciding hooks
// (PreToolUse, PermissionRequest) that fail otherwise — timeout, garbage output, a failed SDK callback — block
// the call and say so, where Claude Code lets the call go on (agentd is stricter: the hook's verdict is
// unknown); other hooks' failures are reported and do not change the outcome. A hook registered with
// `onFailure` decides for itself (runner.ts): `block` makes any failure a block, `continue` lets the action go on.
import type { HookPermissionDecision, PostToolUseResult, PreToolUseResult, ToolHooks } from '../tools/call-ports.js';
import type { PermissionRequestHook } from '../permissions/layer.js';
import type { TurnHooks } from './turn-hooks.js';
import type { HookRun, HookRunner } from './runner.js';

export interface HookContext {
  sessionId: string;
  transcriptPath: () => string;
  cwd: () => string;
  permissionMode: () => string;
}

function base(ctx: HookContext, event: string): Record<string, unknown> {
  return { session_id: ctx.sessionId, transcript_path: ctx.transcriptPath(), cwd: ctx.cwd(), permission_mode: ctx.permissionMode(), hook_event_name: event };
}

/** Claude Code's `mcp_server` provenance in tool hooks' inputs: only for MCP tools. */
function mcpField(server: { name: string; source: string } | undefined): Record<string, unknown> {
  return server ? { mcp_server: { name: server.name, source: server.source } } : {};
}

function contextOf(runs: readonly HookRun[]): string[] {
  const out: string[] = [];
  for (const r of runs) if (r.ok && r.output.hookSpecificOutput?.additionalContext) out.push(r.output.hookSpecificOutput.additionalContext);
  return out;
}

function stopOf(runs: readonly HookRun[]): { reason: string } | undefined {
  const r = runs.find((x) => x.ok && x.output.continue === false);
  return r && r.ok ? { reason: r.output.stopReason ?? `stopped by hook ${r.name}` } : undefined;
}

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

export function createToolHooks(runner: HookRunner, ctx: HookContext): ToolHooks {
  return {
    async preToolUse(call, signal): Promise<PreToolUseResult> {
      if (!runner.has('PreToolUse')) return {};
      const runs = await runner.run('PreToolUse', call.toolName, { ...base(ctx, 'PreToolUse'), tool_name: call.toolName, tool_input: call.input, tool_use_id: call.toolUseId, ...mcpField(call.mcpServer) }, signal, call.toolUseId);
      let decision: HookPermissionDecision | undefined;
      let updatedInput: Record<string, unknown> | undefined;
      const consider = (d: HookPermissionDecision): void => {
        if (!decision || RANK[d.behavior] > RANK[decision.behavior]) decision = d;
      };
      for (const r of runs) {
        if (!r.ok) {
          if (r.proceeds) continue;
          consider({ behavior: 'deny', reason: `The PreToolUse hook ${r.name} failed (${r.error}), so the call is blocked.`, source: r.name });
          continue;
        }
        if (r.blocking !== undefined) consider({ behavior: 'deny', reason: r.blocking, source: r.name });
        const hs = r.output.hookSpecificOutput;
        const pd = hs?.permissionDecision ?? (r.output.decision === 'approve' ? 'allow' : r.output.decision === 'block' ? 'deny' : undefined);
        const reason = hs?.permissionDecisionReason ?? r.output.reason;
        // `defer` has no meaning without a host-side deferral; it is treated as "ask".
        if (pd) consider({ behavior: pd === 'defer' ? 'ask' : pd, ...(reason ? { reason } : {}), source: r.name });
        if (hs?.updatedInput) updatedInput = hs.updatedInput;
      }
      const stop = stopOf(runs);
      const additionalContext = contextOf(runs);
      return {
        ...(decision ? { decision } : {}),
        ...(updatedInput ? { updatedInput } : {}),
        ...(additionalContext.length ? { additionalContext } : {}),
        ...(stop ? { stop } : {}),
      };
    },

    async postToolUse(call, signal): Promise<PostToolUseResult> {
      if (!runner.has('PostToolUse')) return {};
      const runs = await runner.run(
        'PostToolUse',
        call.toolName,
        { ...base(ctx, 'PostToolUse'), tool_name: call.toolName, tool_input: call.input, tool_response: call.response, tool_use_id: call.toolUseId, duration_ms: call.durationMs, ...mcpField(call.mcpServer) },
        signal,
        call.toolUseId,
      );
      return postResult(runs);
    },

    async postToolUseFailure(call, signal): Promise<PostToolUseResult> {
      if (!runner.has('PostToolUseFailure')) return {};
      const runs = await runner.run(
        'PostToolUseFailure',
        call.toolName,
        { ...base(ctx, 'PostToolUseFailure'), tool_name: call.toolName, tool_input: call.input, tool_use_id: call.toolUseId, error: call.error, is_interrupt: call.isInterrupt, duration_ms: call.durationMs, ...mcpField(call.mcpServer) },
        signal,
        call.toolUseId,
      );
      return postResult(runs);
    },
  };
}

function postResult(runs: readonly HookRun[]): PostToolUseResult {
  const out: PostToolUseResult = {};
  const ctxs = contextOf(runs);
  if (ctxs.length) out.additionalContext = ctxs;
  for (const r of runs) {
    if (!r.ok) continue;
    const hs = r.output.hookSpecificOutput;
    if (hs?.updatedMCPToolOutput !== undefined) out.updatedOutput = hs.updatedMCPToolOutput;
    if (hs?.updatedToolOutput !== undefined) out.updatedOutput = hs.updatedToolOutput;
    if (r.blocking !== undefined) out.blockReason = r.blocking;
    if (r.output.decision === 'block') out.blockReason = r.output.reason ?? `The PostToolUse hook ${r.name} flagged this result.`;
  }
  const stop = stopOf(runs);
  if (stop) out.stop = stop;
  return out;
}

export function createPermissionRequestHook(runner: HookRunner, ctx: HookContext): PermissionRequestHook {
  return async (req, signal) => {
    if (!runner.has('PermissionRequest')) return undefined;
    const runs = await runner.run(
      'PermissionRequest',
      req.toolName,
      { ...base(ctx, 'PermissionRequest'), tool_name: req.toolName, tool_input: req.input, permission_suggestions: req.suggestions, ...mcpField(req.mcpServer) },
      signal,
      req.toolUseId,
    );
    for (const r of runs) {
      if (!r.ok && r.proceeds) continue;
      if (!r.ok) return { behavior: 'deny', message: `The PermissionRequest hook ${r.name} failed (${r.error}), so the call is denied.`, source: `hook:${r.name}` };
      if (r.blocking !== undefined) return { behavior: 'deny', message: r.blocking, source: `hook:${r.name}` };
    }
    for (const r of runs) {
      const d = r.ok ? r.output.hookSpecificOutput?.decision : undefined;
      if (!d || !r.ok) continue;
      if (d.behavior === 'deny') return { behavior: 'deny', message: d.message ?? `Denied by the PermissionRequest hook ${r.name}.`, ...(d.interrupt ? { interrupt: true } : {}), source: `hook:${r.name}` };
    }
    for (const r of runs) {
      const d = r.ok ? r.output.hookSpecificOutput?.decision : undefined;
      if (d && r.ok && d.behavior === 'allow') {
        return {
          behavior: 'allow',
          ...(d.updatedInput ? { updatedInput: d.updatedInput } : {}),
          ...(d.updatedPermissions ? { updatedPermissions: d.updatedPermissions } : {}),
          source: `hook:${r.name}`,
        };
      }
    }
    return undefined;
  };
}

export function createTurnHooks(runner: HookRunner, ctx: HookContext): TurnHooks {
  return {
    async userPromptSubmit(prompt, signal) {
      if (!runner.has('UserPromptSubmit')) return { additionalContext: [] };
      const runs = await runner.run('UserPromptSubmit', undefined, { ...base(ctx, 'UserPromptSubmit'), prompt }, signal);
      const additionalContext = contextOf(runs);
      for (const r of runs) {
        if (r.ok && r.stdout && !r.stdout.trim().startsWith('{') && r.stdout.trim()) additionalContext.push(r.stdout.trim());
      }
      for (const r of runs) {
        if (!r.ok) continue;
        if (r.blocking !== undefined) return { block: r.blocking, additionalContext };
        if (r.output.decision === 'block') return { block: r.output.reason ?? `blocked by ${r.name}`, additionalContext };
        if (r.output.continue === false) return { block: r.output.stopReason ?? `stopped by ${r.name}`, additionalContext };
      }
      return { additionalContext };
    },
    async stop(input, signal) {
      if (!runner.has('Stop')) return {};
      const runs = await runner.run('Stop', undefined, { ...base(ctx, 'Stop'), stop_hook_active: input.stopHookActive, last_assistant_message: input.lastAssistantMessage }, signal);
      for (const r of runs) {
        if (!r.ok) continue;
        if (r.output.continue === false) return {};
        if (r.blocking !== undefined) return { continueWith: r.blocking };
        if (r.output.decision === 'block') return { continueWith: r.output.reason ?? 'A Stop hook asked to keep going.' };
      }
      return {};
    },
    async preCompact(trigger, customInstructions, signal) {
      if (!runner.has('PreCompact')) return {};
      const runs = await runner.run('PreCompact', trigger, { ...base(ctx, 'PreCompact'), trigger, custom_instructions: customInstructions ?? null }, signal);
      for (const r of runs) {
        if (!r.ok) continue;
        if (r.blocking !== undefined) return { block: r.blocking };
        if (r.output.decision === 'block') return { block: r.output.reason ?? `blocked by ${r.name}` };
      }
      return {};
    },
    async postCompact(trigger, summary, signal) {
      if (!runner.has('PostCompact')) return;
      await runner.run('PostCompact', trigger, { ...base(ctx, 'PostCompact'), trigger, compact_summary: summary }, signal);
    },
    async sessionStart(source, signal) {
      if (!runner.has('SessionStart')) return { additionalContext: [] };
      const runs = await runner.run('SessionStart', source, { ...base(ctx, 'SessionStart'), source }, signal);
      const additionalContext = contextOf(runs);
      for (const r of runs) if (r.ok && r.stdout && !r.stdout.trim().startsWith('{') && r.stdout.trim()) additionalContext.push(r.stdout.trim());
      return { additionalContext };
    },
    async subagentStart(input, signal) {
      if (!runner.has('SubagentStart')) return { additionalContext: [] };
      const runs = await runner.run('SubagentStart', input.agentType, { ...base(ctx, 'SubagentStart'), agent_id: input.agentId, agent_type: input.agentType }, signal);
      return { additionalContext: contextOf(runs) };
    },
    async subagentStop(input, signal) {
      if (!runner.has('SubagentStop')) return {};
      const runs = await runner.run(
        'SubagentStop',
        input.agentType,
        {
          ...base(ctx, 'SubagentStop'),
          stop_hook_active: input.stopHookActive,
          agent_id: input.agentId,
          agent_transcript_path: input.transcriptPath,
          agent_type: input.agentType,
          last_assistant_message: input.lastAssistantMessage,
        },
        signal,
      );
      // As Stop: exit code 2 or decision "block" keeps the subagent going; continue:false ends it.
      for (const r of runs) {
        if (!r.ok) continue;
        if (r.output.continue === false) return {};
        if (r.blocking !== undefined) return { continueWith: r.blocking };
        if (r.output.decision === 'block') return { continueWith: r.output.reason ?? 'A SubagentStop hook asked to keep going.' };
      }
      return {};
    },
  };
}

export interface LifecycleHooks {
  /** Notification (fire and forget): e.g. a permission prompt went to the host. */
  notification(message: string, notificationType: string): void;
  /** SessionEnd, bounded by `timeoutMs`; failures are reported by the runner and ignored. */
  sessionEnd(reason: 'prompt_input_exit' | 'other', timeoutMs: number): Promise<void>;
}

export function createLifecycleHooks(runner: HookRunner, ctx: HookContext): LifecycleHooks {
  return {
    notification(message, notificationType) {
      if (!runner.has('Notification')) return;
      void runner.run('Notification', notificationType, { ...base(ctx, 'Notification'), message, notification_type: notificationType }, new AbortController().signal);
    },
    async sessionEnd(reason, timeoutMs) {
      if (!runner.has('SessionEnd')) return;
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(), timeoutMs);
      try {
        await runner.run('SessionEnd', reason, { ...base(ctx, 'SessionEnd'), reason }, ctl.signal);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
