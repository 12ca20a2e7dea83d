// What a subject's tools left running, read from /proc: the descendants of a process and the members of a
// process group. Used to find the `sleep` a Bash call started and to check that an interrupt killed its group.
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state from /proc/<pid>/stat (`Z`: a zombie nobody has reaped yet). */
  state: string;
  comm: string;
}

function readStat(pid: number): ProcInfo | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone between readdir and read
  }
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
  const close = text.lastIndexOf(')');
  const open = text.indexOf('(');
  if (close < 0 || open < 0) return undefined;
  const rest = text.slice(close + 2).split(' ');
  const ppid = Number(rest[1]);
  const pgid = Number(rest[2]);
  if (!Number.isInteger(ppid) || !Number.isInteger(pgid)) return undefined;
  return { pid, ppid, pgid, state: rest[0] ?? '?', comm: text.slice(open + 1, close) };
}

export function allProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readStat(Number(name));
    if (info) out.push(info);
  }
  return out;
}

export function descendants(root: number): ProcInfo[] {
  const all = allProcesses();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const out: ProcInfo[] = [];
  const stack = [root];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      stack.push(c.pid);
    }
  }
  return out;
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Members of process group `pgid` that still run (zombies are dead, only not yet reaped). */
export function liveGroupMembers(pgid: number): ProcInfo[] {
  return allProcesses().filter((p) => p.pgid === pgid && p.state !== 'Z');
}

/** Polls until a descendant of `root` matches `pred`. */
export async function waitForDescendant(root: number, pred: (p: ProcInfo) => boolean, timeoutMs: number): Promise<ProcInfo> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const hit = descendants(root).find(pred);
    if (hit) return hit;
    if (performance.now() > deadline) throw new Error(`no matching child process of ${root} after ${timeoutMs} ms`);
    await sleep(2);
  }
}

/** Milliseconds until `cond` holds (0 if it holds at once), polled every 2 ms; undefined after `timeoutMs`. */
export async function pollUntil(cond: () => boolean, timeoutMs: number): Promise<number | undefined> {
  if (cond()) return 0;
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    await sleep(2);
    if (cond()) return performance.now() - t0;
  }
  return undefined;
}
