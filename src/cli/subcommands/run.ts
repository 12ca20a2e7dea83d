// Running a subcommand: its own bundle (dist/agentd-cli.js), required when main.ts has recognised a subcommand
// word (index.ts), so the daemon's start-up bundle does not carry auth, doctor and the mcp commands. UsageError is
// thrown and caught inside this bundle (a class is not the same class across two bundles).
import { PROTOCOL_LEVEL } from '../../../protocol/src/runtime.js';
import { AUTH_HELP, runAuth } from './auth.js';
import { DOCTOR_HELP, runDoctor } from './doctor.js';
import { BY_NAME, SUBCOMMANDS, type SubcommandCall } from './index.js';
import { MCP_HELP, runMcp } from './mcp.js';
import { TRUST_HELP, runTrust } from './trust.js';
import { SUB_EXIT, type SubExit, type SubcommandIO, UsageError } from './types.js';

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
    case 'trust':
      return TRUST_HELP;
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
    case 'trust':
      return runTrust(call.args, io);
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
export async function runSubcommandCall(call: SubcommandCall, io: SubcommandIO): Promise<SubExit> {
  try {
    return await run(call, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(`error: ${e.message}\n`);
    return SUB_EXIT.usage;
  }
}

