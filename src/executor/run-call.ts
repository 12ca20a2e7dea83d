// The fixed pipeline for one call that passed schema validation:
// validateInput → PreToolUse hooks → permission → call (with progress and abort) → result mapping →
// PostToolUse (or PostToolUseFailure) hooks. A tool cannot skip a step; every error becomes a result. An input a
// hook or the host rewrote passes the schema and validateInput again before it goes on (rewrite.ts).
import type { ToolResultBlock, ToolResultContent, ToolUseBlock } from '../model/types.js';
import type { DecisionMeta, PermissionDenialInfo, ToolOutcomeKind } from '../thread/events.js';
import type { AnyTool, ContextModifier, ToolProgressUpdate } from '../tools/tool.js';
import type { CallErrorKind, CallPhase } from './call-state.js';
import type { ExecutorDeps } from './executor.js';
import * as msg from './messages.js';
import { checkRewrite } from './rewrite.js';

export interface PipelineOutput {
  block: ToolResultBlock;
  data: unknown;
  outcome: ToolOutcomeKind;
  additionalContext: string[];
  decision?: DecisionMeta;
  denial?: PermissionDenialInfo;
  interruptTurn?: boolean;
  stopReason?: string;
  contextModifier?: ContextModifier;
  nonExecutionKind?: string;
  /** Set unless the outcome is success. */
  errorKind?: CallErrorKind;
}

export interface PipelineInput {
  tool: AnyTool;
  block: ToolUseBlock;
  parsed: unknown;
  deps: ExecutorDeps;
  signal: AbortSignal;
  onProgress: (u: ToolProgressUpdate) => void;
  /** Called as the call enters each phase (validating, awaiting_hooks, awaiting_permission, running). */
  onPhase?: (phase: CallPhase) => void;
}

