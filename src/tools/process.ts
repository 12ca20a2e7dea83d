// Child processes for tools: the only importer of execa. Every shell runs in its own process group
// (`detached`), so one signal to the group reaches everything it started, background jobs included. stdin is
// closed and stdout is never inherited (agentd's stdout is the protocol).
import { readFileSync, readdirSync } from 'node:fs';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { execa } from 'execa';

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

/** Sends `signal` to the whole group. False when no process of the group is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any process of the group is still running. A signal-0 probe alone also counts zombies: an
 * orphaned background job that died is re-parented to PID 1, and a PID 1 that reaps slowly (or not at all,
 * as in a container without an init) would make a dead group look alive. On Linux /proc tells them apart.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const leader = procState(pgid);
  if (leader && leader.pgrp === pgid && leader.state !== 'Z' && leader.state !== 'X') return true;
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return true; // no /proc: trust the probe
  }
  for (const p of pids) {
    if (!/^\d+$/.test(p)) continue;
    const st = procState(Number(p));
    if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') return true;
  }
  return false;
}

function procState(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

export interface KillGroupOptions {
  /** How long the group gets to exit after SIGTERM before SIGKILL. */
  graceMs: number;
  /** How often to check whether the group is gone. */
  pollMs?: number;
}

/**
 * SIGTERM the group, then SIGKILL whatever is left after the grace period. Resolves when the group is gone
 * (or SIGKILL was sent). The timers are unref'd: a daemon that is exiting kills tracked groups itself.
 */
export function killGroup(pgid: number, opts: KillGroupOptions): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return Promise.resolve();
  const poll = opts.pollMs ?? 25;
  const deadline = Date.now() + opts.graceMs;
  return new Promise((resolve) => {
    const tick = (): void => {
      if (!groupAlive(pgid)) return resolve();
      if (Date.now() >= deadline) {
        signalGroup(pgid, 'SIGKILL');
        return resolve();
      }
      setTimeout(tick, poll).unref();
    };
    setTimeout(tick, Math.min(poll, opts.graceMs)).unref();
  });
}
