// What tools run in: a child environment without agentd's credentials, a tracker of child process groups
// (so shutdown can kill every one of them), a spill directory for large outputs.
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { createRedactor } from '../util/secrets.js';
import { FileStateCache } from './file-state.js';
import { groupAlive, signalPids, taggedProcesses } from './process-groups.js';
import { positiveNumber } from '../util/env.js';
import { DEFAULT_KEPT_OUTPUT_BYTES, DEFAULT_MAX_OUTPUT_FILE_BYTES, KeptOutputs } from './shell/kept-outputs.js';
import type { BackgroundRegistry, BackgroundShellInfo, SideModel, ToolEnvironment } from './tool.js';
import type { CommandSandbox } from './sandbox/runtime.js';
import { type ReadOnlySandbox, createReadOnlySandbox, parseReadOnlySandboxPolicy } from './sandbox/index.js';
import { SECRET_ENV_NAMES, extraSecretNames } from '../util/secrets.js';

export { SECRET_ENV_NAMES };

/**
 * The PATH tools get when agentd was given none (unset or empty, as when a host starts it with a bare
 * environment): systemd's default search path, which finds the shell and the usual commands. An empty PATH
 * would make every command but absolute paths fail (`ls: No such file or directory`), and bash's own default
 * for an unset PATH ends in `.`, the current directory.
 */
export const DEFAULT_CHILD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The environment for child processes. Secrets are removed unless AGENTD_PASS_CREDENTIALS_TO_TOOLS=1;
 * AGENTD_SECRET_ENV (comma-separated names) adds more variables to remove. An unset or empty PATH becomes
 * DEFAULT_CHILD_PATH.
 */
export function childEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  if (!out['PATH']) out['PATH'] = DEFAULT_CHILD_PATH;
  if (env['AGENTD_PASS_CREDENTIALS_TO_TOOLS'] === '1') return out;
  const extra = extraSecretNames(env);
  for (const k of [...SECRET_ENV_NAMES, ...extra]) delete out[k];
  delete out['AGENTD_SECRET_ENV'];
  out['CLAUDECODE'] = '1';
  out['AGENTD'] = '1';
  return out;
}

/** The secret values to scrub from logs. */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const extra = extraSecretNames(env);
  return [...SECRET_ENV_NAMES, ...extra].map((k) => env[k]).filter((v): v is string => typeof v === 'string' && v.length >= 8);
}

/**
 * Process groups of running tool children. Killing a group reaches its background children too. With a run
 * tag (set in every tool's and hook's environment, see withRunTag), killAll also finds processes that left
 * their group (`setsid`) by scanning /proc for the tag.
 */
export class ProcessGroupTracker {
  private readonly groups = new Set<number>();

  constructor(private readonly opts: { runTag?: string } = {}) {}

  private strays(): number[] {
    return this.opts.runTag ? taggedProcesses(this.opts.runTag) : [];
  }

  track(pgid: number): () => void {
    this.groups.add(pgid);
    return () => this.groups.delete(pgid);
  }

  get size(): number {
    return this.groups.size;
  }

  signalAll(signal: NodeJS.Signals): void {
    for (const g of this.groups) {
      try {
        process.kill(-g, signal);
      } catch {
        // Already gone.
      }
    }
  }

  /**
   * SIGTERM every group and every tagged process, then SIGKILL what is left after `graceMs`. Resolves when
   * done. For the daemon's exit: tagged processes outlive the calls that started them until then.
   */
  async killAll(graceMs: number): Promise<void> {
    let strays = this.strays();
    if (this.groups.size === 0 && strays.length === 0) return;
    this.signalAll('SIGTERM');
    signalPids(strays, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      strays = this.strays();
      // A stray that forked since the last look gets its SIGTERM too.
      signalPids(strays, 'SIGTERM');
      if (strays.length === 0 && [...this.groups].every((g) => !alive(g))) return;
    }
    this.killAllNow();
  }

  /** SIGKILL every group and tagged process now, synchronously (for process 'exit' and crash paths). */
  killAllNow(): void {
    this.signalAll('SIGKILL');
    signalPids(this.strays(), 'SIGKILL');
  }
}

