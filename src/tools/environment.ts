// What tools run in: a child environment without agentd's credentials, a tracker of child process groups
// (so shutdown can kill every one of them), a spill directory for large outputs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { createRedactor } from '../util/secrets.js';
import { FileStateCache } from './file-state.js';
import { groupAlive } from './process-groups.js';
import { positiveNumber } from '../util/env.js';
import { DEFAULT_KEPT_OUTPUT_BYTES, DEFAULT_MAX_OUTPUT_FILE_BYTES, KeptOutputs } from './shell/kept-outputs.js';
import type { BackgroundRegistry, BackgroundShellInfo, ToolEnvironment } from './tool.js';

/** Variables that carry agentd's own credentials; never handed to tools unless the user says so. */
export const SECRET_ENV_NAMES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'AWS_BEARER_TOKEN_BEDROCK',
  'CLAUDE_CODE_SESSION_ACCESS_TOKEN',
] as const;

/**
 * The environment for child processes. Secrets are removed unless AGENTD_PASS_CREDENTIALS_TO_TOOLS=1;
 * AGENTD_SECRET_ENV (comma-separated names) adds more variables to remove.
 */
export function childEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  if (env['AGENTD_PASS_CREDENTIALS_TO_TOOLS'] === '1') return out;
  const extra = (env['AGENTD_SECRET_ENV'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const k of [...SECRET_ENV_NAMES, ...extra]) delete out[k];
  delete out['AGENTD_SECRET_ENV'];
  out['CLAUDECODE'] = '1';
  out['AGENTD'] = '1';
  return out;
}

/** The secret values to scrub from logs. */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const extra = (env['AGENTD_SECRET_ENV'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return [...SECRET_ENV_NAMES, ...extra].map((k) => env[k]).filter((v): v is string => typeof v === 'string' && v.length >= 8);
}

/** Process groups of running tool children. Killing a group reaches its background children too. */
export class ProcessGroupTracker {
  private readonly groups = new Set<number>();

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

  /** SIGTERM every group, then SIGKILL what is left after `graceMs`. Resolves when done. */
  async killAll(graceMs: number): Promise<void> {
    if (this.groups.size === 0) return;
    this.signalAll('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      if ([...this.groups].every((g) => !alive(g))) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    this.signalAll('SIGKILL');
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

export function createToolEnvironment(opts: {
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  tracker: ProcessGroupTracker;
  /** A registry, or a getter for one that is created later (the tools load after start-up). */
  background?: BackgroundRegistry | (() => BackgroundRegistry);
  spillDir?: string;
}): ToolEnvironment {
  let spill = opts.spillDir;
  const keptOutputs = new KeptOutputs(positiveNumber(opts.env['AGENTD_MAX_KEPT_OUTPUT_BYTES']) ?? DEFAULT_KEPT_OUTPUT_BYTES);
  const maxOutputFileBytes = positiveNumber(opts.env['AGENTD_MAX_OUTPUT_FILE_BYTES']) ?? DEFAULT_MAX_OUTPUT_FILE_BYTES;
  const bg = opts.background;
  const empty = new EmptyBackgroundRegistry();
  return {
    childEnv: childEnvironment(opts.env),
    redact: createRedactor(secretValues(opts.env)),
    fileState: new FileStateCache(),
    get spillDir(): string {
      spill ??= mkdtempSync(join(tmpdir(), 'agentd-spill-'));
      return spill;
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
