// Reads Claude Code's settings layers, lowest first: user (<config>/settings.json), project (.claude/settings.json),
// local (.claude/settings.local.json) — each only when `settingSources` names it — then `--settings` (JSON or a
// path), then the managed policy: the admin files (/etc/claude-code/managed-settings.json and
// managed-settings.d/*.json, in name order, later files over earlier ones, as Claude Code 2.1.330 reads them) and
// the SDK's `managedSettings` (`--managed-settings`), which Claude Code filters to restrictive keys and drops when an
// admin file exists unless that file says `parentSettingsBehavior: "merge"`.
//
// A user, project or local file that is not JSON (or not a settings object) is reported and skipped: the session
// starts (Claude Code skips it silently; agentd says so). Policy fails closed: a managed file or
// `--managed-settings` that cannot be read is a start-up error, and so is a `--settings` value the host gave.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type SettingsFileData, SettingsFile, restrictiveOnly } from './settings-schema.js';
import { ConfigError } from './errors.js';

export type SettingsSourceName = 'user' | 'project' | 'local';
export type LayerSource = 'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings' | 'policySettings';

export interface SettingsLayer {
  source: LayerSource;
  /** The file (or `--settings`, `--managed-settings`) the layer came from, for messages. */
  file: string;
  /** Where relative rule paths of this layer anchor. */
  baseDir: string;
  /** The exact text, for the trust store (project and local files agentd wrote for the host). */
  text: string;
  data: SettingsFileData;
  /** The parsed object as written (unknown keys included), for reports and the refusal table. */
  raw: Record<string, unknown>;
}

export interface SettingsProblem {
  file: string;
  message: string;
}

export interface ReadLayersInput {
  sources: readonly SettingsSourceName[];
  /** `--settings`: inline JSON or a path. */
  flagSettings: string | undefined;
  /** `--managed-settings`: inline JSON or a path (the SDK passes JSON). */
  managedSettings: string | undefined;
  configDir: string;
  home: string;
  cwd: string;
  /** Where the admin policy lives: /etc/claude-code on Linux. */
  managedDir: string;
}

export interface ReadLayers {
  layers: SettingsLayer[];
  problems: SettingsProblem[];
  /** Keys of the SDK's managed settings that Claude Code drops (not restrictive). */
  droppedManagedKeys: string[];
  /** The SDK's managed settings were ignored because an admin file exists (first-wins). */
  parentPolicyDropped: boolean;
}

export function settingsPaths(configDir: string, cwd: string): { userSettings: string; projectSettings: string; localSettings: string } {
  return {
    userSettings: join(configDir, 'settings.json'),
    projectSettings: join(cwd, '.claude', 'settings.json'),
    localSettings: join(cwd, '.claude', 'settings.local.json'),
  };
}

type Parsed = { ok: true; data: SettingsFileData; raw: Record<string, unknown> } | { ok: false; message: string };

