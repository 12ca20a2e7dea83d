// One configuration, resolved once at start-up from flags, the environment and the settings files, then frozen.
// Precedence (documented in the README, checked by test/unit/config):
//  - the managed policy on top: its deny/ask rules and locks bind every other layer (settings-resolve.ts);
//  - model: --model > ANTHROPIC_MODEL > settings `model` (policy > --settings > local > project > user) > default
//    (ANTHROPIC_DEFAULT_MODEL, else the provider's), each name resolved by model/names.ts; a name availableModels
//    does not allow gives way to the default, as in Claude Code (model/model-allowlist.ts);
//  - permission mode: --permission-mode (or --dangerously-skip-permissions) > settings `defaultMode` > default;
//  - environment: the settings `env` (user < project < local < --settings < policy) over the inherited
//    environment, as Claude Code applies it; a repository's file cannot set agentd's own variables;
//  - rules and directories: every layer, the flags' (--allowedTools, --disallowedTools, --add-dir) included;
//  - thinking and effort: request-options.ts (Claude Code's precedence, measured).
//  - repository trust (project-trust.ts): --trust-workspace, AGENTD_TRUST_WORKSPACE, then the trust records of the
//    global config file; decided before the settings, whose repository files depend on it.
// Runtime changes (set_model, set_permission_mode, …) go through the session's methods, never through this object.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PermissionModeName } from '../permissions/modes.js';
import { type PermissionRule, rulesFrom } from '../permissions/rules.js';
import { DEFAULT_MODEL_ID, type ModelChoice, type ModelEnv } from '../model/names.js';
import { ModelNames } from '../model/model-allowlist.js';
import { bedrockRegionPrefix } from '../model/providers/model-ids.js';
import { DEFAULT_BEDROCK_REGION, type EnvConfig, readEnv, readProviderEnv, selectedProvider } from './env.js';
import { StartupError } from './errors.js';
import { readSettingsLayers, type SettingsSourceName } from './settings-files.js';
import { type ResolvedSettings, resolveSettings } from './settings-resolve.js';
import { readTrustStore, trustStorePath } from './trust.js';
import { type RequestFlags, resolveRequestSettings } from './request-options.js';
import type { RequestSettings } from '../model/request-defaults.js';
import { type GlobalConfigRead, globalConfigPath, readGlobalConfig } from './global-config.js';
import { type ProjectTrust, resolveProjectTrust } from './project-trust.js';

/** The first-party default (`default` with no override): Claude Code 2.1.330's, measured. */
export const DEFAULT_MODEL = DEFAULT_MODEL_ID;
/** Where Claude Code reads the admin policy on Linux (macOS and Windows have their own; agentd runs on Linux). */
export const DEFAULT_MANAGED_SETTINGS_DIR = '/etc/claude-code';

type Env = Readonly<Record<string, string | undefined>>;

/** What the flags say (a subset of CliOptions, so this module does not depend on the CLI). */
export interface FlagInput {
  model: string | undefined;
  permissionMode: PermissionModeName | undefined;
  allowDangerouslySkipPermissions: boolean;
  allowedTools: readonly string[];
  disallowedTools: readonly string[];
  addDirs: readonly string[];
  settingSources: readonly SettingsSourceName[] | undefined;
  settings: string | undefined;
  managedSettings: string | undefined;
  request: RequestFlags;
  /** --trust-workspace: the host trusts the repository for this run (absent: it does not). */
  trustWorkspace?: boolean;
}

