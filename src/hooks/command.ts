// Command hooks: `sh -c <command>` in its own process group, the JSON input on stdin, stdout/stderr captured
// (capped), killed as a group on timeout or abort. Plain node:child_process: a hook is one short-lived process.
import { createRequire } from 'node:module';

// child_process (with net and dgram behind it) is loaded on the first command hook, not at start-up.
const lazyRequire = createRequire(import.meta.url);

export interface CommandHookResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  error?: string;
}

const CAP = 1024 * 1024;

export function runCommandHook(o: {
  command: string;
  input: Record<string, unknown>;
  env: Readonly<Record<string, string>>;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<CommandHookResult> {
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    let timedOut = false;
    let settled = false;
    const { spawn } = lazyRequire('node:child_process') as typeof import('node:child_process');
    const child = spawn('/bin/sh', ['-c', o.command], { cwd: o.cwd, env: { ...o.env }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const killGroup = (sig: NodeJS.Signals): void => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        // gone
      }
    };
    const stop = (): void => {
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), 1000).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, o.timeoutMs);
    const onAbort = (): void => stop();
    o.signal.addEventListener('abort', onAbort, { once: true });
    const finish = (r: CommandHookResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      resolve(r);
    };
    child.stdout.on('data', (c: Buffer) => {
      if (out.length < CAP) out += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      if (err.length < CAP) err += c.toString('utf8');
    });
    child.on('error', (e) => finish({ exitCode: null, stdout: out, stderr: err, timedOut, error: `could not start: ${e.message}` }));
    child.on('close', (code) => finish({ exitCode: code, stdout: out, stderr: err, timedOut }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(o.input));
  });
}