export function parseSettingsText(text: string, where: string): Parsed {
  let v: unknown;
  try {
    // An empty file is an empty settings object (as for Claude Code's managed files).
    v = text.trim() === '' ? {} : JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `${where} is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, message: `${where} is not a settings object` };
  const r = SettingsFile.safeParse(v);
  if (!r.success) return { ok: false, message: `${where} is not a valid settings file: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  return { ok: true, data: r.data, raw: v as Record<string, unknown> };
}

function readText(path: string): { ok: true; text: string } | { ok: false; message: string } | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return { ok: true, text: readFileSync(path, 'utf8') };
  } catch (e) {
    return { ok: false, message: `Cannot read ${path}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Deep merge as Claude Code composes managed drop-ins: objects merge, arrays union, scalars of `over` win. */
function mergeObjects(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (Array.isArray(b) && Array.isArray(v)) out[k] = [...new Set<unknown>([...(b as unknown[]), ...(v as unknown[])])];
    else if (isPlain(b) && isPlain(v)) out[k] = mergeObjects(b, v);
    else out[k] = v;
  }
  return out;
}
function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function policyLayer(raw: Record<string, unknown>, file: string, baseDir: string): SettingsLayer {
  const p = parseSettingsText(JSON.stringify(raw), file);
  if (!p.ok) throw new ConfigError('managed_settings_invalid', p.message);
  return { source: 'policySettings', file, baseDir, text: '', data: p.data, raw: p.raw };
}

/** The admin policy: managed-settings.json, then managed-settings.d/*.json in name order (dot files skipped). */
function readAdminPolicy(dir: string): { raw: Record<string, unknown>; files: string[] } | undefined {
  const files: string[] = [];
  const base = join(dir, 'managed-settings.json');
  if (existsSync(base)) files.push(base);
  const dropIns = join(dir, 'managed-settings.d');
  if (existsSync(dropIns)) {
    let names: string[];
    try {
      names = readdirSync(dropIns);
    } catch (e) {
      throw new ConfigError('managed_settings_invalid', `Cannot read ${dropIns}: ${e instanceof Error ? e.message : String(e)}`);
    }
    for (const n of names.filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort()) files.push(join(dropIns, n));
  }
  if (files.length === 0) return undefined;
  let raw: Record<string, unknown> = {};
  for (const f of files) {
    const t = readText(f);
    if (t === undefined) continue;
    if (!t.ok) throw new ConfigError('managed_settings_invalid', t.message);
    const p = parseSettingsText(t.text, f);
    if (!p.ok) throw new ConfigError('managed_settings_invalid', p.message);
    raw = mergeObjects(raw, p.raw);
  }
  return { raw, files };
}

function inlineOrFile(value: string, flag: string, reason: 'config_file_invalid' | 'managed_settings_invalid', cwd: string): { text: string; where: string; baseDir: string } {
  const t = value.trim();
  if (t.startsWith('{')) return { text: t, where: flag, baseDir: cwd };
  const r = readText(t);
  if (r === undefined) throw new ConfigError(reason, `${flag} file ${t} does not exist.`);
  if (!r.ok) throw new ConfigError(reason, r.message);
  return { text: r.text, where: t, baseDir: dirname(t) };
}

export function readSettingsLayers(input: ReadLayersInput): ReadLayers {
  const paths = settingsPaths(input.configDir, input.cwd);
  const layers: SettingsLayer[] = [];
  const problems: SettingsProblem[] = [];
  const file = (source: LayerSource, path: string, baseDir: string): void => {
    // Started in the home directory, the project file is the user file: read once, as the user's.
    if (layers.some((l) => l.file === path) || problems.some((p) => p.file === path)) return;
    const t = readText(path);
    if (t === undefined) return;
    if (!t.ok) {
      problems.push({ file: path, message: t.message });
      return;
    }
    const p = parseSettingsText(t.text, path);
    if (!p.ok) problems.push({ file: path, message: p.message });
    else layers.push({ source, file: path, baseDir, text: t.text, data: p.data, raw: p.raw });
  };
  if (input.sources.includes('user')) file('userSettings', paths.userSettings, input.home);
  if (input.sources.includes('project')) file('projectSettings', paths.projectSettings, input.cwd);
  if (input.sources.includes('local')) file('localSettings', paths.localSettings, input.cwd);
  if (input.flagSettings !== undefined) {
    const f = inlineOrFile(input.flagSettings, '--settings', 'config_file_invalid', input.cwd);
    const p = parseSettingsText(f.text, f.where);
    if (!p.ok) throw new ConfigError('config_file_invalid', p.message);
    layers.push({ source: 'flagSettings', file: f.where, baseDir: f.baseDir, text: f.text, data: p.data, raw: p.raw });
  }

  const admin = readAdminPolicy(input.managedDir);
  let droppedManagedKeys: string[] = [];
  let parentPolicyDropped = false;
  let parent: Record<string, unknown> | undefined;
  if (input.managedSettings !== undefined) {
    const f = inlineOrFile(input.managedSettings, '--managed-settings', 'managed_settings_invalid', input.cwd);
    const p = parseSettingsText(f.text, f.where);
    if (!p.ok) throw new ConfigError('managed_settings_invalid', p.message);
    const filtered = restrictiveOnly(p.raw);
    droppedManagedKeys = filtered.dropped;
    parent = filtered.kept;
  }
  if (admin) {
    const merge = admin.raw['parentSettingsBehavior'] === 'merge';
    if (parent && !merge) parentPolicyDropped = true;
    const raw = parent && merge ? mergeObjects(parent, admin.raw) : admin.raw;
    layers.push(policyLayer(raw, admin.files.join(', '), input.cwd));
  } else if (parent) {
    layers.push(policyLayer(parent, '--managed-settings', input.cwd));
  }
  return { layers, problems, droppedManagedKeys, parentPolicyDropped };
}
