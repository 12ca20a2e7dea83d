// One temporary root per test run. Workers inherit TMPDIR pointing into it (vitest forks them after this ran) and
// pass it on to every daemon, adapter and Python SDK they spawn (baseEnv), so test folders, homes, transcripts,
// spill files and Bash output files all land inside it, and it is removed when the run ends.
//
// At the end, agentd-* entries that appeared in the real TMPDIR during the run fail it: they come from something
// that ignored TMPDIR (a spawn with a hand-made environment, a hard-coded /tmp). On a machine where other agentd
// test runs, benchmarks or daemons were active at the same time (seen by sampling /proc during the run), new
// entries cannot be attributed to this run: then they are reported as a warning naming those processes.
//
// A daemon removes its spill folder (agentd-spill-<pid>-*) at exit, on every exit path but its own SIGKILL: one
// left in the run's root, by a daemon that has exited, fails the run too (a test that SIGKILLs a daemon after it
// ran Bash removes that daemon's folder itself).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function agentdEntries(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith('agentd-'));
}

const LOOKS_LIKE_AGENTD_WORK = /vitest|bin\/agentd|dist\/agentd\.js|claude-agent-acp|dist\/scripts\/(bench|demo)\.mjs/;

/** Processes that may make agentd-* entries and are not this run's (not below it, not on its TMPDIR). */
function foreignProcesses(runDir: string): string[] {
  const parent = new Map<number, number>();
  const candidates: Array<[number, string]> = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return []; // no /proc: nothing to attribute with
  }
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      parent.set(Number(p), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
      if (LOOKS_LIKE_AGENTD_WORK.test(cmd)) candidates.push([Number(p), cmd]);
    } catch {
      // Gone meanwhile.
    }
  }
  // This run's own ancestors (npm, the shell running `npm test`) are not foreign either.
  const ancestors = new Set<number>();
  for (let p = parent.get(process.pid), n = 0; p !== undefined && p > 1 && n < 64; p = parent.get(p), n++) ancestors.add(p);
  const ours = (pid: number): boolean => {
    if (ancestors.has(pid)) return true;
    for (let p: number | undefined = pid, n = 0; p !== undefined && p > 1 && n < 64; p = parent.get(p), n++) if (p === process.pid) return true;
    try {
      // Re-parented processes of this run still carry its TMPDIR.
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`TMPDIR=${runDir}`);
    } catch {
      return false;
    }
  };
  return candidates.filter(([pid]) => !ours(pid)).map(([pid, cmd]) => `${pid} ${cmd.slice(0, 120)}`);
}

function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Spill folders left in `dir` by daemons that have exited. A daemon still exiting (an SDK's child finishing after
 * its worker ended) gets a moment; folders whose name carries no pid are counted as left.
 */
function leftSpillFolders(dir: string): string[] {
  const spills = (): string[] => readdirSync(dir).filter((n) => n.startsWith('agentd-spill-'));
  const pidOf = (n: string): number | undefined => {
    const m = /^agentd-spill-(\d+)-/.exec(n);
    return m ? Number(m[1]) : undefined;
  };
  const deadline = Date.now() + 5000;
  for (;;) {
    const live = spills().filter((n) => {
      const pid = pidOf(n);
      return pid !== undefined && pidAlive(pid);
    });
    if (live.length === 0 || Date.now() > deadline) break;
    // Synchronous wait: teardown is the last thing this process does.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
  return spills().filter((n) => {
    const pid = pidOf(n);
    return pid === undefined || !pidAlive(pid);
  });
}

export default function setup(): () => void {
  const realTmp = tmpdir();
  const before = new Set(agentdEntries(realTmp));
  // Not agentd-*: concurrent runs must not mistake it for a leak.
  const runDir = mkdtempSync(join(realTmp, 'vitest-agentd-run-'));
  process.env['TMPDIR'] = runDir;
  const foreign = new Set<string>();
  const sample = (): void => {
    for (const f of foreignProcesses(runDir)) if (foreign.size < 20) foreign.add(f);
  };
  sample();
  const sampler = setInterval(sample, 1000);
  sampler.unref();
  return () => {
    clearInterval(sampler);
    sample();
    process.env['TMPDIR'] = realTmp;
    const spills = leftSpillFolders(runDir);
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
    if (spills.length > 0) {
      process.exitCode = 1;
      throw new Error(
        `${spills.length} agentd spill folder(s) were left behind by daemons that exited (every exit path must remove them; src/tools/environment.ts SpillDir): ${spills.slice(0, 20).join(', ')}`,
      );
    }
    // mkdtemp names are random: a name that was not there before was made during the run.
    const leaked = agentdEntries(realTmp)
      .filter((n) => !before.has(n))
      .sort();
    if (leaked.length === 0) return;
    const list = `${leaked.slice(0, 20).join(', ')}${leaked.length > 20 ? ', …' : ''}`;
    if (foreign.size > 0) {
      console.warn(
        `\nWARNING: ${leaked.length} agentd-* entries appeared in ${realTmp} during this test run, but other agentd processes were active on this machine meanwhile, so they cannot be attributed to this run (run the tests alone to check): ${list}\nOther processes seen: ${[...foreign].join('; ')}\n`,
      );
      return;
    }
    process.exitCode = 1;
    throw new Error(
      `${leaked.length} agentd-* entries leaked into ${realTmp} during the test run: tests and the processes they spawn must use the run's TMPDIR (baseEnv / tempDir in test/support/daemon.ts): ${list}`,
    );
  };
}
