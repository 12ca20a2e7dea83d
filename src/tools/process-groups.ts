// Process-group helpers without execa, so modules that only need to watch or kill groups (the tool environment,
// shutdown) do not load the process-spawning code.
import { readFileSync, readdirSync } from 'node:fs';

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
