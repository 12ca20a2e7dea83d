// Runs the hooks registered for an event: SDK callbacks (hook_callback requests through the HookCallbackPort)
// and command hooks from settings files, all matching ones in parallel, each with its timeout. Every hook ends in
// a HookRun: an output, or a failure (error, timeout, garbage) the caller decides how to treat — unless the
// registration says itself what its failure does (`onFailure`, below).
import type { Logger } from '../log/logger.js';
import { runCommandHook } from './command.js';
import { matcherMatches } from './matcher.js';
import { type HookOutput, parseHookOutput } from './output.js';

/** Sends a hook_callback to the host and resolves with its (unvalidated) answer. Rejects on error/cancel/close. */
export interface HookCallbackPort {
  call(callbackId: string, input: Record<string, unknown>, toolUseId: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<unknown>;
}

/**
 * What a failure of a hook does, as its registration says (the SDK's hook matchers and settings hooks both carry
 * it; `initialize` answers `hook_on_failure_supported: true`): `block` — the failure counts as a block (exit code
 * 2), so the action the event guards (a tool call, a permission request, a prompt, a compaction) does not happen;
 * `continue` — it is reported and the action goes on. Unset: agentd's default (a permission-deciding hook's
 * failure blocks the call; any other hook's is reported). Ignored on the events that guard no action.
 */
export type OnFailure = 'continue' | 'block';

/** Events whose hooks guard no action: `onFailure` means nothing there (the SDK's list). */
const NO_ACTION_EVENTS: ReadonlySet<string> = new Set(['Stop', 'SubagentStop', 'TaskCompleted', 'TeammateIdle']);

export interface CallbackRegistration {
  kind: 'callback';
  event: string;
  matcher: string | undefined;
  callbackIds: string[];
  timeoutSec: number | undefined;
  onFailure?: OnFailure;
}

export interface CommandRegistration {
  kind: 'command';
  event: string;
  matcher: string | undefined;
  command: string;
  timeoutSec: number | undefined;
  source: string;
  /** False: a hook from an untrusted project/local settings file; its answers cannot allow or add permissions. */
  grants?: boolean;
  onFailure?: OnFailure;
}

export type HookRegistration = CallbackRegistration | CommandRegistration;

export type HookRun =
  | { ok: true; name: string; output: HookOutput; /** command hooks: exit code 2 = blocking error */ blocking?: string; stdout?: string }
  | {
      ok: false;
      name: string;
      error: string;
      /**
       * Why it failed. `exit_code` (a command hook exiting with neither 0 nor 2) is Claude Code's documented
       * non-blocking error for every event: it is reported and the hook's event goes on as if it had not run.
       */
      failure: HookFailure;
      /** The failure lets the action go on: an `exit_code` failure, or any failure of an `onFailure: continue` hook. */
      proceeds: boolean;
    };

export type HookFailure = 'exit_code' | 'killed' | 'timeout' | 'invalid_output' | 'not_started' | 'callback_error';

export interface HookEventsSink {
  started(id: string, name: string, event: string): void;
  response(id: string, name: string, event: string, r: { outcome: 'success' | 'error' | 'cancelled'; output: string; stdout: string; stderr: string; exitCode?: number }): void;
}

export const DEFAULT_HOOK_TIMEOUT_SEC = 60;

export class HookRunner {
  private registrations: HookRegistration[] = [];
  private seq = 0;

  constructor(
    private readonly port: HookCallbackPort,
    private readonly env: Readonly<Record<string, string>>,
    private readonly logger: Logger,
    private readonly sink: HookEventsSink | undefined,
    /** Where a hook runs when its input names no cwd (the session's; every hook input names one today). */
    private readonly defaultCwd: string = '.',
  ) {}

  /** Callback registrations from `initialize` replace earlier ones (a re-initialize re-registers). */
  setCallbacks(regs: CallbackRegistration[]): void {
    this.registrations = [...this.registrations.filter((r) => r.kind === 'command'), ...regs];
  }

  addCommands(regs: CommandRegistration[]): void {
    this.registrations.push(...regs);
  }

  has(event: string): boolean {
    return this.registrations.some((r) => r.event === event);
  }

  async run(event: string, matchValue: string | undefined, input: Record<string, unknown>, signal: AbortSignal, toolUseId?: string): Promise<HookRun[]> {
    const regs = this.registrations.filter((r) => r.event === event && matcherMatches(r.matcher, matchValue, event));
    const jobs: Array<Promise<HookRun>> = [];
    for (const r of regs) {
      const timeoutMs = Math.max(1, r.timeoutSec ?? DEFAULT_HOOK_TIMEOUT_SEC) * 1000;
      const onFailure = NO_ACTION_EVENTS.has(event) ? undefined : r.onFailure;
      const settle = (run: HookRun): HookRun => applyOnFailure(run, onFailure);
      if (r.kind === 'callback') {
        for (const id of r.callbackIds) jobs.push(this.runCallback(event, id, input, toolUseId, signal, timeoutMs).then(settle));
      } else {
        const job = this.runCommand(event, r, input, signal, timeoutMs).then(settle);
        jobs.push(r.grants === false ? job.then(withoutGrants) : job);
      }
    }
    return Promise.all(jobs);
  }

