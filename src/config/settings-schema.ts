// The shape of Claude Code's settings files, as far as agentd reads them, and what agentd does with every other
// key: each top-level key is implemented, handed to another module, known-and-ignored (logged once with its
// file), or a security setting agentd cannot honour (refused at start-up: nothing fails open).
import * as z from 'zod/mini';
import { restrictiveSandbox } from '../tools/sandbox/managed.js';

const CommandHook = z.lazy(() => z.looseObject({
  type: z.optional(z.string()),
  command: z.optional(z.string()),
  timeout: z.optional(z.number()),
  onFailure: z.optional(z.enum(['continue', 'block'])),
}));
const HookMatcherEntry = z.lazy(() => z.looseObject({ matcher: z.optional(z.string()), hooks: z.array(CommandHook) }));

/** One settings file. Loose: unknown keys survive parsing so they can be reported. */
export const SettingsFile = z.lazy(() => z.looseObject({
  env: z.optional(z.record(z.string(), z.unknown())),
  model: z.optional(z.string()),
  permissions: z.optional(
    z.looseObject({
      allow: z.optional(z.array(z.string())),
      deny: z.optional(z.array(z.string())),
      ask: z.optional(z.array(z.string())),
      defaultMode: z.optional(z.string()),
      additionalDirectories: z.optional(z.array(z.string())),
      disableBypassPermissionsMode: z.optional(z.string()),
      disableAutoMode: z.optional(z.string()),
      denyInsteadOfPrompting: z.optional(z.boolean()),
    }),
  ),
  hooks: z.optional(z.record(z.string(), z.array(HookMatcherEntry))),
  disableAllHooks: z.optional(z.boolean()),
  allowManagedHooksOnly: z.optional(z.boolean()),
  allowManagedPermissionRulesOnly: z.optional(z.boolean()),
  disableAutoMode: z.optional(z.string()),
  includeCoAuthoredBy: z.optional(z.boolean()),
  cleanupPeriodDays: z.optional(z.number()),
  outputStyle: z.optional(z.string()),
  apiKeyHelper: z.optional(z.string()),
  disabledMcpjsonServers: z.optional(z.array(z.string())),
  enabledMcpjsonServers: z.optional(z.array(z.string())),
  enableAllProjectMcpServers: z.optional(z.boolean()),
  parentSettingsBehavior: z.optional(z.string()),
  // Request defaults (settings-effort.ts checks the values: a bad one is a warning, never a skipped file).
  effortLevel: z.optional(z.unknown()),
  maxEffortLevel: z.optional(z.unknown()),
  modelSettings: z.optional(z.unknown()),
  alwaysThinkingEnabled: z.optional(z.unknown()),
  showThinkingSummaries: z.optional(z.unknown()),
}));
export type SettingsFileData = z.infer<typeof SettingsFile>;

/** Top-level keys agentd implements (or reads into the configuration for the module that does). */
export const IMPLEMENTED_KEYS: ReadonlySet<string> = new Set([
  '$schema',
  'env',
  'model',
  'permissions',
  'hooks',
  'disableAllHooks',
  'allowManagedHooksOnly',
  'allowManagedPermissionRulesOnly',
  'disableAutoMode',
  'includeCoAuthoredBy',
  'cleanupPeriodDays',
  'outputStyle',
  'apiKeyHelper',
  'disabledMcpjsonServers',
  // Approvals of the project's .mcp.json servers: read from the user's own layers only (settings-resolve.ts).
  'enabledMcpjsonServers',
  'enableAllProjectMcpServers',
  'parentSettingsBehavior',
  'effortLevel',
  'maxEffortLevel',
  'modelSettings',
  'alwaysThinkingEnabled',
  'showThinkingSummaries',
  // Model restrictions (model/model-allowlist.ts); availableModelsMatch and deniedModels from the policy only.
  'availableModels',
  'enforceAvailableModels',
  'availableModelsMatch',
  'deniedModels',
  // Handled by the sandbox module (the refusal table below covers it until then).
  'sandbox',
  // agentd runs command hooks only, so no HTTP hook can reach a URL or an environment variable: both lists are
  // honoured by construction.
  'allowedHttpHookUrls',
  'httpHookAllowedEnvVars',
]);

/** `permissions` fields agentd implements. */
export const IMPLEMENTED_PERMISSION_KEYS: ReadonlySet<string> = new Set([
  'allow',
  'deny',
  'ask',
  'defaultMode',
  'additionalDirectories',
  'disableBypassPermissionsMode',
  'disableAutoMode',
  'denyInsteadOfPrompting',
]);