function alive(pgid: number): boolean {
  // Zombies count as gone: an init that reaps late must not make us wait out the grace period.
  return groupAlive(pgid);
}

export class EmptyBackgroundRegistry implements BackgroundRegistry {
  list(): BackgroundShellInfo[] {
    return [];
  }
  async killAll(): Promise<void> {
    return undefined;
  }
}

/**
 * The session's folder for large outputs (Bash output files, spilled results, background task logs) in the
 * system temp directory: made on first use, removed by `remove()` at the daemon's exit, on every exit path (the
 * process 'exit' handler; only a SIGKILL of agentd itself leaves it). Named after the daemon's pid, so a folder
 * left by a killed daemon says whose it was.
 */
export class SpillDir {
  private made: string | undefined;

  constructor(private readonly parent: () => string = tmpdir) {}

  get path(): string {
    this.made ??= mkdtempSync(join(this.parent(), `agentd-spill-${process.pid}-`));
    return this.made;
  }

  /** Synchronous: runs in the process 'exit' handler, after every tool process was killed. */
  remove(): void {
    const dir = this.made;
    if (dir === undefined) return;
    this.made = undefined;
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // Best effort at exit: a file a dying child still holds open is no reason to fail the exit.
    }
  }
}

export function createToolEnvironment(opts: {
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  tracker: ProcessGroupTracker;
  /** A registry, or a getter for one that is created later (the tools load after start-up). */
  background?: BackgroundRegistry | (() => BackgroundRegistry);
  /** A folder the caller owns, or a SpillDir the caller removes at exit (default: one of its own, never removed). */
  spillDir?: string | SpillDir;
  /** Default: from AGENTD_READONLY_SANDBOX in `env` (an invalid value throws; the CLI checks it first). */
  readOnlySandbox?: ReadOnlySandbox;
  /** The command sandbox of the `sandbox` settings (started by the caller). */
  commandSandbox?: CommandSandbox;
  sideModel?: SideModel;
}): ToolEnvironment {
  const spill = typeof opts.spillDir === 'string' ? opts.spillDir : (opts.spillDir ?? new SpillDir());
  const keptOutputs = new KeptOutputs(positiveNumber(opts.env['AGENTD_MAX_KEPT_OUTPUT_BYTES']) ?? DEFAULT_KEPT_OUTPUT_BYTES);
  const maxOutputFileBytes = positiveNumber(opts.env['AGENTD_MAX_OUTPUT_FILE_BYTES']) ?? DEFAULT_MAX_OUTPUT_FILE_BYTES;
  const bg = opts.background;
  const empty = new EmptyBackgroundRegistry();
  return {
    readOnlySandbox: opts.readOnlySandbox ?? readOnlySandboxFromEnv(opts.env, opts.logger),
    ...(opts.commandSandbox ? { commandSandbox: opts.commandSandbox } : {}),
    ...(opts.sideModel ? { sideModel: opts.sideModel } : {}),
    childEnv: childEnvironment(opts.env),
    redact: createRedactor(secretValues(opts.env)),
    fileState: new FileStateCache(),
    get spillDir(): string {
      return typeof spill === 'string' ? spill : spill.path;
    },
    keptOutputs,
    maxOutputFileBytes,
    logger: opts.logger,
    trackProcessGroup: (pid) => opts.tracker.track(pid),
    get background(): BackgroundRegistry {
      return typeof bg === 'function' ? bg() : (bg ?? empty);
    },
  };
}

/** The read-only sandbox AGENTD_READONLY_SANDBOX asks for; throws on a value that is not a policy. */
export function readOnlySandboxFromEnv(env: Readonly<Record<string, string | undefined>>, logger?: Logger): ReadOnlySandbox {
  const p = parseReadOnlySandboxPolicy(env['AGENTD_READONLY_SANDBOX']);
  if (!p.ok) throw new Error(p.message);
  return createReadOnlySandbox({ policy: p.policy, path: env['PATH'], home: env['HOME'] || homedir(), ...(logger ? { logger } : {}) });
}
