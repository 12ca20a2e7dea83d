// The texts of synthetic and error results. Each abort reason has its own message so the model (and the
// person reading the transcript) can tell what happened and what to do next.
import type * as z from 'zod/mini';

export function toolUseError(text: string): string {
  return `<tool_use_error>${text}</tool_use_error>`;
}

export function noSuchTool(name: string): string {
  return `Error: No such tool available: ${name}`;
}

/** A tool a whole-tool deny rule took out of the session (Claude Code 2.1.330's words, main loop and subagents alike). */
export function withheldTool(name: string): string {
  return `${noSuchTool(name)}. ${name} is disabled for this session, in subagents as well as here.`;
}

export function unparsableInput(toolName: string, detail: string): string {
  return `InputValidationError: The input for ${toolName} could not be parsed as JSON (${detail}). Send the parameters as a JSON object.`;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

/** A readable InputValidationError listing each bad field (not a dump of zod issues). */
function valueAt(root: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let cur: unknown = root;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null || !Object.prototype.hasOwnProperty.call(cur, k)) return { present: false, value: undefined };
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return { present: cur !== undefined, value: cur };
}

export function inputValidationError(toolName: string, issues: readonly z.core.$ZodIssue[], input: unknown): string {
  return `InputValidationError: ${validationIssues(toolName, issues, input)}`;
}

/** "<Tool> failed due to the following issues: …", one line per bad field (Claude Code's wording). */
export function validationIssues(toolName: string, issues: readonly z.core.$ZodIssue[], input: unknown): string {
  const lines = issues.slice(0, 10).map((i) => {
    const at = pathText(i.path);
    if (i.code === 'invalid_type') {
      const { present, value: received } = valueAt(input, i.path);
      if (!present) return `The required parameter \`${at}\` is missing`;
      return `The parameter \`${at}\` type is expected as \`${i.expected}\` but provided as \`${Array.isArray(received) ? 'array' : received === null ? 'null' : typeof received}\``;
    }
    if (i.code === 'unrecognized_keys') {
      return i.keys.map((k) => `An unexpected parameter \`${at ? `${at}.` : ''}${k}\` was provided`).join('\n');
    }
    return at ? `The parameter \`${at}\` is invalid: ${i.message}` : i.message;
  });
  const more = issues.length > 10 ? `\n(${issues.length - 10} more issues)` : '';
  const noun = issues.length === 1 ? 'issue' : 'issues';
  return `${toolName} failed due to the following ${noun}:\n${lines.join('\n')}${more}`;
}

export const INTERRUPTED_BEFORE_START =
  'Interrupted by the user before this call started: it did not run and changed nothing. Stop and wait for the user to tell you how to proceed.';

export const INTERRUPTED_WHILE_RUNNING =
  'Interrupted by the user while this call was running: it was stopped and may have run in part (files or output may be partly written). Check its effects before repeating it, and wait for the user to tell you how to proceed.';

export function cancelledBySibling(failed: { name: string; id: string; summary: string }): string {
  return `Not run: the earlier call ${failed.name} (${failed.id}${failed.summary ? `: ${failed.summary}` : ''}) failed, so the calls queued behind it were cancelled. Nothing is wrong with the environment; retry this call if it is still needed.`;
}

export const DISCARDED_BY_FALLBACK =
  'Discarded: the model response that requested this call broke off mid-stream and was requested again.';

export const SHUTDOWN_MESSAGE = 'Stopped: agentd is shutting down.';

export function turnStoppedByHook(reason: string): string {
  return `Not run: a hook stopped the turn (${reason}).`;
}

/** tool_use_result strings for calls that did not produce an Output (Claude Code's conventions). */
export const USER_REJECTED = 'User rejected tool use';
