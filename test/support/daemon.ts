// Spawns the built daemon (bin/agentd) for process-level tests, and provides a spawner for the official
// SDK's `spawnClaudeCodeProcess` option that taps stdout through a FrameTap.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { FrameTap } from './frames.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const AGENTD = join(ROOT, 'bin/agentd');

const made: string[] = [];

/** A fresh folder in the run's TMPDIR (test/support/global-setup.ts); removed when its test file ends (setup.ts). */
export function tempDir(prefix = 'agentd-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Removes the folders tempDir() made in this test file. A daemon may still be exiting and writing into one: what
 * cannot be removed now goes with the run's temporary root at the end.
 */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Left to global-setup.ts's teardown.
    }
  }
}

/** A clean environment: no credentials or config of the machine running the tests. */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const home = tempDir('agentd-home-');
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    // The run's temporary root: spill and Bash output files of the daemon go there, not into the real TMPDIR.
    TMPDIR: tmpdir(),
    AGENTD_LOG_LEVEL: 'warn',
    // The machine's own managed policy (/etc/claude-code) must not change what a test sees.
    AGENTD_MANAGED_SETTINGS_DIR: join(home, 'etc-claude-code'),
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export interface Daemon {
  child: ChildProcess;
  tap: FrameTap;
  stderr: () => string;
  send(frame: unknown): void;
  sendRaw(text: string | Buffer): void;
  endInput(): void;
  /** Resolves with the first frame (already seen or future) matching `pred`. */
  waitFor(pred: (f: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export const STREAM_ARGS = ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];

/** `direct`: execute bin/agentd itself, as the SDKs do (its shell preamble runs), instead of `node bin/agentd`. */
export function startDaemon(opts: { args?: string[]; env?: Record<string, string>; cwd?: string; direct?: boolean } = {}): Daemon {
  const args = opts.args ?? STREAM_ARGS;
  const child = spawn(opts.direct ? AGENTD : process.execPath, opts.direct ? args : [AGENTD, ...args], {
    cwd: opts.cwd ?? tempDir('agentd-cwd-'),
    env: opts.env ?? baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const tap = new FrameTap();
  let err = '';
  child.stdout?.on('data', (c: Buffer) => tap.push(c));
  child.stdout?.on('end', () => tap.end());
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  child.stdin?.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    tap,
    stderr: () => err,
    send: (f) => child.stdin?.write(`${JSON.stringify(f)}\n`),
    sendRaw: (t) => child.stdin?.write(t),
    endInput: () => child.stdin?.end(),
    waitFor: (pred, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const found = tap.frames.find(pred);
        if (found) return resolve(found);
        const t = setTimeout(() => {
          off();
          reject(new Error(`timed out waiting for a frame; saw ${tap.frames.map((f) => `${String(f['type'])}/${String(f['subtype'] ?? '')}`).join(', ')}; stderr: ${err.slice(-500)}`));
        }, timeoutMs);
        const off = tap.onFrame((f) => {
          if (pred(f)) {
            clearTimeout(t);
            off();
            resolve(f);
          }
        });
      }),
    exited,
  };
}

export function initializeFrame(id = 'init_1', extra: Record<string, unknown> = {}): unknown {
  return { request_id: id, type: 'control_request', request: { subtype: 'initialize', systemPrompt: [''], ...extra } };
}

export function userFrame(text: string, extra: Record<string, unknown> = {}): unknown {
  return { type: 'user', session_id: '', message: { role: 'user', content: [{ type: 'text', text }] }, parent_tool_use_id: null, ...extra };
}

/**
 * For the official SDK's `spawnClaudeCodeProcess`: runs the built daemon and validates every stdout line.
 * `taps` collects the tap of each process spawned.
 */
export function tappedSpawner(taps: FrameTap[] = []) {
  return (o: { command: string; args: string[]; cwd?: string; env: Record<string, string | undefined>; signal: AbortSignal }) => {
    // The SDK passes the executable path as `command` (for .mjs it is node + [path, ...args]).
    const child = spawn(o.command, o.args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const tap = new FrameTap();
    taps.push(tap);
    const out = new PassThrough();
    child.stdout?.on('data', (c: Buffer) => {
      tap.push(c);
      out.write(c);
    });
    child.stdout?.on('end', () => {
      tap.end();
      out.end();
    });
    child.stderr?.resume();
    o.signal.addEventListener('abort', () => child.kill('SIGTERM'), { once: true });
    return {
      stdin: child.stdin,
      stdout: out,
      get killed() {
        return child.killed;
      },
      get exitCode() {
        return child.exitCode;
      },
      get signalCode() {
        return child.signalCode;
      },
      kill: (s: NodeJS.Signals) => child.kill(s),
      on: (ev: 'exit' | 'error', l: (...a: never[]) => void) => {
        child.on(ev, l as (...a: unknown[]) => void);
      },
      once: (ev: 'exit' | 'error', l: (...a: never[]) => void) => {
        child.once(ev, l as (...a: unknown[]) => void);
      },
      off: (ev: 'exit' | 'error', l: (...a: never[]) => void) => {
        child.off(ev, l as (...a: unknown[]) => void);
      },
      pid: child.pid,
    };
  };
}