function errorOutput(block: ToolUseBlock, text: string, errorKind: CallErrorKind, extra: Partial<PipelineOutput> = {}): PipelineOutput {
  return {
    block: { type: 'tool_result', tool_use_id: block.id, content: msg.toolUseError(text), is_error: true },
    data: text.startsWith('Error') || text.startsWith('InputValidationError') ? text : `Error: ${text}`,
    outcome: 'error',
    additionalContext: [],
    errorKind,
    ...extra,
  };
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export async function runPipeline(p: PipelineInput): Promise<PipelineOutput> {
  const { tool, block, deps, signal } = p;
  const shared = deps.getShared();
  let input: unknown = p.parsed;

  // 1. The tool's own checks (file exists, read-before-write, …).
  p.onPhase?.('validating');
  try {
    const v = await tool.validateInput?.(input, { shared, env: deps.env });
    if (v && !v.ok) return errorOutput(block, v.message, 'tool_error');
  } catch (e) {
    return errorOutput(block, `Error: ${describe(e)}`, 'tool_error');
  }

  // 2. PreToolUse hooks: awaited before anything else, never raced with the tool.
  p.onPhase?.('awaiting_hooks');
  const pre = await deps.hooks.preToolUse({ toolName: tool.name, toolUseId: block.id, input: asRecord(input), ...mcpOf(tool) }, signal);
  const additionalContext = [...(pre.additionalContext ?? [])];
  // A rewrite of a call a hook denies does not matter: the deny stands.
  if (pre.updatedInput && pre.decision?.behavior !== 'deny') {
    const r = await checkRewrite({ tool, block, modelInput: p.parsed, rewrite: pre.updatedInput, source: { by: 'hook', event: 'PreToolUse' }, shared, env: deps.env, additionalContext });
    if (!r.ok) return { ...r.output, ...(pre.stop ? { stopReason: pre.stop.reason } : {}) };
    input = r.input;
  }

  // 3. Permission: mode, rules, hook decision, host.
  p.onPhase?.('awaiting_permission');
  const verdict = await deps.permissions.check(
    { tool, input: asRecord(input), toolUseId: block.id, hook: pre.decision, shared },
    signal,
  );
  if (verdict.behavior === 'deny') {
    if (verdict.announce) {
      deps.emit({
        type: 'permission_denied',
        toolName: tool.name,
        toolUseId: block.id,
        message: verdict.message,
        reasonType: verdict.announce.reasonType,
        reason: verdict.announce.reason,
      });
    }
    return {
      block: { type: 'tool_result', tool_use_id: block.id, content: verdict.message, is_error: true },
      data: `Error: ${verdict.message}`,
      outcome: 'denied',
      additionalContext,
      decision: verdict.meta,
      denial: { toolName: tool.name, toolUseId: block.id, input: asRecord(input) },
      nonExecutionKind: 'permission-rule',
      errorKind: 'permission_denied',
      ...(verdict.interrupt ? { interruptTurn: true } : {}),
      ...(pre.stop ? { stopReason: pre.stop.reason } : {}),
    };
  }
  if (verdict.rewrite) {
    const source = verdict.rewrite.by === 'host' ? { by: 'host' as const } : { by: 'hook' as const, event: 'PermissionRequest' as const };
    const r = await checkRewrite({ tool, block, modelInput: p.parsed, rewrite: verdict.rewrite.input, source, shared, env: deps.env, additionalContext });
    if (!r.ok) return { decision: verdict.meta, ...r.output, ...(pre.stop ? { stopReason: pre.stop.reason } : {}) };
    input = r.input;
  }

  // 4. Run it.
  const started = deps.now();
  const info = { toolName: tool.name, toolUseId: block.id, input: asRecord(input), ...mcpOf(tool) };
  let outcome;
  p.onPhase?.('running');
  try {
    outcome = await tool.call(input, {
      toolUseId: block.id,
      shared,
      env: deps.env,
      signal,
      progress: p.onProgress,
      approval: verdict.approval,
      ...(verdict.pinnedRealPath !== undefined ? { pinnedRealPath: verdict.pinnedRealPath } : {}),
    });
  } catch (e) {
    if (signal.aborted) throw e;
    const text = `Error: ${describe(e)}`;
    const post = await deps.hooks.postToolUseFailure({ ...info, error: text, isInterrupt: false, durationMs: deps.now() - started }, signal);
    return errorOutput(block, text, 'tool_error', {
      additionalContext: [...additionalContext, ...(post.additionalContext ?? [])],
      decision: verdict.meta,
      ...(pre.stop || post.stop ? { stopReason: (pre.stop ?? post.stop)?.reason } : {}),
    });
  }

  // 5. Result mapping and 6. PostToolUse hooks.
  const durationMs = deps.now() - started;
  let content: ToolResultContent = outcome.content;
  const post = outcome.isError
    ? await deps.hooks.postToolUseFailure({ ...info, error: typeof content === 'string' ? content : 'tool error', isInterrupt: false, durationMs }, signal)
    : await deps.hooks.postToolUse({ ...info, response: outcome.data, durationMs }, signal);
  if (post.updatedOutput !== undefined) {
    content = typeof post.updatedOutput === 'string' ? post.updatedOutput : JSON.stringify(post.updatedOutput);
  }
  // Last line of defence: agentd's own credentials never reach the model, whatever a tool managed to print.
  const redact = deps.env.redact;
  if (redact) content = typeof content === 'string' ? redact(content) : content.map((b) => (b.type === 'text' ? { ...b, text: redact(b.text) } : b));
  if (post.blockReason) additionalContext.push(post.blockReason);
  additionalContext.push(...(post.additionalContext ?? []));
  if (redact) for (let i = 0; i < additionalContext.length; i++) additionalContext[i] = redact(additionalContext[i] as string);
  const stop = pre.stop ?? post.stop;
  return {
    block: {
      type: 'tool_result',
      tool_use_id: block.id,
      content,
      // Tools that state success explicitly (Bash) get is_error:false on the wire, as in Claude Code.
      ...(outcome.isError ? { is_error: true } : outcome.isError === false ? { is_error: false } : {}),
    },
    data: outcome.data,
    outcome: outcome.isError ? 'error' : 'success',
    ...(outcome.isError ? { errorKind: 'tool_error' as const } : {}),
    additionalContext,
    decision: verdict.meta,
    ...(outcome.contextModifier ? { contextModifier: outcome.contextModifier } : {}),
    ...(stop ? { stopReason: stop.reason } : {}),
  };
}

/** `mcpServer` for hook inputs, present only for MCP tools. */
function mcpOf(tool: AnyTool): { mcpServer?: { name: string; source: string } } {
  return tool.mcpServer ? { mcpServer: { name: tool.mcpServer.name, source: tool.mcpServer.source } } : {};
}