export interface AppConfig {
  readonly cwd: string;
  readonly home: string;
  readonly configDir: string;
  /** agentd's own environment variables, typed (inherited environment + trusted settings `env`). */
  readonly env: EnvConfig;
  /** The environment child processes (tools, hooks, MCP stdio servers) start from, before credentials are removed. */
  readonly childEnvSource: Env;
  readonly settings: ResolvedSettings;
  /** The session's model at start (resolved), and how every other model name resolves and is allowed. */
  readonly model: {
    readonly initial: ModelChoice;
    readonly names: ModelNames;
    /** The model asked for at start that availableModels leaves out (the session starts on the default). */
    readonly refused?: { readonly name: string; readonly from: string };
  };
  /** Thinking, its display, effort and max_tokens as asked for (request-options.ts). */
  readonly request: RequestSettings;
  /** Whether the repository the session starts in is trusted, and by what (project-trust.ts). */
  readonly trust: ProjectTrust;
  /** Claude Code's global config file, read once (the trust records; the MCP servers of the user and local scopes). */
  readonly globalConfig: { readonly file: string; readonly read: GlobalConfigRead };
  readonly permissions: {
    readonly startMode: PermissionModeName;
    /** Every rule at start: settings layers, then --allowedTools / --disallowedTools. */
    readonly rules: readonly PermissionRule[];
    readonly additionalDirectories: readonly string[];
    /** Why bypassPermissions cannot be entered, or undefined when it can (launched with the flag, not disabled). */
    readonly bypassRefusal: string | undefined;
    /** Modes no session may enter, with the settings file that says so. */
    readonly disabledModes: ReadonlyMap<PermissionModeName, string>;
    readonly denyInsteadOfPrompting: boolean;
    /** allowManagedPermissionRulesOnly: permission updates cannot add allow rules. */
    readonly managedRulesOnly: boolean;
  };
  /** Rules and settings the configuration did not honour, for one log line each. */
  readonly ignored: ReadonlyArray<{ file: string; what: string }>;
}

/**
 * The directory of the admin policy. AGENTD_MANAGED_SETTINGS_DIR (for tests and machines without root) is used only
 * when the system directory holds no policy: an environment variable must not switch an administrator's policy off.
 */
export function managedSettingsDir(override: string | undefined, system: string): string {
  if (override === undefined) return system;
  return existsSync(join(system, 'managed-settings.json')) || existsSync(join(system, 'managed-settings.d')) ? system : override;
}

export interface ResolveInput {
  flags: FlagInput;
  env: Env;
  cwd: string;
  home?: string;
  trust: (configDir: string) => Readonly<Record<string, string>>;
  warnRule: (rule: string, file: string) => void;
  /** The system policy directory (default /etc/claude-code); tests point it elsewhere. */
  systemManagedDir?: string;
}

export function resolveConfig(input: ResolveInput): AppConfig {
  const { flags, cwd } = input;
  const inherited = readEnv(input.env);
  const home = input.home ?? inherited.home ?? homedir();
  const configDir = inherited.configDir ?? join(home, '.claude');
  const globalFile = globalConfigPath(inherited.configDir, home);
  const globalRead = readGlobalConfig(globalFile);
  const trust = resolveProjectTrust({ cwd, home, globalConfigFile: globalFile, globalConfig: globalRead, flag: flags.trustWorkspace === true, env: inherited.trustWorkspace });
  const read = readSettingsLayers({
    sources: flags.settingSources ?? ['user', 'project', 'local'],
    flagSettings: flags.settings,
    managedSettings: flags.managedSettings,
    configDir,
    home,
    cwd,
    managedDir: managedSettingsDir(inherited.managedSettingsDir, input.systemManagedDir ?? DEFAULT_MANAGED_SETTINGS_DIR),
  });
  const settings = resolveSettings({ layers: read.layers, problems: read.problems, trust: input.trust(configDir), repositoryTrusted: trust.kind === 'trusted', warnRule: input.warnRule });
  const env = readEnv({ ...input.env, ...settings.ownEnv });
  const ignored = [...settings.ignored, ...read.droppedManagedKeys.map((k) => ({ file: '--managed-settings', what: `${k} (not a restrictive setting; Claude Code drops it from managedSettings)` }))];
  if (read.parentPolicyDropped) ignored.push({ file: '--managed-settings', what: 'all of it: an admin managed-settings file exists (parentSettingsBehavior is not "merge")' });

  const cliRules: PermissionRule[] = [];
  const warnCli = (r: string): void => input.warnRule(r, 'command line');
  for (const r of rulesFrom(flags.allowedTools, 'allow', 'cliArg', cwd, warnCli)) {
    if (settings.managedRulesOnly) ignored.push({ file: '--allowedTools', what: `allow rule ${r.toolName} (allowManagedPermissionRulesOnly)` });
    else cliRules.push(r);
  }
  cliRules.push(...rulesFrom(flags.disallowedTools, 'deny', 'cliArg', cwd, warnCli));

  const bypassDisabledBy = settings.disabledModes.get('bypassPermissions');
  const bypassRefusal =
    bypassDisabledBy !== undefined
      ? `bypassPermissions is disabled by ${bypassDisabledBy} (permissions.disableBypassPermissionsMode).`
      : flags.allowDangerouslySkipPermissions
        ? undefined
        : 'Cannot set permission mode to bypassPermissions because the session was not launched with --allow-dangerously-skip-permissions or --dangerously-skip-permissions.';
  let startMode: PermissionModeName;
  if (flags.permissionMode !== undefined) startMode = flags.permissionMode;
  else if (settings.defaultMode === 'bypassPermissions' && !flags.allowDangerouslySkipPermissions) startMode = 'default';
  else startMode = settings.defaultMode ?? 'default';
  const disabledBy = settings.disabledModes.get(startMode);
  if (disabledBy !== undefined) {
    throw new StartupError('permission_mode_disabled', `Permission mode ${startMode} was requested, but ${disabledBy} disables it.`);
  }

  const names = new ModelNames(modelEnvOf(env, { ...input.env, ...settings.ownEnv }), settings.modelPolicy);
  if (names.noDefault) {
    throw new StartupError('models_all_denied', 'The managed settings\' deniedModels block the default model and every model it steps down to; no model is left to start on (Claude Code does not start either).');
  }
  const asked = [
    { name: flags.model, from: '--model' },
    { name: env.anthropic.model, from: 'ANTHROPIC_MODEL' },
    { name: settings.model, from: 'settings model' },
  ].find((c) => c.name !== undefined && c.name.trim() !== '');
  let initial = names.resolve(asked?.name);
  let refused: { name: string; from: string } | undefined;
  if (asked?.name !== undefined && !names.allows(asked.name, initial)) {
    refused = { name: asked.name, from: asked.from };
    initial = names.defaultChoice;
  }
  return Object.freeze({
    cwd,
    home,
    configDir,
    env,
    childEnvSource: Object.freeze({ ...input.env, ...settings.childEnv }),
    settings,
    model: Object.freeze({ initial, names, ...(refused ? { refused } : {}) }),
    request: resolveRequestSettings(flags.request, env, settings.request),
    trust: Object.freeze(trust),
    globalConfig: Object.freeze({ file: globalFile, read: globalRead }),
    permissions: Object.freeze({
      startMode,
      rules: Object.freeze([...settings.rules, ...cliRules]),
      additionalDirectories: Object.freeze([...flags.addDirs, ...settings.additionalDirectories].map((d) => resolve(cwd, d))),
      bypassRefusal,
      disabledModes: settings.disabledModes,
      denyInsteadOfPrompting: settings.denyInsteadOfPrompting,
      managedRulesOnly: settings.managedRulesOnly,
    }),
    ignored: Object.freeze(ignored),
  });
}

