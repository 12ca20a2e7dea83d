// What a hook may answer (HookJSONOutput), validated before use: SDK callback answers and command hooks' stdout
// JSON alike. Garbage is a failure, never "no objection".
import * as z from 'zod/mini';

const Destination = z.lazy(() => z.enum(['userSettings', 'projectSettings', 'localSettings', 'session', 'cliArg']));
const Rules = (type: 'addRules' | 'replaceRules' | 'removeRules') =>
  z.looseObject({
    type: z.literal(type),
    rules: z.array(z.looseObject({ toolName: z.string(), ruleContent: z.optional(z.string()) })),
    behavior: z.enum(['allow', 'deny', 'ask']),
    destination: Destination,
  });
const Directories = (type: 'addDirectories' | 'removeDirectories') => z.looseObject({ type: z.literal(type), directories: z.array(z.string()), destination: Destination });

/** A permission update a hook returns: the SDK's PermissionUpdate shape (the mode is checked when applied). */
const PermissionUpdate = z.lazy(() => z.discriminatedUnion('type', [
  Rules('addRules'),
  Rules('replaceRules'),
  Rules('removeRules'),
  z.looseObject({ type: z.literal('setMode'), mode: z.string(), destination: Destination }),
  Directories('addDirectories'),
  Directories('removeDirectories'),
]));

const PermissionRequestDecision = z.lazy(() => z.union([
  z.looseObject({
    behavior: z.literal('allow'),
    updatedInput: z.optional(z.record(z.string(), z.unknown())),
    updatedPermissions: z.optional(z.array(PermissionUpdate)),
  }),
  z.looseObject({ behavior: z.literal('deny'), message: z.optional(z.string()), interrupt: z.optional(z.boolean()) }),
]));

export const HookOutput = z.lazy(() => z.looseObject({
  async: z.optional(z.boolean()),
  continue: z.optional(z.boolean()),
  suppressOutput: z.optional(z.boolean()),
  stopReason: z.optional(z.string()),
  decision: z.optional(z.enum(['approve', 'block'])),
  reason: z.optional(z.string()),
  systemMessage: z.optional(z.string()),
  hookSpecificOutput: z.optional(
    z.looseObject({
      hookEventName: z.optional(z.string()),
      permissionDecision: z.optional(z.enum(['allow', 'deny', 'ask', 'defer'])),
      permissionDecisionReason: z.optional(z.string()),
      updatedInput: z.optional(z.record(z.string(), z.unknown())),
      additionalContext: z.optional(z.string()),
      updatedToolOutput: z.optional(z.unknown()),
      updatedMCPToolOutput: z.optional(z.unknown()),
      decision: z.optional(PermissionRequestDecision),
    }),
  ),
}));
export type HookOutput = z.infer<typeof HookOutput>;

export function parseHookOutput(v: unknown): { ok: true; output: HookOutput } | { ok: false; error: string } {
  const r = HookOutput.safeParse(v ?? {});
  return r.success ? { ok: true, output: r.data } : { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}
