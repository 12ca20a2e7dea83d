// A real tool environment for Bash tests: a temp work dir, a private spill dir, a process-group tracker that
// records every group, a background registry, and a context that records progress.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../src/log/logger.js';
import { type ShellTaskRegistry, createBackgroundRegistry } from '../../../src/tools/builtin/background.js';
import { ProcessGroupTracker, createToolEnvironment } from '../../../src/tools/environment.js';
import { groupAlive } from '../../../src/tools/process.js';
import type { Approval, SharedToolContext, ToolCallContext, ToolEnvironment, ToolProgressUpdate } from '../../../src/tools/tool.js';

export interface BashHarness {
  /** The work dir (real path). */
  cwd: string;
  spillDir: string;
  env: ToolEnvironment;
  tracker: ProcessGroupTracker;
  background: ShellTaskRegistry;
  /** Every process group ever tracked, in order. */
  groups: number[];
  progress: ToolProgressUpdate[];
  /** `progress`: replaces the recording of progress updates (a 50 MB test must not keep them all). */
  ctx(over?: { signal?: AbortSignal; shared?: Partial<SharedToolContext>; progress?: (u: ToolProgressUpdate) => void; approval?: Approval }): ToolCallContext;
  cleanup(): Promise<void>;
}

class RecordingTracker extends ProcessGroupTracker {
  constructor(private readonly seen: number[]) {
    super();
  }

  override track(pgid: number): () => void {
    this.seen.push(pgid);
    return super.track(pgid);
  }
}

export function bashHarness(opts: { env?: Record<string, string>; killGraceMs?: number } = {}): BashHarness {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-bash-test-')));
  const cwd = join(root, 'work');
  const spillDir = join(root, 'spill');
  mkdirSync(cwd);
  mkdirSync(spillDir, { mode: 0o700 });
  const groups: number[] = [];
  const progress: ToolProgressUpdate[] = [];
  const tracker = new RecordingTracker(groups);
  const background = createBackgroundRegistry({ killGraceMs: opts.killGraceMs ?? 500 });
  const base: Record<string, string | undefined> = { PATH: process.env['PATH'], HOME: process.env['HOME'], LANG: 'C.UTF-8', ...opts.env };
  const env = createToolEnvironment({ env: base, logger: silentLogger(), tracker, background, spillDir });
  return {
    cwd,
    spillDir,
    env,
    tracker,
    background,
    groups,
    progress,
    ctx(over = {}) {
      return {
        toolUseId: 'toolu_test',
        shared: { cwd, additionalDirectories: [], ...over.shared },
        env,
        signal: over.signal ?? new AbortController().signal,
        // As without a permission layer; sandbox tests pass { by: 'read-only-analysis' }.
        approval: over.approval ?? { by: 'unchecked' },
        // Like an executor flushing at once: live output is read as soon as it is announced.
        progress: over.progress ?? ((u) => progress.push(u.live ? { kind: u.kind, output: u.live.take(8192).text, totalBytes: u.totalBytes } : u)),
      };
    },
    async cleanup() {
      await background.killAll();
      await tracker.killAll(200);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** True while any process of the group exists, zombies included (what `kill(-pgid, 0)` sees). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return !(e instanceof Error && 'code' in e && e.code === 'ESRCH');
  }
}

async function waitUntil(done: () => boolean, withinMs: number, what: string): Promise<number> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > withinMs) throw new Error(`${what} after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

/** Resolves (with the time it took) once no process of the group runs; zombies awaiting their reaper do not count. */
export function groupGone(pgid: number, withinMs: number): Promise<number> {
  return waitUntil(() => !groupAlive(pgid), withinMs, `process group ${pgid} still running`);
}

/**
 * Resolves once `kill(-pgid, 0)` fails with ESRCH: the group is gone and reaped. Orphans are reaped by PID 1,
 * which on some machines (this sandbox's init) takes a second or two, hence a generous limit.
 */
export function groupReaped(pgid: number, withinMs = 8000): Promise<number> {
  return waitUntil(() => !groupExists(pgid), withinMs, `process group ${pgid} still exists`);
}
