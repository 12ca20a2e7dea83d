// Runs ripgrep for Grep and collects its output with a byte cap, a time limit and the call's abort signal.
// node:child_process directly, since execa's one home is tools/process.ts (shells). rg runs in its own process
// group, registered with the session so shutdown can kill it, and never inherits agentd's stdout.
import { spawn } from 'node:child_process';
import type { ToolEnvironment } from '../tool.js';

export interface RgRun {
  /** null when rg was killed (time limit, output cap, abort). */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** stdout reached maxBytes and rg was stopped: the output is a prefix. */
  capped: boolean;
}

export interface RgRunOptions {
  cwd: string;
  env: ToolEnvironment;
  signal: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
}

const STDERR_CAP = 64 * 1024;

export function runRg(rg: string, args: readonly string[], opts: RgRunOptions): Promise<RgRun> {
  return new Promise((resolve, reject) => {
    opts.signal.throwIfAborted();
    const child = spawn(rg, args, { cwd: opts.cwd, env: opts.env.childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const untrack = child.pid !== undefined ? opts.env.trackProcessGroup(child.pid) : () => undefined;
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let timedOut = false;
    let capped = false;
    const stop = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone, or not yet its own group leader (the child calls setsid just after fork): kill it directly.
      }
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    const onAbort = (): void => stop();
    opts.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => {
      if (capped) return;
      const room = opts.maxBytes - outBytes;
      out.push(b.length > room ? b.subarray(0, room) : b);
      outBytes += Math.min(b.length, room);
      if (outBytes >= opts.maxBytes) {
        capped = true;
        stop();
      }
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < STDERR_CAP) err += b.toString('utf8');
    });
    const done = (): void => {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      untrack();
    };
    child.once('error', (e) => {
      done();
      reject(e);
    });
    child.once('close', (code) => {
      done();
      if (opts.signal.aborted) {
        reject(opts.signal.reason);
        return;
      }
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: err, timedOut, capped });
    });
  });
}