/**
 * Security settings agentd cannot honour: present with a restrictive value, they stop the start-up (Claude Code
 * enforces them; running without them would fail open). `restrictive` says which values restrict.
 */
export interface RefusedSetting {
  path: readonly string[];
  restrictive: (v: unknown) => boolean;
  why: string;
}
const truthy = (v: unknown): boolean => v !== undefined && v !== null && v !== false;
const present = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
export const REFUSED_SETTINGS: readonly RefusedSetting[] = [
  { path: ['permissions', 'blockReadsOutsideWorkingDirectories'], restrictive: truthy, why: 'agentd asks (it does not block) for reads outside the working directories' },
  { path: ['permissions', 'blockWritesOutsideWorkingDirectories'], restrictive: truthy, why: 'agentd asks (it does not block) for writes outside the working directories' },
  { path: ['allowManagedMcpServersOnly'], restrictive: truthy, why: 'agentd has no MCP server allowlist' },
  { path: ['allowedMcpServers'], restrictive: present, why: 'agentd has no MCP server allowlist' },
  { path: ['deniedMcpServers'], restrictive: present, why: 'agentd has no MCP server denylist' },
  { path: ['forceLoginMethod'], restrictive: present, why: 'agentd has no login flow to restrict' },
  { path: ['forceLoginOrgUUID'], restrictive: present, why: 'agentd cannot verify the sign-in organization' },
  { path: ['disableSkillShellExecution'], restrictive: truthy, why: 'not implemented' },
  { path: ['strictPluginOnlyCustomization'], restrictive: truthy, why: 'not implemented' },
  { path: ['disableCommandPluginSources'], restrictive: truthy, why: 'not implemented' },
  { path: ['disableSideloadFlags'], restrictive: truthy, why: 'not implemented' },
];

/** The keys model/model-allowlist.ts reads; the SDK's managedSettings may set them (Claude Code keeps them). */
export const MODEL_POLICY_KEYS: ReadonlySet<string> = new Set(['availableModels', 'enforceAvailableModels', 'availableModelsMatch', 'deniedModels']);

export function valueAt(obj: unknown, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/**
 * What the SDK's `managedSettings` (the parent policy tier) may contribute: Claude Code filters it through a
 * restrictive-key allowlist (locks, permission deny/ask rules, sandbox restrictions) and drops the rest (model,
 * env, allow rules, hooks…). Returns the filtered object and the dropped keys.
 */
export function restrictiveOnly(raw: Record<string, unknown>): { kept: Record<string, unknown>; dropped: string[] } {
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  const LOCKS: Record<string, (v: unknown) => boolean> = {
    allowManagedPermissionRulesOnly: (v) => v === true,
    allowManagedHooksOnly: (v) => v === true,
    disableAllHooks: (v) => v === true,
    disableAutoMode: (v) => v === 'disable',
  };
  for (const [k, v] of Object.entries(raw)) {
    const lock = LOCKS[k];
    if (lock) {
      if (lock(v)) kept[k] = v;
      else dropped.push(k);
    } else if (k === 'permissions' && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const p = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [pk, pv] of Object.entries(p)) {
        if (pk === 'deny' || pk === 'ask') out[pk] = pv;
        else if ((pk === 'disableBypassPermissionsMode' || pk === 'disableAutoMode') && pv === 'disable') out[pk] = pv;
        else if ((pk === 'denyInsteadOfPrompting' || pk.startsWith('block')) && pv === true) out[pk] = pv;
        else dropped.push(`permissions.${pk}`);
      }
      kept['permissions'] = out;
    } else if (MODEL_POLICY_KEYS.has(k)) {
      // Model restrictions: kept whatever their value (a malformed one fails closed in model-allowlist.ts).
      kept[k] = v;
    } else if (k === 'sandbox') {
      // The sandbox's restrictions: kept for the sandbox module, without what would loosen it (managed.ts).
      const sb = restrictiveSandbox(v);
      kept[k] = sb.kept;
      dropped.push(...sb.dropped);
    } else if (REFUSED_SETTINGS.some((r) => r.path[0] === k)) {
      // Restrictions of other modules: kept, so the sandbox module (or the refusal) sees them.
      kept[k] = v;
    } else dropped.push(k);
  }
  return { kept, dropped };
}
