// Claude Code's global config file, read by sessions (MCP servers of the user and local scopes, src/cli/mcp-setup.ts)
// and by the mcp subcommands; its own module so the start-up bundle does not take the subcommands with it.
import { join } from 'node:path';
import { readEnv } from '../../config/env.js';
import type { SubcommandIO } from './types.js';

/** Claude Code's global config file: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json. */
export function globalConfigFile(io: Pick<SubcommandIO, 'env' | 'home'>): string {
  const dir = readEnv(io.env).configDir;
  return dir ? join(dir, '.claude.json') : join(io.home, '.claude.json');
}