  private async runCallback(event: string, id: string, input: Record<string, unknown>, toolUseId: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<HookRun> {
    const hookId = `hook-${++this.seq}`;
    const name = `callback:${id}`;
    this.sink?.started(hookId, name, event);
    try {
      const raw = await this.port.call(id, input, toolUseId, signal, timeoutMs);
      const parsed = parseHookOutput(raw);
      if (!parsed.ok) {
        this.sink?.response(hookId, name, event, { outcome: 'error', output: `invalid hook output: ${parsed.error}`, stdout: '', stderr: '' });
        return { ok: false, name, error: `returned an invalid answer (${parsed.error})`, failure: 'invalid_output', proceeds: false };
      }
      this.sink?.response(hookId, name, event, { outcome: 'success', output: JSON.stringify(parsed.output), stdout: '', stderr: '' });
      return { ok: true, name, output: parsed.output };
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      this.sink?.response(hookId, name, event, { outcome: signal.aborted ? 'cancelled' : 'error', output: msg, stdout: '', stderr: '' });
      return { ok: false, name, error: msg, failure: 'callback_error', proceeds: false };
    }
  }

  private async runCommand(event: string, r: CommandRegistration, input: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<HookRun> {
    const hookId = `hook-${++this.seq}`;
    const name = `command:${r.command.slice(0, 80)}`;
    this.sink?.started(hookId, name, event);
    const res = await runCommandHook({ command: r.command, input, env: this.env, cwd: typeof input['cwd'] === 'string' ? input['cwd'] : this.defaultCwd, timeoutMs, signal });
    const outcome = res.timedOut || res.error || (res.exitCode !== 0 && res.exitCode !== 2) ? 'error' : 'success';
    this.sink?.response(hookId, name, event, { outcome: signal.aborted ? 'cancelled' : outcome, output: res.stdout, stdout: res.stdout, stderr: res.stderr, ...(res.exitCode !== null ? { exitCode: res.exitCode } : {}) });
    if (res.error) return { ok: false, name, error: res.error, failure: 'not_started', proceeds: false };
    if (res.timedOut) return { ok: false, name, error: `timed out after ${timeoutMs} ms`, failure: 'timeout', proceeds: false };
    if (res.exitCode === 2) return { ok: true, name, output: {}, blocking: res.stderr.trim() || 'blocked by hook (exit code 2)' };
    if (res.exitCode !== 0) {
      this.logger.warn({ hook: name, exit_code: res.exitCode, stderr: res.stderr.slice(0, 500) }, 'command hook failed (non-blocking)');
      // Killed by a signal (a crash, not a chosen exit code): a failure like a timeout.
      if (res.exitCode === null) return { ok: false, name, error: `was killed by a signal: ${res.stderr.trim().slice(0, 500)}`, failure: 'killed', proceeds: false };
      return { ok: false, name, error: `exited with code ${res.exitCode}: ${res.stderr.trim().slice(0, 500)}`, failure: 'exit_code', proceeds: true };
    }
    const text = res.stdout.trim();
    if (text.startsWith('{')) {
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        return { ok: false, name, error: 'printed output that starts like JSON but does not parse', failure: 'invalid_output', proceeds: false };
      }
      const parsed = parseHookOutput(v);
      return parsed.ok ? { ok: true, name, output: parsed.output, stdout: res.stdout } : { ok: false, name, error: `printed an invalid answer (${parsed.error})`, failure: 'invalid_output', proceeds: false };
    }
    return { ok: true, name, output: {}, stdout: res.stdout };
  }
}

/** A failed run as its registration's `onFailure` says: a block, or a report the action goes on after. */
function applyOnFailure(run: HookRun, onFailure: OnFailure | undefined): HookRun {
  if (run.ok || onFailure === undefined) return run;
  if (onFailure === 'continue') return { ...run, proceeds: true };
  return { ok: true, name: run.name, output: {}, blocking: `The hook ${run.name} failed (${run.error}), and its onFailure is "block".` };
}

/**
 * A hook's answer with everything that would allow a call or add permissions removed (deny, ask and context
 * stay): for hooks from settings files the repository controls.
 */
function withoutGrants(run: HookRun): HookRun {
  if (!run.ok) return run;
  const o = run.output;
  const hs = o.hookSpecificOutput;
  const output: HookOutput = { ...o };
  if (output.decision === 'approve') delete output.decision;
  if (hs) {
    const h = { ...hs };
    if (h.permissionDecision === 'allow') delete h.permissionDecision;
    if (h.decision?.behavior === 'allow') delete h.decision;
    output.hookSpecificOutput = h;
  }
  return { ...run, output };
}
