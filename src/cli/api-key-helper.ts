// apiKeyHelper (a settings key): a shell command whose stdout is the API key. Run as Claude Code runs it (through
// the shell, in the working directory), with a deadline, its key cached for CLAUDE_CODE_API_KEY_HELPER_TTL_MS
// (default 5 minutes, as Claude Code) and fetched again after a 401. Concurrent requests share one run.
//
// Failures are typed and explained: the helper timed out, could not start, exited non-zero, or printed nothing.
// Its stderr is shown only redacted (util/secrets.ts) and truncated: a helper that echoes its secret (or the
// previous key) to stderr must not put it in a log line or a result frame.
import { createRequire } from 'node:module';
import type { ApiKeySource } from '../model/auth.js';
import { createRedactor } from '../util/secrets.js';

export const DEFAULT_HELPER_TTL_MS = 5 * 60_000;
/** Claude Code waits up to 10 minutes; a daemon answering a host should not. Override: AGENTD_API_KEY_HELPER_TIMEOUT_MS. */
export const DEFAULT_HELPER_TIMEOUT_MS = 60_000;
const lazyRequire = createRequire(import.meta.url);
const MAX_OUTPUT = 64 * 1024;

export type ApiKeyHelperFailure = 'timeout' | 'spawn' | 'exit' | 'empty' | 'output_too_large';

export class ApiKeyHelperError extends Error {
  readonly code: ApiKeyHelperFailure;
  constructor(code: ApiKeyHelperFailure, message: string) {
    super(message);
    this.name = 'ApiKeyHelperError';
    this.code = code;
  }
}

export interface ApiKeyHelperOptions {
  command: string;
  /** Where the setting came from (a file path or --settings), for messages. */
  where: string;
  cwd: string;
  /** The helper's environment (agentd's credentials already removed). */
  env: Record<string, string | undefined>;
  ttlMs: number;
  timeoutMs: number;
  /** Secrets known at start-up, redacted from the helper's stderr along with the keys it printed. */
  secrets: readonly string[];
  now?: () => number;
}

export class ApiKeyHelper implements ApiKeySource {
  private cached: { key: string; at: number } | undefined;
  private inflight: Promise<string> | undefined;
  private readonly seen: string[] = [];

  constructor(private readonly opts: ApiKeyHelperOptions) {}

  get(signal: AbortSignal): Promise<string> {
    const now = (this.opts.now ?? Date.now)();
    if (this.cached && now - this.cached.at < this.opts.ttlMs) return Promise.resolve(this.cached.key);
    this.inflight ??= this.run().then(
      (key) => {
        this.inflight = undefined;
        this.cached = { key, at: (this.opts.now ?? Date.now)() };
        return key;
      },
      (err: unknown) => {
        this.inflight = undefined;
        throw err;
      },
    );
    // The run is shared: one caller's abort ends its wait, not the helper.
    return signal.aborted ? Promise.reject(signal.reason) : Promise.race([this.inflight, abortPromise(signal)]);
  }

  invalidate(): void {
    this.cached = undefined;
  }

  private run(): Promise<string> {
    const { command, where, timeoutMs } = this.opts;
    const label = `apiKeyHelper (${where})`;
    return new Promise<string>((resolve, reject) => {
      // node:child_process required when a helper first runs, not at start-up (BENCHMARKS.md, start-up).
      const { spawn } = lazyRequire('node:child_process') as typeof import('node:child_process');
      let child: ReturnType<typeof spawn>;
      try {
        child = spawn(command, { shell: true, cwd: this.opts.cwd, env: this.opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
      } catch (e) {
        reject(new ApiKeyHelperError('spawn', `${label} could not be started: ${e instanceof Error ? e.message : String(e)}`));
        return;
      }
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      let settled = false;
      const finish = (f: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        f();
      };
      const killGroup = (): void => {
        try {
          if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        killGroup();
        finish(() => reject(new ApiKeyHelperError('timeout', `${label} did not finish within ${timeoutMs} ms and was stopped${this.stderrNote(err)}.`)));
      }, timeoutMs);
      child.stdout?.on('data', (c: Buffer) => {
        outBytes += c.length;
        if (outBytes > MAX_OUTPUT) {
          killGroup();
          finish(() => reject(new ApiKeyHelperError('output_too_large', `${label} printed more than ${MAX_OUTPUT} bytes; it must print only the key.`)));
        } else out.push(c);
      });
      child.stderr?.on('data', (c: Buffer) => {
        if (errBytes < MAX_OUTPUT) err.push(c);
        errBytes += c.length;
      });
      child.on('error', (e) => finish(() => reject(new ApiKeyHelperError('spawn', `${label} could not be started: ${e.message}`))));
      child.on('close', (code, sig) => {
        finish(() => {
          const key = Buffer.concat(out).toString('utf8').trim();
          if (key) this.seen.push(key);
          if (code !== 0) {
            reject(new ApiKeyHelperError('exit', `${label} failed (${sig ? `killed by ${sig}` : `exit code ${code}`})${this.stderrNote(err)}.`));
          } else if (!key) {
            reject(new ApiKeyHelperError('empty', `${label} exited 0 but printed no key on stdout${this.stderrNote(err)}.`));
          } else resolve(key);
        });
      });
    });
  }

  /** The helper's stderr, redacted and shortened, for an error message (never the raw text). */
  private stderrNote(err: Buffer[]): string {
    const text = Buffer.concat(err).toString('utf8').trim();
    if (!text) return '';
    const redact = createRedactor([...this.opts.secrets, ...this.seen]);
    const line = redact(text).replace(/\s+/g, ' ');
    return `; stderr (redacted): ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`;
  }
}

function abortPromise(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}
