// Merges the settings layers (settings-files.ts) into one typed, immutable result, with Claude Code's precedence:
// policy > --settings > local > project > user for single values (`model`, `defaultMode`, `outputStyle`, …);
// `env` merges key by key in the same order; permission rules, directories and hooks accumulate from every
// layer (a deny anywhere denies). The managed policy cannot be loosened: its locks (allowManagedPermissionRulesOnly,
// allowManagedHooksOnly, disableAllHooks, disableBypassPermissionsMode…) are applied here, and the security keys
// agentd cannot honour are refused.
//
// Trust: the project and local files belong to the repository (a clone brings them; the model could write them).
//  - Until the repository is trusted (project-trust.ts), nothing in them runs code or redirects it: their hooks,
//    `env`, apiKeyHelper and the other helpers (awsAuthRefresh, awsCredentialExport, gcpAuthRefresh,
//    otelHeadersHelper, statusLine, fileSuggestion), plugins and marketplaces are skipped, each file's list said
//    once (`untrusted`). Trusted, they apply, but their `env` only sets data (repo-env.ts; the others are
//    `envRefused`).
//  - Grants (allow rules, additionalDirectories, defaultMode acceptEdits/bypassPermissions) apply from a trusted
//    repository, or from a file whose exact content agentd wrote for the host (a permission update persisted to
//    projectSettings/localSettings, recorded in the config directory: the finer-grained trust store). Otherwise:
//    project: no allow rules and no additionalDirectories (as Claude Code 2.1.330 untrusted, measured); local: no
//    allow rules for Bash, Write, Edit, MultiEdit, NotebookEdit and no additionalDirectories; both: defaultMode
//    acceptEdits and bypassPermissions are ignored (`ignored`).
//  - Approvals of the project's .mcp.json servers (enableAllProjectMcpServers, enabledMcpjsonServers) count from the
//    user's own layers only (user file, --settings, policy): a repository cannot approve its own servers.
// Deny and ask rules, disableAllHooks, disabledMcpjsonServers and the other modes only restrict and are always
// honoured.
import { type SandboxLayer, mergeSandboxBlocks } from '../tools/sandbox/settings.js';
import { type PermissionModeName, normalizeMode } from '../permissions/modes.js';
import { type PermissionRule, type RuleSource, formatRule, rulesFrom } from '../permissions/rules.js';
import { type ModelPolicy, type SettingsTypeWarning, modelPolicyFrom } from '../model/model-allowlist.js';
import { StartupError } from './errors.js';
import type { LayerSource, SettingsLayer, SettingsProblem } from './settings-files.js';
import { IMPLEMENTED_KEYS, IMPLEMENTED_PERMISSION_KEYS, REFUSED_SETTINGS, valueAt } from './settings-schema.js';
import { type RequestSettingsFromFiles, requestSettingsFrom } from './settings-effort.js';
import { repoEnvRefusal } from './repo-env.js';

export interface SettingsCommandHook {
  event: string;
  matcher: string | undefined;
  command: string;
  timeoutSec: number | undefined;
  /** What the hook's failure does (hooks/runner.ts OnFailure); unset: agentd's default. */
  onFailure?: 'continue' | 'block';
  source: RuleSource;
  /** False for hooks whose file may not grant (settings trust): their answers cannot allow or add permissions. */
  grants: boolean;
}

