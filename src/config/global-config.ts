// Claude Code's global config file ($CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json), read once per start: the
// trust records of folders (project-trust.ts) and the MCP servers of the user and local scopes (src/mcp/config.ts)
// come from the same parse, so a large file (Claude Code keeps a record per folder in it) is parsed once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file: in CLAUDE_CONFIG_DIR when that is set, else in the home directory (not in ~/.claude). */
export function globalConfigPath(configDirEnv: string | undefined, home: string): string {
  return configDirEnv ? join(configDirEnv, '.claude.json') : join(home, '.claude.json');
}

export type GlobalConfigRead =
  | { kind: 'missing' }
  /** `why`: the file could not be read (io) or is not JSON (json); the message is the error's. */
  | { kind: 'unreadable'; why: 'io' | 'json'; message: string }
  /** The parsed JSON (readers check its shape: a value that is not an object holds nothing). */
  | { kind: 'ok'; value: unknown };

export function readGlobalConfig(file: string): GlobalConfigRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unreadable', why: 'io', message: e instanceof Error ? e.message : String(e) };
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { kind: 'unreadable', why: 'json', message: e instanceof Error ? e.message : String(e) };
  }
  return { kind: 'ok', value: v };
}
