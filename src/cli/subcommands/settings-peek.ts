// Reads the few settings keys subcommands report on (apiKeyHelper, MCP servers), without loading the session's
// settings machinery. Never fails: a file that is missing or does not parse is reported as such by the caller.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgv } from '../flags.js';

export type Peeked = { kind: 'missing' } | { kind: 'unreadable'; message: string } | { kind: 'ok'; value: Record<string, unknown> };

export function peekJsonFile(path: string): Peeked {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'unreadable', message: (e as Error).message };
  }
  return peekJsonText(text);
}

export function peekJsonText(text: string): Peeked {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return { kind: 'unreadable', message: 'not a JSON object' };
    return { kind: 'ok', value: v as Record<string, unknown> };
  } catch (e) {
    return { kind: 'unreadable', message: e instanceof Error ? e.message : String(e) };
  }
}

export interface SettingsLayer {
  /** 'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings' */
  source: string;
  /** File path, or '--settings' for inline JSON. */
  where: string;
  peeked: Peeked;
}

/** The settings layers Claude Code reads, in precedence order (lowest first), plus `--settings` from the global flags. */
export function settingsLayers(configDir: string, cwd: string, globalArgs: readonly string[]): SettingsLayer[] {
  const layers: SettingsLayer[] = [
    { source: 'userSettings', where: join(configDir, 'settings.json'), peeked: peekJsonFile(join(configDir, 'settings.json')) },
    { source: 'projectSettings', where: join(cwd, '.claude', 'settings.json'), peeked: peekJsonFile(join(cwd, '.claude', 'settings.json')) },
    { source: 'localSettings', where: join(cwd, '.claude', 'settings.local.json'), peeked: peekJsonFile(join(cwd, '.claude', 'settings.local.json')) },
  ];
  const flag = parseArgv(globalArgs).values.get('settings')?.at(-1);
  if (flag) {
    const inline = flag.trimStart().startsWith('{');
    layers.push({ source: 'flagSettings', where: inline ? '--settings' : flag, peeked: inline ? peekJsonText(flag) : peekJsonFile(flag) });
  }
  return layers;
}