export interface ResolvedSettings {
  rules: readonly PermissionRule[];
  defaultMode: PermissionModeName | undefined;
  additionalDirectories: readonly string[];
  commandHooks: readonly SettingsCommandHook[];
  /** `.mcp.json` servers a settings file turned off (`disabledMcpjsonServers`): never started. */
  disabledMcpjsonServers: readonly string[];
  /** The user's own approval of the project's .mcp.json servers (user file, --settings, policy). */
  projectMcpApproval: { readonly all: boolean; readonly names: readonly string[] };
  /** Variables every tool, hook and MCP stdio server gets (settings `env`, merged). */
  childEnv: Readonly<Record<string, string>>;
  /** The subset that may also configure agentd itself (from user, --settings and policy layers only). */
  ownEnv: Readonly<Record<string, string>>;
  model: string | undefined;
  outputStyle: string | undefined;
  apiKeyHelper: { command: string; file: string } | undefined;
  includeCoAuthoredBy: boolean | undefined;
  cleanupPeriodDays: number | undefined;
  /** Modes no session may enter (disableBypassPermissionsMode / disableAutoMode: "disable"), with the file. */
  disabledModes: ReadonlyMap<PermissionModeName, string>;
  /** permissions.denyInsteadOfPrompting: a call that would ask is denied. */
  denyInsteadOfPrompting: boolean;
  /** The policy allows only its own permission rules: host updates cannot add allow rules. */
  managedRulesOnly: boolean;
  /** effortLevel, maxEffortLevel, modelSettings, alwaysThinkingEnabled, showThinkingSummaries (settings-effort.ts). */
  request: RequestSettingsFromFiles;
  /** The `sandbox` blocks of the layers merged (tools/sandbox/settings.ts mergeSandboxBlocks; resolveSandboxSettings reads it). */
  sandbox: unknown;
  /** What was not honoured from untrusted project/local files (or locked out by policy), for the log and tests. */
  ignored: ReadonlyArray<{ file: string; what: string }>;
  /** What a repository's file carries that runs or redirects code, skipped because the repository is not trusted. */
  untrusted: ReadonlyArray<{ file: string; skipped: readonly string[] }>;
  /** Variables a trusted repository's `env` may not set (repo-env.ts), with why. */
  envRefused: ReadonlyArray<{ file: string; name: string; why: string }>;
  /** Keys agentd does not implement, once per file. */
  unsupported: ReadonlyArray<{ file: string; key: string }>;
  /** availableModels / enforceAvailableModels / availableModelsMatch, merged (model/model-allowlist.ts). */
  modelPolicy: ModelPolicy;
  /** Keys honoured with a fail-closed reading because their value has the wrong type: file, key, what is expected. */
  typeWarnings: readonly SettingsTypeWarning[];
  problems: readonly SettingsProblem[];
}

