// Claude Code's settings files, read unchanged: user (<config>/settings.json), project (.claude/settings.json),
// local (.claude/settings.local.json) and --settings (JSON or a path). Permission rules, defaultMode,
// additionalDirectories, command hooks and disabledMcpjsonServers are used; other keys are ignored. A file that exists but does not
// parse is a start-up error, never silently skipped.
//
// Trust: the project and local files belong to the repository (a clone brings them; the model could write them),
// so they grant nothing the host never saw. From them, unless agentd itself wrote that exact content for the host
// (a permission update persisted to projectSettings/localSettings, its content recorded in the config directory):
//  - project: no allow rules and no additionalDirectories (as Claude Code 2.1.330, measured);
//  - local: no allow rules for Bash, Write, Edit, MultiEdit, NotebookEdit and no additionalDirectories
//    (Claude Code honours them; a repository can ship the file);
//  - both: defaultMode acceptEdits and bypassPermissions are ignored (Claude Code honours acceptEdits from both);
//  - both: their command hooks run (as in Claude Code) but cannot allow a call or add permissions (Claude Code lets
//    a project hook's "allow" run Bash unasked); they can still deny or ask.
// Deny and ask rules, and the other modes, only restrict and are always honoured.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import * as z from 'zod/mini';
import type { Logger } from '../log/logger.js';
import { type PermissionModeName, normalizeMode } from '../permissions/modes.js';
import { type PermissionRule, type RuleSource, formatRule, rulesFrom } from '../permissions/rules.js';
import type { PermissionUpdateValue } from '../permissions/updates.js';
import { StartupError } from './options.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { mergeSandboxBlocks } from '../tools/sandbox/settings.js';

const CommandHook = z.looseObject({
  type: z.optional(z.string()),
  command: z.optional(z.string()),
  timeout: z.optional(z.number()),
});
const HookMatcherEntry = z.looseObject({ matcher: z.optional(z.string()), hooks: z.array(CommandHook) });

const SettingsFile = z.looseObject({
  permissions: z.optional(
    z.looseObject({
      allow: z.optional(z.array(z.string())),
      deny: z.optional(z.array(z.string())),
      ask: z.optional(z.array(z.string())),
      defaultMode: z.optional(z.string()),
      additionalDirectories: z.optional(z.array(z.string())),
    }),
  ),
  hooks: z.optional(z.record(z.string(), z.array(HookMatcherEntry))),
  disabledMcpjsonServers: z.optional(z.array(z.string())),
  // Read by tools/sandbox/settings.ts (resolveSandboxSettings), after the layers are merged.
  sandbox: z.optional(z.unknown()),
});

export interface SettingsCommandHook {
  event: string;
  matcher: string | undefined;
  command: string;
  timeoutSec: number | undefined;
  source: RuleSource;
  /** False for hooks from an untrusted project/local file: their answers cannot allow or add permissions. */
  grants: boolean;
}

export interface LoadedSettings {
  rules: PermissionRule[];
  defaultMode: PermissionModeName | undefined;
  additionalDirectories: string[];
  commandHooks: SettingsCommandHook[];
  /** `.mcp.json` servers a settings file turned off (`disabledMcpjsonServers`): never started. */
  disabledMcpjsonServers: string[];
  /** The `sandbox` blocks merged (tools/sandbox/settings.ts); undefined when no file has one. */
  sandbox: unknown;
  /** What was not honoured from untrusted project/local files, for the log and tests. */
  ignored: Array<{ file: string; what: string }>;
}

