// Claude Code's settings files, read unchanged: user (<config>/settings.json), project (.claude/settings.json),
// local (.claude/settings.local.json) and --settings (JSON or a path). Permission rules, defaultMode,
// additionalDirectories, command hooks and disabledMcpjsonServers are used; other keys are ignored. A file that exists but does not
// parse is a start-up error, never silently skipped.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import * as z from 'zod/mini';
import type { Logger } from '../log/logger.js';
import { type PermissionModeName, normalizeMode } from '../permissions/modes.js';
import { type PermissionRule, type RuleSource, formatRule, rulesFrom } from '../permissions/rules.js';
import type { PermissionUpdateValue } from '../permissions/updates.js';
import { StartupError } from './options.js';

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
});

export interface SettingsCommandHook {
  event: string;
  matcher: string | undefined;
  command: string;
  timeoutSec: number | undefined;
  source: RuleSource;
}

export interface LoadedSettings {
  rules: PermissionRule[];
  defaultMode: PermissionModeName | undefined;
  additionalDirectories: string[];
  commandHooks: SettingsCommandHook[];
  /** `.mcp.json` servers a settings file turned off (`disabledMcpjsonServers`): never started. */
  disabledMcpjsonServers: string[];
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
  const out: LoadedSettings = { rules: [], defaultMode: undefined, additionalDirectories: [], commandHooks: [], disabledMcpjsonServers: [] };
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
    if (p) {
      out.rules.push(...rulesFrom(p.allow ?? [], 'allow', f.source, f.baseDir, warn));
      out.rules.push(...rulesFrom(p.deny ?? [], 'deny', f.source, f.baseDir, warn));
      out.rules.push(...rulesFrom(p.ask ?? [], 'ask', f.source, f.baseDir, warn));
      if (p.defaultMode !== undefined) {
        const m = normalizeMode(p.defaultMode);
        if (m) out.defaultMode = m;
        else opts.logger.warn({ mode: p.defaultMode, file: f.where }, 'unknown defaultMode ignored');
      }
      out.additionalDirectories.push(...(p.additionalDirectories ?? []));
    }
    out.disabledMcpjsonServers.push(...(s.disabledMcpjsonServers ?? []));
    for (const [event, entries] of Object.entries(s.hooks ?? {})) {
      for (const e of entries) {
        for (const h of e.hooks) {
          if ((h.type ?? 'command') !== 'command' || !h.command) {
            opts.logger.warn({ event, type: h.type, file: f.where }, 'only command hooks are supported in settings; hook ignored');
            continue;
          }
          out.commandHooks.push({ event, matcher: e.matcher, command: h.command, timeoutSec: h.timeout, source: f.source });
        }
      }
    }
  }
  return out;
}

/** Persists a permission update into a settings file, atomically (temp file + rename). */
export function persistUpdate(path: string, u: PermissionUpdateValue): void {
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
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.agentd-${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(tmp, path);
}
