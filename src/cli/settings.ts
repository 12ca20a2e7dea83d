// The settings files agentd writes: permission updates persisted for the host (persistUpdate), and the trust
// store that records them, so a project or local file agentd wrote keeps its grants (src/config reads the files
// and applies the trust rules).
import { existsSync, readFileSync } from 'node:fs';
import { formatRule } from '../permissions/rules.js';
import type { PermissionUpdateValue } from '../permissions/updates.js';
import { writeFileAtomic } from '../util/atomic-write.js';

export { settingsPaths } from '../config/settings-files.js';

import { settingsPaths } from '../config/settings-files.js';
import { readTrustStore } from '../config/trust.js';

export { readTrustStore, trustStorePath } from '../config/trust.js';

/** Records that agentd wrote `text` to `file` for the host, so its grants are honoured next time. */
function recordTrusted(store: string, file: string, text: string): void {
  const data = readTrustStore(store);
  data[file] = text;
  writeFileAtomic(store, `${JSON.stringify(data, null, 2)}\n`, 0o600);
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

export interface ApiKeyHelperSetting {
  command: string;
  /** The file it came from, or '--settings'. */
  where: string;
}

/**
 * The `apiKeyHelper` the settings name: the last of user, project, local, --settings that sets it wins (Claude
 * Code's merge order). A project or local file (a repository can ship one) is honoured only when the repository
 * is trusted (config/project-trust.ts): a program to run for credentials is code, which agentd writing a file for
 * the host (its trust store) does not vet. Otherwise the helper is not run and is reported in `ignored`. Kept as
 * one function so the coming single config object can take it over whole.
 */
export function apiKeyHelperSetting(opts: {
  sources: ReadonlyArray<'user' | 'project' | 'local'>;
  flagSettings: string | undefined;
  configDir: string;
  cwd: string;
  repositoryTrusted: boolean;
}): { use: ApiKeyHelperSetting | undefined; ignored: ApiKeyHelperSetting[] } {
  const paths = settingsPaths(opts.configDir, opts.cwd);
  const candidates: Array<{ where: string; text: string; repo: boolean }> = [];
  const read = (where: string, repo: boolean): void => {
    try {
      candidates.push({ where, text: readFileSync(where, 'utf8'), repo });
    } catch {
      // missing or unreadable: loadSettings reports what matters
    }
  };
  if (opts.sources.includes('user')) read(paths.userSettings, false);
  if (opts.sources.includes('project')) read(paths.projectSettings, true);
  if (opts.sources.includes('local')) read(paths.localSettings, true);
  const flag = opts.flagSettings?.trim();
  if (flag?.startsWith('{')) candidates.push({ where: '--settings', text: flag, repo: false });
  else if (flag) read(flag, false);
  let use: ApiKeyHelperSetting | undefined;
  const ignored: ApiKeyHelperSetting[] = [];
  for (const c of candidates) {
    let v: unknown;
    try {
      v = JSON.parse(c.text);
    } catch {
      continue;
    }
    const command = typeof v === 'object' && v !== null && 'apiKeyHelper' in v ? v.apiKeyHelper : undefined;
    if (typeof command !== 'string' || !command.trim()) continue;
    if (c.repo && !opts.repositoryTrusted) ignored.push({ command, where: c.where });
    else use = { command, where: c.where };
  }
  return { use, ignored };
}
