// Child processes for tools: the only importer of execa. Every shell runs in its own process group
// (`detached`), so one signal to the group reaches everything it started, background jobs included. stdin is
// closed and stdout is never inherited (agentd's stdout is the protocol).
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import type * as Execa from 'execa';

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
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** Settles when the shell process exits, not when its pipes close (a background job may hold them). */
  readonly exited: Promise<ShellExit>;
}

export interface SpawnShellOptions {
  /** The script for `bash -c`. */
  script: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** 'pipe': read stdout and stderr here; 'ignore': the script redirects its own output (to a file). */
  output: 'pipe' | 'ignore';
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
    encoding: 'buffer',
    stripFinalNewline: false,
  } as const;
  const subprocess = execa('bash', ['-c', opts.script], { ...common, stdout: opts.output, stderr: opts.output });
  // execa's own promise settles when the pipes close; completion is decided by `exited` instead. With
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
  return { pid: subprocess.pid, stdout: subprocess.stdout, stderr: subprocess.stderr, exited };
}

export { type KillGroupOptions, groupAlive, killGroup, signalGroup } from './process-groups.js';
