// How an input someone other than the model wrote (a hook's or the host's `updatedInput`) is read against a
// tool's schema: as the model's is, except that keys the schema does not know are dropped rather than refused
// (Claude Code 2.1.330 does the same). One function, so the deny rules (permissions/layer.ts) are checked
// against exactly the input that will run (executor/rewrite.ts).
import type * as z from 'zod/mini';
import type { AnyTool } from './tool.js';

export type RewriteParse = { ok: true; value: unknown } | { ok: false; issues: readonly z.core.$ZodIssue[] };

export function parseRewrite(tool: AnyTool, input: Record<string, unknown>): RewriteParse {
  const first = tool.inputSchema.safeParse(input);
  if (first.success) return { ok: true, value: first.data };
  const real = first.error.issues.filter((i) => i.code !== 'unrecognized_keys');
  if (real.length > 0) return { ok: false, issues: real };
  const second = tool.inputSchema.safeParse(withoutKeys(input, first.error.issues));
  return second.success ? { ok: true, value: second.data } : { ok: false, issues: second.error.issues };
}

function withoutKeys(input: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): Record<string, unknown> {
  const copy = structuredClone(input);
  for (const i of issues) {
    if (i.code !== 'unrecognized_keys') continue;
    let at: unknown = copy;
    for (const k of i.path) at = typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[k] : undefined;
    if (typeof at === 'object' && at !== null) for (const k of i.keys) delete (at as Record<string, unknown>)[k];
  }
  return copy;
}
