// Subcommands (`agentd auth status`, `agentd mcp list`, `agentd doctor`, …), answered locally as Claude Code
// 2.1.330 answers them. Dispatched by main.ts before any session exists: a subcommand never reaches a model,
// never opens a transcript. As in Claude Code, the first positional word is a subcommand only without -p/--print
// (with -p, `agentd -p doctor` is a prompt). Claude Code's other subcommands are recognised and refused, so
// none of them turns into a prompt either.
//
// This module is in the start-up bundle: the table and the recognition of a subcommand word. Running one is in
// run.ts, its own bundle (dist/agentd-cli.js), so a daemon start does not load the subcommands' code.
import type { ParsedArgs } from '../flags.js';
import { SUB_EXIT, type SubExit, type SubcommandIO } from './types.js';

export interface SubcommandSpec {
  name: string;
  aliases?: readonly string[];
  summary: string;
}

/** agentd's subcommands, in `--help` order. */
export const SUBCOMMANDS: readonly SubcommandSpec[] = [
  { name: 'auth', summary: 'Credentials: `auth status [--json|--text]`, `auth login`, `auth logout` (environment only)' },
  { name: 'doctor', summary: 'Check Node, ripgrep, the shell parser, config dirs, credentials (--check-endpoint: the endpoint)' },
  { name: 'mcp', summary: 'Configure MCP servers (`mcp add|add-json|remove|list|get`, in Claude Code\'s files); `mcp serve`: the built-in tools over MCP' },
  { name: 'trust', summary: 'Trust a folder (`trust [dir]`, `--check`, `--revoke`): its repository\'s hooks, MCP servers and env apply (Claude Code\'s trust record)' },
  { name: 'update', aliases: ['upgrade'], summary: 'How agentd is updated (prints the commands; no network)' },
  { name: 'install', summary: 'How agentd is installed (prints the commands; no network)' },
];

/** Claude Code 2.1.330's other subcommands: refused with exit 1, never taken for a prompt. */
export const CLAUDE_CODE_ONLY: readonly string[] = [
  'agents', 'attach', 'auto-mode', 'gateway', 'import', 'logs', 'plugin', 'plugins', 'purge', 'respawn', 'rm',
  'setup-token', 'stop', 'kill', 'ultrareview',
];

export const BY_NAME = new Map<string, SubcommandSpec>();
for (const s of SUBCOMMANDS) for (const n of [s.name, ...(s.aliases ?? [])]) BY_NAME.set(n, s);

export interface SubcommandCall {
  /** The word as typed (an alias stays an alias). */
  word: string;
  /** agentd's subcommand, or undefined for one of Claude Code's that agentd does not have. */
  spec: SubcommandSpec | undefined;
  /** Arguments after the word. */
  args: string[];
  /** Flags before the word. */
  globalArgs: string[];
}

/** The subcommand argv names, if any. `help` counts as one (`agentd help auth`). */
export function findSubcommand(argv: readonly string[], parsed: ParsedArgs): SubcommandCall | undefined {
  const at = parsed.firstPositionalAt;
  if (at === undefined || parsed.values.has('print')) return undefined;
  const word = argv[at] as string;
  const spec = BY_NAME.get(word);
  if (!spec && word !== 'help' && !CLAUDE_CODE_ONLY.includes(word)) return undefined;
  return { word, spec, args: argv.slice(at + 1), globalArgs: argv.slice(0, at) };
}

/** Runs a subcommand (run.ts, loaded now); usage errors become one `error: …` line on stderr and exit 2. */
export async function runSubcommand(call: SubcommandCall, io: SubcommandIO): Promise<SubExit> {
  return (await import('./run.js')).runSubcommandCall(call, io);
}

export { SUB_EXIT };