/** Allow rules that grant shell or write access. */
const GRANTING_TOOLS = new Set(['Bash', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** Keys of a repository's file that run or redirect code and that agentd does not implement: said as skipped. */
const UNTRUSTED_CODE_KEYS = ['awsAuthRefresh', 'awsCredentialExport', 'gcpAuthRefresh', 'otelHeadersHelper', 'statusLine', 'fileSuggestion', 'enabledPlugins', 'extraKnownMarketplaces'] as const;

const SANDBOX_SOURCE: Record<LayerSource, SandboxLayer['source']> = { userSettings: 'user', projectSettings: 'project', localSettings: 'project', flagSettings: 'flag', policySettings: 'policy' };

const LAYER_ORDER: Record<LayerSource, number> = { userSettings: 0, projectSettings: 1, localSettings: 2, flagSettings: 3, policySettings: 4 };

export function resolveSettings(input: {
  layers: readonly SettingsLayer[];
  problems: readonly SettingsProblem[];
  /** The trust store: files agentd wrote for the host, by path, with the content it wrote (config/trust.ts). */
  trust: Readonly<Record<string, string>>;
  /** Whether the repository is trusted (config/project-trust.ts). */
  repositoryTrusted: boolean;
  warnRule: (rule: string, file: string) => void;
}): ResolvedSettings {
  const layers = [...input.layers].sort((a, b) => LAYER_ORDER[a.source] - LAYER_ORDER[b.source]);
  const policy = layers.filter((l) => l.source === 'policySettings');
  const policyOn = (k: 'allowManagedPermissionRulesOnly' | 'allowManagedHooksOnly' | 'disableAllHooks'): boolean => policy.some((l) => l.data[k] === true);
  const managedRulesOnly = policyOn('allowManagedPermissionRulesOnly');
  const managedHooksOnly = policyOn('allowManagedHooksOnly');
  const policyNoHooks = policyOn('disableAllHooks');

  // Refusals first: a security setting agentd cannot honour stops the start-up, from whichever layer.
  for (const l of layers) {
    for (const r of REFUSED_SETTINGS) {
      const v = valueAt(l.raw, r.path);
      if (r.restrictive(v)) {
        throw new StartupError(
          l.source === 'policySettings' ? 'managed_settings_unsupported' : 'settings_unsupported',
          `${l.file} sets ${r.path.join('.')}, a security setting agentd cannot honour (${r.why}); remove it or use Claude Code.`,
        );
      }
    }
  }

  const rules: PermissionRule[] = [];
  const additionalDirectories: string[] = [];
  const commandHooks: SettingsCommandHook[] = [];
  const disabledMcpjsonServers: string[] = [];
  const approvedMcp = { all: false, names: [] as string[] };
  const untrusted: Array<{ file: string; skipped: string[] }> = [];
  const envRefused: Array<{ file: string; name: string; why: string }> = [];
  const childEnv: Record<string, string> = {};
  const ownEnv: Record<string, string> = {};
  const disabledModes = new Map<PermissionModeName, string>();
  const ignored: Array<{ file: string; what: string }> = [];
  const unsupported: Array<{ file: string; key: string }> = [];
  let defaultMode: PermissionModeName | undefined;
  let denyInsteadOfPrompting = false;
  let model: string | undefined;
  let outputStyle: string | undefined;
  let apiKeyHelper: ResolvedSettings['apiKeyHelper'];
  let includeCoAuthoredBy: boolean | undefined;
  let cleanupPeriodDays: number | undefined;
  const sandboxLayers: Array<SandboxLayer & { file: string }> = [];
  // Hooks: disableAllHooks in a non-policy layer turns off the hooks of non-policy layers only.
  const userNoHooks = layers.some((l) => l.source !== 'policySettings' && l.data.disableAllHooks === true);

  for (const l of layers) {
    const s = l.data;
    const repoFile = l.source === 'projectSettings' || l.source === 'localSettings';
    // Grants: from the user's layers, a trusted repository, or a file agentd wrote for the host.
    const trusted = !repoFile || input.repositoryTrusted || input.trust[l.file] === l.text;
    // Code: from the user's layers, or a trusted repository (agentd writing a file vets only what it wrote).
    const runsCode = !repoFile || input.repositoryTrusted;
    const isPolicy = l.source === 'policySettings';
    const ignore = (what: string): void => void ignored.push({ file: l.file, what });
    const skipped: string[] = [];
    if (!runsCode) for (const k of UNTRUSTED_CODE_KEYS) if (l.raw[k] !== undefined) skipped.push(k);
    for (const k of Object.keys(l.raw)) if (!IMPLEMENTED_KEYS.has(k) && !REFUSED_SETTINGS.some((r) => r.path[0] === k) && !skipped.includes(k)) unsupported.push({ file: l.file, key: k });
    const p = s.permissions;
    if (p) {
      for (const k of Object.keys(p)) if (!IMPLEMENTED_PERMISSION_KEYS.has(k) && !REFUSED_SETTINGS.some((r) => r.path[1] === k)) unsupported.push({ file: l.file, key: `permissions.${k}` });
      const warn = (rule: string): void => input.warnRule(rule, l.file);
      const lockedOut = managedRulesOnly && !isPolicy;
      for (const r of rulesFrom(p.allow ?? [], 'allow', l.source, l.baseDir, warn)) {
        if (lockedOut) ignore(`allow rule ${formatRule(r)} (allowManagedPermissionRulesOnly)`);
        else if (!trusted && (l.source === 'projectSettings' || GRANTING_TOOLS.has(r.toolName))) ignore(`allow rule ${formatRule(r)}`);
        else rules.push(r);
      }
      // Deny and ask rules only restrict: kept from every layer, whatever the policy locks.
      rules.push(...rulesFrom(p.deny ?? [], 'deny', l.source, l.baseDir, warn));
      rules.push(...rulesFrom(p.ask ?? [], 'ask', l.source, l.baseDir, warn));
      if (p.defaultMode !== undefined) {
        const m = normalizeMode(p.defaultMode);
        if (!m) input.warnRule(`defaultMode ${p.defaultMode}`, l.file);
        else if (!trusted && (m === 'acceptEdits' || m === 'bypassPermissions')) ignore(`defaultMode ${m}`);
        else defaultMode = m;
      }
      if (trusted && !lockedOut) additionalDirectories.push(...(p.additionalDirectories ?? []));
      else for (const d of p.additionalDirectories ?? []) ignore(`additionalDirectories ${d}`);
      if (p.disableBypassPermissionsMode === 'disable' && !disabledModes.has('bypassPermissions')) disabledModes.set('bypassPermissions', l.file);
      if (p.disableAutoMode === 'disable' && !disabledModes.has('auto')) disabledModes.set('auto', l.file);
      if (p.denyInsteadOfPrompting === true) denyInsteadOfPrompting = true;
    }
    if (s.disableAutoMode === 'disable' && !disabledModes.has('auto')) disabledModes.set('auto', l.file);
    disabledMcpjsonServers.push(...(s.disabledMcpjsonServers ?? []));
    if (!repoFile) {
      if (s.enableAllProjectMcpServers === true) approvedMcp.all = true;
      approvedMcp.names.push(...(s.enabledMcpjsonServers ?? []));
    }

    const skippedEnv: string[] = [];
    for (const [k, v] of Object.entries(s.env ?? {})) {
      if (v === undefined || v === null) continue;
      // Claude Code stringifies numbers and booleans in `env`; an object or array there is kept as JSON.
      const value = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? `${v}` : JSON.stringify(v);
      if (repoFile) {
        if (!runsCode) {
          skippedEnv.push(k);
          continue;
        }
        const why = repoEnvRefusal(k);
        if (why !== undefined) {
          envRefused.push({ file: l.file, name: k, why });
          continue;
        }
      }
      childEnv[k] = value;
      if (!repoFile) ownEnv[k] = value;
    }
    if (skippedEnv.length) skipped.push(`env (${skippedEnv.join(', ')})`);

    const hooksOff = isPolicy ? policyNoHooks : policyNoHooks || userNoHooks || managedHooksOnly;
    let untrustedHooks = 0;
    for (const [event, entries] of Object.entries(s.hooks ?? {})) {
      for (const e of entries) {
        for (const h of e.hooks) {
          if (!runsCode && !hooksOff) {
            untrustedHooks++;
            continue;
          }
          if (hooksOff) {
            ignore(`hook ${event} ${h.command ?? ''} (${managedHooksOnly && !isPolicy ? 'allowManagedHooksOnly' : 'disableAllHooks'})`);
            continue;
          }
          if ((h.type ?? 'command') !== 'command' || !h.command) {
            unsupported.push({ file: l.file, key: `hooks.${event} (type ${h.type ?? 'command'})` });
            continue;
          }
          commandHooks.push({ event, matcher: e.matcher, command: h.command, timeoutSec: h.timeout, ...(h.onFailure ? { onFailure: h.onFailure } : {}), source: l.source, grants: trusted });
        }
      }
    }
    if (untrustedHooks) skipped.unshift(`hooks (${untrustedHooks})`);
    // Single values: the highest layer wins (layers are in ascending order).
    if (s.model !== undefined) model = s.model;
    if (s.outputStyle !== undefined) outputStyle = s.outputStyle;
    if (s.apiKeyHelper !== undefined) {
      // A repository's file naming a program to run for credentials is code execution the host never saw.
      if (runsCode) apiKeyHelper = { command: s.apiKeyHelper, file: l.file };
      else skipped.push('apiKeyHelper');
    }
    if (s.includeCoAuthoredBy !== undefined) includeCoAuthoredBy = s.includeCoAuthoredBy;
    if (s.cleanupPeriodDays !== undefined) {
      if (Number.isInteger(s.cleanupPeriodDays) && s.cleanupPeriodDays >= 1) cleanupPeriodDays = s.cleanupPeriodDays;
      else input.warnRule(`cleanupPeriodDays ${s.cleanupPeriodDays} (must be a positive integer)`, l.file);
    }
    if (l.raw['sandbox'] !== undefined) sandboxLayers.push({ block: l.raw['sandbox'], source: SANDBOX_SOURCE[l.source], trusted, file: l.file });
    if (skipped.length) untrusted.push({ file: l.file, skipped });
  }
  // Lists combined across layers; a repository's file can only tighten; the managed locks bind the layers below
  // (tools/sandbox/settings.ts, managed.ts).
  const sandbox = mergeSandboxBlocks(sandboxLayers);
  sandbox.layers.forEach((r, i) => {
    const file = sandboxLayers[i]?.file ?? '';
    for (const what of r.ignored) ignored.push({ file, what });
    // A value of the wrong type: said with the file, never a stop (tools/sandbox/credentials.ts, managed.ts).
    for (const what of r.invalid) input.warnRule(what, file);
  });
  const request = requestSettingsFrom(layers, input.warnRule, (key, file) => void unsupported.push({ file, key }));
  // Model restrictions only restrict: honoured from every layer, the repository's files included (as Claude Code).
  const models = modelPolicyFrom(layers.map((l) => ({ policy: l.source === 'policySettings', file: l.file, raw: l.raw })));
  return Object.freeze({
    rules: Object.freeze(rules),
    defaultMode,
    additionalDirectories: Object.freeze(additionalDirectories),
    commandHooks: Object.freeze(commandHooks),
    disabledMcpjsonServers: Object.freeze(disabledMcpjsonServers),
    projectMcpApproval: Object.freeze({ all: approvedMcp.all, names: Object.freeze(approvedMcp.names) }),
    childEnv: Object.freeze(childEnv),
    ownEnv: Object.freeze(ownEnv),
    model,
    outputStyle,
    apiKeyHelper,
    includeCoAuthoredBy,
    cleanupPeriodDays,
    disabledModes,
    denyInsteadOfPrompting,
    managedRulesOnly,
    sandbox: sandbox.merged,
    request,
    ignored: Object.freeze(ignored),
    untrusted: Object.freeze(untrusted),
    envRefused: Object.freeze(envRefused),
    unsupported: Object.freeze(unsupported),
    modelPolicy: models.policy,
    typeWarnings: Object.freeze(models.warnings),
    problems: Object.freeze([...input.problems]),
  });
}
