// An input someone other than the model wrote — a PreToolUse hook's `updatedInput`, or the host's (can_use_tool,
// the permission prompt tool) or a PermissionRequest hook's when it allowed the call — is held to what the
// model's input is held to before it runs: the tool's schema, then the tool's own checks (validateInput: an
// absolute path, a file Read before it is overwritten, …). The deny rules are applied to it by the permission
// step (a PreToolUse rewrite is what the permission check sees; a rewrite made while allowing is checked against
// the deny rules by permissions/layer.ts).
//
// Claude Code 2.1.330 (test/measure/deny-removes-tool.measure.ts): a hook's rewrite that fails the schema or the
// tool's checks is a deny — "<Event> hook for <Tool> returned updatedInput that failed schema validation: … /
// that the tool refused: …", listed in permission_denials with the model's input; a host's rewrite that fails
// the schema is an is_error result "The permission handler returned updatedInput for <Tool> that failed schema
// validation: …". Keys the schema does not know are dropped from a rewrite rather than refused, as there.
// Claude Code does not run the tool's checks on a host's rewrite (its Write happens to re-check in its call);
// agentd does, with the hook's wording, so a relative path or an unread file is refused before anything runs.
import type { ToolUseBlock } from '../model/types.js';
import { parseRewrite } from '../tools/rewrite-input.js';
import type { AnyTool, SharedToolContext, ToolEnvironment } from '../tools/tool.js';
import * as msg from './messages.js';
import type { PipelineOutput } from './run-call.js';

/** Who rewrote the input. */
export type RewriteSource = { by: 'hook'; event: 'PreToolUse' | 'PermissionRequest' } | { by: 'host' };

export type RewriteCheck = { ok: true; input: unknown } | { ok: false; output: PipelineOutput };

const HOOK_TAIL = "The tool input from the model was valid; the hook's rewrite of it was not.";

function who(tool: AnyTool, src: RewriteSource): string {
  return src.by === 'host' ? `The permission handler returned updatedInput for ${tool.name}` : `${src.event} hook for ${tool.name} returned updatedInput`;
}

/** A hook's rewrite refused: a deny, listed in permission_denials with the model's input (Claude Code's shape). */
function hookDenial(block: ToolUseBlock, tool: AnyTool, modelInput: unknown, text: string, additionalContext: string[]): PipelineOutput {
  return {
    block: { type: 'tool_result', tool_use_id: block.id, content: text, is_error: true },
    data: `Error: ${text}`,
    outcome: 'denied',
    additionalContext,
    decision: { decision: 'reject', source: 'hook', decidedBy: 'hook:updatedInput' },
    denial: { toolName: tool.name, toolUseId: block.id, input: asRecord(modelInput) },
    nonExecutionKind: 'permission-rule',
    errorKind: 'permission_denied',
  };
}

/** A host's rewrite refused: an error result for the call (the host's configuration is at fault, not a decision). */
function hostError(block: ToolUseBlock, text: string, data: string, errorKind: 'input_validation' | 'tool_error', additionalContext: string[]): PipelineOutput {
  return {
    block: { type: 'tool_result', tool_use_id: block.id, content: msg.toolUseError(text), is_error: true },
    data,
    outcome: 'error',
    additionalContext,
    errorKind,
  };
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export async function checkRewrite(p: {
  tool: AnyTool;
  block: ToolUseBlock;
  /** The input the model sent (as parsed), for the denial record. */
  modelInput: unknown;
  rewrite: Record<string, unknown>;
  source: RewriteSource;
  shared: SharedToolContext;
  env: ToolEnvironment;
  additionalContext: string[];
}): Promise<RewriteCheck> {
  const { tool, block, source } = p;
  const parsed = parseRewrite(tool, p.rewrite);
  if (!parsed.ok) {
    const issues = msg.validationIssues(tool.name, parsed.issues, p.rewrite);
    if (source.by === 'hook') return { ok: false, output: hookDenial(block, tool, p.modelInput, `${who(tool, source)} that failed schema validation: ${issues}\n${HOOK_TAIL}`, p.additionalContext) };
    const text = `${who(tool, source)} that failed schema validation: ${issues}\nThis is a configuration issue in your canUseTool callback, PermissionRequest hook, or permission-prompt tool — updatedInput must satisfy the tool's input schema. The tool input from the model was valid.`;
    return { ok: false, output: hostError(block, text, `InputValidationError: permission handler updatedInput failed schema for ${tool.name}`, 'input_validation', p.additionalContext) };
  }
  let refused: string | undefined;
  try {
    const v = await tool.validateInput?.(parsed.value, { shared: p.shared, env: p.env });
    if (v && !v.ok) refused = `${who(tool, source)} that the tool refused: ${v.message}`;
  } catch (e) {
    refused = `${who(tool, source)} that the tool could not check: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (refused === undefined) return { ok: true, input: parsed.value };
  if (source.by === 'hook') return { ok: false, output: hookDenial(block, tool, p.modelInput, `${refused}\n${HOOK_TAIL}`, p.additionalContext) };
  const text = `${refused}\nThe tool input from the model was valid; the permission handler's rewrite of it was not.`;
  return { ok: false, output: hostError(block, text, `Error: ${text}`, 'tool_error', p.additionalContext) };
}