/** Allow rules that grant shell or write access. */
const GRANTING_TOOLS = new Set(['Bash', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/**
 * Where agentd records the settings files it wrote for the host (path → the exact content it wrote; the files are
 * small, and comparing text keeps node:crypto out of start-up).
 */
export function trustStorePath(configDir: string): string {
  return join(configDir, 'agentd', 'trusted-settings.json');
}

function readTrustStore(path: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** Records that agentd wrote `text` to `file` for the host, so its grants are honoured next time. */
function recordTrusted(store: string, file: string, text: string): void {
  const data = readTrustStore(store);
  data[file] = text;
  writeFileAtomic(store, `${JSON.stringify(data, null, 2)}\n`, 0o600);
}

export interface SettingsPaths {
  userSettings: string;
  projectSettings: string;
  localSettings: string;
}

export function settingsPaths(configDir: string, cwd: string): SettingsPaths {
  return {
    userSettings: join(configDir, 'settings.json'),
    projectSettings: join(cwd, '.claude', 'settings.json'),
    localSettings: join(cwd, '.claude', 'settings.local.json'),
  };
}

function parseSettings(text: string, where: string): z.infer<typeof SettingsFile> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StartupError('config_file_invalid', `${where} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = SettingsFile.safeParse(v);
  if (!r.success) throw new StartupError('config_file_invalid', `${where} is not a valid settings file: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

export function loadSettings(opts: {
  sources: ReadonlyArray<'user' | 'project' | 'local'>;
  flagSettings: string | undefined;
  configDir: string;
  cwd: string;
  logger: Logger;
}): LoadedSettings {
  const paths = settingsPaths(opts.configDir, opts.cwd);
  const out: LoadedSettings = { rules: [], defaultMode: undefined, additionalDirectories: [], commandHooks: [], ignored: [], disabledMcpjsonServers: [], sandbox: undefined };
  const sandboxLayers: Array<{ block: unknown; trusted: boolean; where: string }> = [];
  const trust = readTrustStore(trustStorePath(opts.configDir));
  const files: Array<{ source: RuleSource; text: string; where: string; baseDir: string }> = [];
  const read = (source: RuleSource, path: string, baseDir: string): void => {
    if (!existsSync(path)) return;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new StartupError('config_file_unreadable', `Cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
    files.push({ source, text, where: path, baseDir });
  };
  if (opts.sources.includes('user')) read('userSettings', paths.userSettings, homedir());
  if (opts.sources.includes('project')) read('projectSettings', paths.projectSettings, opts.cwd);
  if (opts.sources.includes('local')) read('localSettings', paths.localSettings, opts.cwd);
  if (opts.flagSettings !== undefined) {
    const t = opts.flagSettings.trim();
    if (t.startsWith('{')) files.push({ source: 'flagSettings', text: t, where: '--settings', baseDir: opts.cwd });
    else read('flagSettings', t, dirname(t));
    if (!t.startsWith('{') && !existsSync(t)) throw new StartupError('config_file_unreadable', `--settings file ${t} does not exist.`);
  }
  for (const f of files) {
    const s = parseSettings(f.text, f.where);
    const p = s.permissions;
    const warn = (rule: string): void => opts.logger.warn({ rule, file: f.where }, 'invalid permission rule ignored');
    const repoFile = f.source === 'projectSettings' || f.source === 'localSettings';
    const trusted = !repoFile || trust[f.where] === f.text;
    const ignore = (what: string): void => {
      out.ignored.push({ file: f.where, what });
    };
    if (p) {
      for (const r of rulesFrom(p.allow ?? [], 'allow', f.source, f.baseDir, warn)) {
        if (!trusted && (f.source === 'projectSettings' || GRANTING_TOOLS.has(r.toolName))) ignore(`allow rule ${formatRule(r)}`);
        else out.rules.push(r);
      }
      out.rules.push(...rulesFrom(p.deny ?? [], 'deny', f.source, f.baseDir, warn));
      out.rules.push(...rulesFrom(p.ask ?? [], 'ask', f.source, f.baseDir, warn));
      if (p.defaultMode !== undefined) {
        const m = normalizeMode(p.defaultMode);
        if (!m) opts.logger.warn({ mode: p.defaultMode, file: f.where }, 'unknown defaultMode ignored');
        else if (!trusted && (m === 'acceptEdits' || m === 'bypassPermissions')) ignore(`defaultMode ${m}`);
        else out.defaultMode = m;
      }
      if (trusted) out.additionalDirectories.push(...(p.additionalDirectories ?? []));
      else for (const d of p.additionalDirectories ?? []) ignore(`additionalDirectories ${d}`);
    }
    out.disabledMcpjsonServers.push(...(s.disabledMcpjsonServers ?? []));
    if (s.sandbox !== undefined) sandboxLayers.push({ block: s.sandbox, trusted, where: f.where });
    for (const [event, entries] of Object.entries(s.hooks ?? {})) {
      for (const e of entries) {
        for (const h of e.hooks) {
          if ((h.type ?? 'command') !== 'command' || !h.command) {
            opts.logger.warn({ event, type: h.type, file: f.where }, 'only command hooks are supported in settings; hook ignored');
            continue;
          }
          out.commandHooks.push({ event, matcher: e.matcher, command: h.command, timeoutSec: h.timeout, source: f.source, grants: trusted });
        }
      }
    }
  }
  for (const l of sandboxLayers) {
    const { ignored } = mergeSandboxBlocks([l]);
    for (const what of ignored) out.ignored.push({ file: l.where, what });
  }
  out.sandbox = mergeSandboxBlocks(sandboxLayers).merged;
  if (out.ignored.length) {
    opts.logger.warn(
      { ignored: out.ignored },
      'settings from the project directory cannot grant shell or write access the host did not give (use --settings, --allowedTools or the user settings)',
    );
  }
  return out;
}

/**
 * Persists a permission update into a settings file, atomically (temp file + rename). With `trustStore`, the
 * written content is recorded as the host's, so a project or local file agentd wrote keeps its grants.
 */
export function persistUpdate(path: string, u: PermissionUpdateValue, trustStore?: string): void {
  let data: Record<string, unknown> = {};
  if (existsSync(path)) {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) data = { ...(v as Record<string, unknown>) };
  }
  const permsRaw = data['permissions'];
  const perms: Record<string, unknown> = typeof permsRaw === 'object' && permsRaw !== null && !Array.isArray(permsRaw) ? { ...(permsRaw as Record<string, unknown>) } : {};
  const list = (k: string): string[] => (Array.isArray(perms[k]) ? (perms[k] as unknown[]).filter((x): x is string => typeof x === 'string') : []);
  const texts = (u.rules ?? []).map(formatRule);
  switch (u.type) {
    case 'addRules':
      if (u.behavior) perms[u.behavior] = [...new Set([...list(u.behavior), ...texts])];
      break;
    case 'replaceRules':
      if (u.behavior) perms[u.behavior] = texts;
      break;
    case 'removeRules':
      if (u.behavior) perms[u.behavior] = list(u.behavior).filter((r) => !texts.includes(r));
      break;
    case 'setMode':
      if (u.mode) perms['defaultMode'] = u.mode;
      break;
    case 'addDirectories':
      perms['additionalDirectories'] = [...new Set([...list('additionalDirectories'), ...(u.directories ?? [])])];
      break;
    case 'removeDirectories':
      perms['additionalDirectories'] = list('additionalDirectories').filter((d) => !(u.directories ?? []).includes(d));
      break;
  }
  data['permissions'] = perms;
  const text = `${JSON.stringify(data, null, 2)}\n`;
  writeFileAtomic(path, text);
  if (trustStore !== undefined) recordTrusted(trustStore, path, text);
}
