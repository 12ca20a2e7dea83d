// Child processes for tools: the only importer of execa. Every shell runs in its own process group
// (`detached`), so one signal to the group reaches everything it started, background jobs included. stdin is
// closed and stdout is never inherited (agentd's stdout is the protocol).
import { constants } from 'node:os';
import type * as Execa from 'execa';
import type { ShellJail } from './sandbox/types.js';

let execaModule: typeof Execa | undefined;

/**
 * Loads execa on first use: it and the process machinery behind it cost ~15 MiB of resident memory, which a
 * session that never runs a command should not pay. Call (and await) before spawnShell.
 */
export async function loadProcessSupport(): Promise<void> {
  execaModule ??= await import('execa');
}

export interface ShellExit {
  /** Exit code; for a shell killed by a signal, 128 + the signal number (as bash reports it). */
  code: number;
  signal: NodeJS.Signals | null;
  /** Set when the shell could not be started at all. */
  error?: string;
}

export interface ShellChild {
  /** The shell's pid, which is also its process group id. Undefined when the spawn failed. */
  readonly pid: number | undefined;
  /** Settles when the shell process exits, not when its pipes close (a background job may hold them). */
  readonly exited: Promise<ShellExit>;
}

export interface SpawnShellOptions {
  /** The script for `bash -c`. */
  script: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  /**
   * A file descriptor that receives both stdout and stderr (an output file, see shell/output-file.ts), or
   * 'ignore' when the script redirects its own output.
   */
  output: number | 'ignore';
  /** Run the shell inside this jail (the read-only sandbox); its argv wraps `bash -c script`. */
  jail?: ShellJail;
  /** The whole argv to run instead of `bash -c script` (the command sandbox wrapped it already). */
  argv?: readonly string[];
}

export function spawnShell(opts: SpawnShellOptions): ShellChild {
  if (!execaModule) throw new Error('spawnShell before loadProcessSupport()');
  const { execa } = execaModule;
  const common = {
    cwd: opts.cwd,
    env: { ...opts.env },
    extendEnv: false,
    detached: true,
    cleanup: false,
    stdin: 'ignore',
    buffer: false,
    reject: false,
  } as const;
  // No streams at all: output goes to a descriptor (or nowhere), never through agentd.
  // execa's types list descriptors 3–9 only; at run time it hands any descriptor to child_process as is
  // (execa/lib/stdio/native.js), and a daemon's output file is rarely below 10.
  const out = opts.output as 'ignore' | 3;
  const inner = ['bash', '-c', opts.script];
  const [file, ...args] = opts.argv ?? (opts.jail ? opts.jail.argv(inner) : inner);
  const subprocess = execa(file as string, args, { ...common, stdout: out, stderr: out });
  // execa's own promise settles when the streams close; completion is decided by `exited` instead. With
  // reject:false it does not reject on failure, but keep any late surprise from becoming unhandled.
  subprocess.then(
    () => undefined,
    () => undefined,
  );
  const exited = new Promise<ShellExit>((resolve) => {
    subprocess.once('exit', (code, signal) => {
      resolve({ code: code ?? 128 + (signal ? constants.signals[signal] : 0), signal });
    });
    subprocess.once('error', (e: Error) => {
      if (subprocess.pid === undefined) resolve({ code: 127, signal: null, error: e.message });
    });
  });
  return { pid: subprocess.pid, exited };
}

export { type KillGroupOptions, groupAlive, killGroup, signalGroup, withRunTag } from './process-groups.js';
