// The startup file every Bash shell sources through BASH_ENV, before the command. It exists so that the
// command string reaches `bash -c` untouched (bash's own messages keep saying "line 1"), while still:
// - merging stderr into stdout, in order, on the same pipe or file (the model reads one stream);
// - writing the final working directory to a file on exit (for `cd` persistence), when asked;
// - for background shells, sending all output to the task's output file.
// It unsets BASH_ENV and its own variables first, so shells the command starts do not run it again.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SCRIPT = `__agentd_cwd_file=\${AGENTD_CWD_FILE-}
if [ -n "\${AGENTD_OUTPUT_FILE-}" ]; then exec >>"$AGENTD_OUTPUT_FILE" 2>&1; else exec 2>&1; fi
unset BASH_ENV AGENTD_CWD_FILE AGENTD_OUTPUT_FILE AGENTD_SANDBOX_INIT AGENTD_SANDBOX_SCRIPT
if [ -n "$__agentd_cwd_file" ]; then trap 'pwd -P >| "$__agentd_cwd_file" 2>/dev/null' EXIT; fi
`;

const FILE_NAME = 'agentd-bash-init.sh';

/** Writes the startup file into `dir` (a private directory) unless it is there; returns its path. */
export function ensureInitScript(dir: string): string {
  const path = join(dir, FILE_NAME);
  if (!existsSync(path)) writeFileSync(path, SCRIPT, { mode: 0o600 });
  return path;
}

export interface ShellEnvOptions {
  initScript: string;
  /** Write the final `pwd -P` here on exit. */
  cwdFile?: string;
  /** Append all output to this file (background shells). */
  outputFile?: string;
}

/**
 * Inside the command sandbox the runtime starts shells of its own around the command (which would read BASH_ENV
 * first): there the startup file and the script travel in these variables, and this command, run by the
 * runtime's innermost shell, sources the startup file and evaluates the script in that same shell. (It used to
 * `exec bash -c` the script: one more bash start, ~1.3 ms of every sandboxed command.) The script is taken out
 * of the environment before the startup file unsets it. `eval` keeps bash's "line N" numbering; bash's messages
 * start with the path the runtime started it by (`/usr/bin/bash: line 1: …`, a syntax error `…: eval: line 1: …`),
 * as in Claude Code's sandboxed Bash, which also runs every command through `eval` in the runtime's shell.
 */
export const SANDBOXED_SHELL_COMMAND = '__agentd_script=$AGENTD_SANDBOX_SCRIPT; . "$AGENTD_SANDBOX_INIT"; eval "$__agentd_script"';

/** shellEnv for a shell the command sandbox starts (see SANDBOXED_SHELL_COMMAND). */
export function sandboxedShellEnv(env: Readonly<Record<string, string>>, script: string): Record<string, string> {
  const out: Record<string, string> = { ...env, AGENTD_SANDBOX_SCRIPT: script };
  const init = out['BASH_ENV'];
  delete out['BASH_ENV'];
  if (init !== undefined) out['AGENTD_SANDBOX_INIT'] = init;
  return out;
}

/** The environment for one shell: the child environment plus what the startup file reads. */
export function shellEnv(base: Readonly<Record<string, string>>, opts: ShellEnvOptions): Record<string, string> {
  const env: Record<string, string> = { ...base, BASH_ENV: opts.initScript };
  delete env['AGENTD_CWD_FILE'];
  delete env['AGENTD_OUTPUT_FILE'];
  if (opts.cwdFile) env['AGENTD_CWD_FILE'] = opts.cwdFile;
  if (opts.outputFile) env['AGENTD_OUTPUT_FILE'] = opts.outputFile;
  return env;
}
