// Subcommands (`agentd auth status`, `agentd mcp list`, `agentd doctor`, …), answered locally as Claude Code
// 2.1.330 answers them. Dispatched by main.ts before any session exists: a subcommand never reaches a model,
// never opens a transcript. As in Claude Code, the first positional word is a subcommand only without -p/--print
// (with -p, `agentd -p doctor` is a prompt). Claude Code's other subcommands are recognised and refused, so
// none of them turns into a prompt either.
import { PROTOCOL_LEVEL } from '../../../protocol/src/runtime.js';
import type { ParsedArgs } from '../flags.js';
import { AUTH_HELP, runAuth } from './auth.js';
import { DOCTOR_HELP, runDoctor } from './doctor.js';
import { MCP_HELP, runMcp } from './mcp.js';
import { SUB_EXIT, type SubExit, type SubcommandIO, UsageError } from './types.js';

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
  { name: 'update', aliases: ['upgrade'], summary: 'How agentd is updated (prints the commands; no network)' },
  { name: 'install', summary: 'How agentd is installed (prints the commands; no network)' },
];

/** Claude Code 2.1.330's other subcommands: refused with exit 1, never taken for a prompt. */
export const CLAUDE_CODE_ONLY: readonly string[] = [
  'agents', 'attach', 'auto-mode', 'gateway', 'import', 'logs', 'plugin', 'plugins', 'purge', 'respawn', 'rm',
  'setup-token', 'stop', 'kill', 'ultrareview',
];

const BY_NAME = new Map<string, SubcommandSpec>();
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

const UPDATE_TEXT = [
  `agentd updates with its source tree; it has no self-updater and does not contact any registry.`,
  '',
  '  From a git checkout:   git pull && npm ci && npm run build',
  '  Installed with npm:    npm install -g <the agentd package or checkout path>',
  '',
  `Then check: agentd --version (speaks Claude Code protocol ${PROTOCOL_LEVEL}) and agentd doctor.`,
];

const INSTALL_TEXT = [
  'agentd is installed from its source tree (Node 20 or newer):',
  '',
  '  git clone <agentd repository> && cd agentd && npm ci && npm run build',
  '  npm install -g .          # puts `agentd` on PATH (or point the SDK at bin/agentd directly)',
  '',
  'SDK hosts: pathToClaudeCodeExecutable (TypeScript), cli_path (Python), CLAUDE_CODE_EXECUTABLE (Zed/ACP).',
  'Then run: agentd doctor',
];

/** Help for `agentd <word> --help` / `agentd help <word>`; undefined for an unknown word. */
function helpFor(word: string | undefined): readonly string[] | undefined {
  switch (word === undefined ? undefined : (BY_NAME.get(word)?.name ?? word)) {
    case 'auth':
      return AUTH_HELP.auth;
    case 'doctor':
      return DOCTOR_HELP;
    case 'mcp':
      return MCP_HELP;
    case 'update':
      return ['Usage: agentd update|upgrade', '', 'Print how agentd is updated (no network, exit 0).'];
    case 'install':
      return ['Usage: agentd install', '', 'Print how agentd is installed (no network, exit 0).'];
    default:
      return undefined;
  }
}

async function run(call: SubcommandCall, io: SubcommandIO): Promise<SubExit> {
  const print = (lines: readonly string[]): SubExit => {
    io.stdout.write(`${lines.join('\n')}\n`);
    return SUB_EXIT.ok;
  };
  if (call.word === 'help') {
    const [topic] = call.args;
    const h = helpFor(topic);
    if (topic !== undefined && !h) throw new UsageError(`unknown command '${topic}'`);
    // `agentd help` alone: main.ts prints the full help.
    return print(h ?? []);
  }
  if (!call.spec) {
    io.stderr.write(`agentd does not have Claude Code's '${call.word}' command (agentd's commands: ${SUBCOMMANDS.map((s) => s.name).join(', ')}; see agentd --help).\n`);
    return SUB_EXIT.no;
  }
  switch (call.spec.name) {
    case 'auth':
      return runAuth(call.args, io);
    case 'mcp':
      // `mcp serve` is long-lived and loads the tools (cli/mcp-serve.ts); the other mcp commands answer at once.
      return call.args[0] === 'serve' ? (await import('../mcp-serve.js')).runMcpServe(call.args.slice(1), io) : runMcp(call.args, io);
    case 'doctor':
      return runDoctor(call.args, io);
    case 'update':
    case 'install': {
      const h = call.args.includes('--help') || call.args.includes('-h');
      // `install [target]` and `--force` are Claude Code's; agentd prints the same instructions for any of them.
      return print(h ? (helpFor(call.spec.name) ?? []) : call.spec.name === 'update' ? UPDATE_TEXT : INSTALL_TEXT);
    }
    default:
      throw new Error(`subcommand table and dispatch disagree: ${call.spec.name}`);
  }
}

/** Runs a subcommand; usage errors become one `error: …` line on stderr and exit 2. */
export async function runSubcommand(call: SubcommandCall, io: SubcommandIO): Promise<SubExit> {
  try {
    return await run(call, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(`error: ${e.message}\n`);
    return SUB_EXIT.usage;
  }
}

export { SUB_EXIT };