/** What model names resolve against: the provider, its Bedrock region prefix, the ANTHROPIC_DEFAULT_* overrides. */
export function modelEnvOf(env: EnvConfig, raw: Env): ModelEnv {
  const p = readProviderEnv(raw);
  const o = env.models.overrides;
  const ids = Object.fromEntries(Object.entries(o).map(([f, v]) => [f, v.id]));
  const labels = Object.fromEntries(Object.entries(o).map(([f, v]) => [f, { name: v.name, description: v.description }]));
  return {
    provider: selectedProvider(raw),
    overrides: ids,
    overrideLabels: labels,
    defaultModel: env.models.defaultModel,
    bedrockPrefix: bedrockRegionPrefix(p.bedrock.region ?? DEFAULT_BEDROCK_REGION, p.bedrock.regionPrefix),
    legacyRemap: env.models.legacyRemap,
  };
}

/** The settings layers alone, resolved (no flags): for tests and the tools that inspect settings. */
export function loadSettings(o: {
  sources: readonly SettingsSourceName[];
  flagSettings: string | undefined;
  managedSettings?: string | undefined;
  managedDir?: string;
  configDir: string;
  cwd: string;
  home?: string;
  trust?: Readonly<Record<string, string>>;
  /** Whether the repository is trusted (default: not). */
  repositoryTrusted?: boolean;
  warnRule?: (rule: string, file: string) => void;
}): ResolvedSettings {
  const read = readSettingsLayers({
    sources: o.sources,
    flagSettings: o.flagSettings,
    managedSettings: o.managedSettings,
    configDir: o.configDir,
    home: o.home ?? homedir(),
    cwd: o.cwd,
    managedDir: o.managedDir ?? DEFAULT_MANAGED_SETTINGS_DIR,
  });
  return resolveSettings({ layers: read.layers, problems: read.problems, trust: o.trust ?? readTrustStore(trustStorePath(o.configDir)), repositoryTrusted: o.repositoryTrusted ?? false, warnRule: o.warnRule ?? (() => undefined) });
}
