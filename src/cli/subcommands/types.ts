// What every subcommand gets and gives back. Subcommands answer locally: they never start a session, write a
// transcript or call a model, and they load none of the tool or SDK bundles (doctor's tree-sitter check aside).
import type { Readable, Writable } from 'node:stream';

export type Env = Readonly<Record<string, string | undefined>>;

export interface SubcommandIO {
  /** The real stdout (claimed by main.ts): answers go here, as Claude Code prints them. */
  stdout: Writable;
  /** Errors and notes. */
  stderr: Writable;
  env: Env;
  cwd: string;
  home: string;
  /** Standard input (`mcp serve` reads MCP messages from it); process.stdin when absent. */
  stdin?: Readable;
  /** Flags given before the subcommand word (e.g. the ACP adapter's `--settings <json> auth status --json`). */
  globalArgs: readonly string[];
}

/**
 * Exit codes of subcommands (README "Subcommands"):
 *  0  done / the answer is yes (logged in, no problems found);
 *  1  the command ran and the answer is no (not logged in, doctor found a problem, no such MCP server), or it
 *     asks for something agentd does not do (`mcp add`, `auth login`'s browser flow, Claude Code's `agents`);
 *  2  usage error (unknown option or subcommand, missing argument) — the same code as a bad flag at start-up.
 */
export const SUB_EXIT = { ok: 0, no: 1, usage: 2 } as const;
export type SubExit = (typeof SUB_EXIT)[keyof typeof SUB_EXIT];

/** A usage error: printed as one line on stderr (`error: …`), exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
