// Claude Code's global config file for the subcommands (the mcp commands, `trust`); sessions read it through
// src/config (config/global-config.ts, where the path is decided).
import { globalConfigPath } from '../../config/global-config.js';
import { readEnv } from '../../config/env.js';
import type { SubcommandIO } from './types.js';

/** Claude Code's global config file: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json. */
export function globalConfigFile(io: Pick<SubcommandIO, 'env' | 'home'>): string {
  return globalConfigPath(readEnv(io.env).configDir, io.home);
}
