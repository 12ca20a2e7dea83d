// Process-group helpers without execa, so modules that only need to watch or kill groups (the tool environment,
// shutdown) do not load the process-spawning code.
import { readFileSync, readdirSync } from 'node:fs';

/**
 * The variable that marks every process agentd starts (tools, hooks, and whatever they start in turn): its
 * value is a comma-separated list of run tags, one per agentd up the chain. A process that leaves its process
 * group (`setsid`, `setsid -f`, a daemonising double fork) escapes a group kill but keeps its environment, so
 * scanning /proc for the tag finds it; see taggedProcesses.
 */
export const RUN_TAG_VAR = 'AGENTD_RUN_ID';

/**
 * `env` with `tag` added to RUN_TAG_VAR, after the tags already there (an agentd further up, the daemon run for
 * one call's tag), which must all still find the process.
 */
export function withRunTag<V extends string | undefined>(env: Readonly<Record<string, V>>, tag: string): Record<string, V | string> {
  const prev = env[RUN_TAG_VAR];
  return { ...env, [RUN_TAG_VAR]: prev ? `${prev},${tag}` : tag };
}

/**
 * Live processes (zombies excluded) whose initial environment carries `tag` in RUN_TAG_VAR, this process
 * excluded. Linux only (/proc); elsewhere, or for processes of other users, the list is empty and process
 * groups are all there is. A process that clears its environment (`env -i`) is not found.
 */
export function taggedProcesses(tag: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = `${RUN_TAG_VAR}=`;
  const out: number[] = [];
  for (const p of pids) {
    if (!/^\d+$/.test(p)) continue;
    const pid = Number(p);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${p}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read (and then not ours to kill)
    }
    const at = environ.startsWith(needle) ? 0 : environ.indexOf(`\0${needle}`);
    if (at === -1) continue;
    const start = at === 0 ? needle.length : at + 1 + needle.length;
    const end = environ.indexOf('\0', start);
    const tags = environ.slice(start, end === -1 ? undefined : end).split(',');
    if (!tags.includes(tag)) continue;
    const st = procState(pid);
    if (st && st.state !== 'Z' && st.state !== 'X') out.push(pid);
  }
  return out;
}

/** Sends `signal` to each pid; false for those already gone. */
export function signalPids(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
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
  /** Also the processes carrying this run tag (those of one call that left the group with setsid). */
  tag?: string;
}

/**
 * SIGTERM the group (and the tagged processes), then SIGKILL whatever is left after the grace period. Resolves
 * when all are gone (or SIGKILL was sent). The timers are unref'd: a daemon that is exiting kills tracked
 * groups itself.
 */
export function killGroup(pgid: number, opts: KillGroupOptions): Promise<void> {
  const tagged = (): number[] => (opts.tag !== undefined ? taggedProcesses(opts.tag) : []);
  const groupSignalled = signalGroup(pgid, 'SIGTERM');
  const strays = tagged();
  if (!groupSignalled && strays.length === 0) return Promise.resolve();
  signalPids(strays, 'SIGTERM');
  const poll = opts.pollMs ?? 25;
  const deadline = Date.now() + opts.graceMs;
  return new Promise((resolve) => {
    const tick = (): void => {
      const left = tagged();
      signalPids(left, 'SIGTERM'); // forked since the last look
      if (!groupAlive(pgid) && left.length === 0) return resolve();
      if (Date.now() >= deadline) {
        signalGroup(pgid, 'SIGKILL');
        signalPids(tagged(), 'SIGKILL');
        return resolve();
      }
      setTimeout(tick, poll).unref();
    };
    setTimeout(tick, Math.min(poll, opts.graceMs)).unref();
  });
}
