// Bash: runs `bash -c <command>` in its own process group, with stdin closed and stdout/stderr both writing
// to one output file (shell/output-file.ts; see shell/init-script.ts for the shell setup), and returns what
// it printed within a budget (shell/output.ts). Live output: the file is checked every POLL_MS and the
// executor reads its newest bytes when it sends a progress frame.
//
// Completion is the shell's exit: a job it put in the background keeps writing to the file, unseen.
// A timeout or an abort sends SIGTERM to the whole group and SIGKILL after a grace of at most 2 s; the call
// returns at once and the escalation continues in the background.
//
// Timeouts: input `timeout` (ms), else BASH_DEFAULT_TIMEOUT_MS (120 000), clamped to BASH_MAX_TIMEOUT_MS
// (600 000). The two variables are read from the tool environment's childEnv (agentd's own environment minus
// credentials), so they follow the daemon's environment and tests can set them without touching process.env.
import { mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { type ShellExit, killGroup, spawnShell, withRunTag } from '../process.js';
import { analyzeCommand, analyzeCommandSync, commandName } from '../shell/analyze.js';
import { BASH_DESCRIPTION, BASH_INPUT_JSON_SCHEMA } from '../shell/bash-prompt.js';
import { ensureInitScript, shellEnv } from '../shell/init-script.js';
import { type CollectedOutput, DEFAULT_OUTPUT_BUDGET } from '../shell/output.js';
import { DEFAULT_MAX_OUTPUT_FILE_BYTES } from '../shell/kept-outputs.js';
import { OutputFile } from '../shell/output-file.js';
import { isReadOnlyCommand } from '../shell/read-only.js';
import type { CommandAnalysis } from '../shell/types.js';
import type { JailScope } from '../sandbox/types.js';
import { type ShellPlacement, placeShell, sandboxedShell } from './bash-sandbox.js';
import type { Tool, ToolCallContext, ToolOutcome } from '../tool.js';
import { loadProcessSupport } from '../process.js';
import { positiveNumber } from '../../util/env.js';
import { DEFAULT_BACKGROUND_TIMEOUT_MS, MAX_BACKGROUND_TIMEOUT_MS, type StartShellTask, isShellTaskRegistry, releaseWhenGone } from './background.js';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
const KILL_GRACE_MS = 2_000;
/** Output file checks for live progress (a stat; the executor reads at most once per progress frame). */
const POLL_MS = 100;
const ABORT_MARKER = '<error>Command was aborted before completion</error>';
const NO_OUTPUT = '(Bash completed with no output)';

const BashInput = z.lazy(() => z.strictObject({
  command: z.string(),
  timeout: z.optional(z.number()),
  description: z.optional(z.string()),
  run_in_background: z.optional(z.boolean()),
  dangerouslyDisableSandbox: z.optional(z.boolean()),
}));
export type BashInput = z.infer<typeof BashInput>;

/** The structured result (tool_use_result), as Claude Code's BashOutput. */
export interface BashOutput {
  stdout: string;
  stderr: string;
  interrupted: boolean;
  isImage?: boolean;
  noOutputExpected?: boolean;
  returnCodeInterpretation?: string;
  backgroundTaskId?: string;
  /** Where the full output is when it was cut for the model. */
  persistedOutputPath?: string;
  persistedOutputSize?: number;
}

/** A failed command's tool_use_result is the error text, as Claude Code reports it. */
export type BashResult = BashOutput | string;

export interface BashToolOptions {
  /** Override BASH_DEFAULT_TIMEOUT_MS / BASH_MAX_TIMEOUT_MS. */
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace (capped at 2 s). */
  killGraceMs?: number;
  /** How often the output file is checked for live progress. */
  pollMs?: number;
  /** Output budget for the model, in JSON-escaped bytes. */
  outputBudget?: number;
  /**
   * The session's working directories root (its original cwd). A `cd` persists when the new directory is
   * inside it or an additional directory; defaults to the current cwd.
   */
  projectDir?: string;
}

export function resolveTimeouts(env: Readonly<Record<string, string>>, opts: BashToolOptions): { def: number; max: number } {
  const def = opts.defaultTimeoutMs ?? positiveNumber(env['BASH_DEFAULT_TIMEOUT_MS']) ?? DEFAULT_TIMEOUT_MS;
  const max = Math.max(def, opts.maxTimeoutMs ?? positiveNumber(env['BASH_MAX_TIMEOUT_MS']) ?? MAX_TIMEOUT_MS);
  return { def, max };
}

function clampTimeout(requested: number | undefined, def: number, max: number): number {
  return Math.min(requested !== undefined && requested > 0 ? requested : def, max);
}

/** Commands that normally print nothing when they succeed. */
const SILENT = new Set(['mv', 'cp', 'rm', 'mkdir', 'rmdir', 'chmod', 'chown', 'chgrp', 'touch', 'ln', 'cd', 'export', 'unset', 'wait']);

/** Exit codes that mean an answer, not a failure, for the command whose status the shell returns. */
function interpretExit(analysis: CommandAnalysis | undefined, code: number): string | undefined {
  const last = analysis?.ok ? analysis.segments.at(-1) : undefined;
  if (!last || code !== 1) return undefined;
  switch (commandName(last)) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
    case 'rg':
      return 'No matches found';
    case 'diff':
      return 'Files differ';
    case 'test':
    case '[':
    case '[[':
      return 'Condition is false';
    case 'find':
      return 'Some directories were inaccessible';
    default:
      return undefined;
  }
}

function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m ${Math.round((ms % 60_000) / 1000)}s`;
}

function within(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}



type RunResult =
  | { collected: CollectedOutput; stop: 'timeout' | 'abort' | 'output_limit' }
  | { collected: CollectedOutput; exit: ShellExit; newCwd?: string };

export function createBashTool(opts: BashToolOptions = {}): Tool<BashInput, BashResult> {
  const grace = Math.min(opts.killGraceMs ?? KILL_GRACE_MS, KILL_GRACE_MS);

  async function run(input: BashInput, ctx: ToolCallContext, timeoutMs: number, placement: ShellPlacement): Promise<RunResult> {
    const dir = ctx.env.spillDir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tag = randomBytes(6).toString('hex');
    const cwdFile = join(dir, `cwd-${tag}`);
    // The call's own run tag: a stopped call also kills what it started outside its process group (setsid).
    const callTag = `call-${tag}`;
    const initScript = ensureInitScript(dir);
    const env = withRunTag(shellEnv(ctx.env.childEnv, { initScript, cwdFile }), callTag);
    const output = new OutputFile(join(dir, `bash-output-${tag}.log`));
    try {
      let child: ReturnType<typeof spawnShell>;
      try {
        let jail;
        // The jail or sandbox can write this one file (bound in), so it must exist first; empty means "no cd".
        if (placement.kind !== 'plain') writeFileSync(cwdFile, '', { mode: 0o600 });
        if (placement.kind === 'jail') jail = placement.jailer({ ...jailScope(ctx, opts.projectDir), readableFiles: [initScript], writableFiles: [cwdFile] });
        if (placement.kind === 'sandbox') {
          const w = await sandboxedShell(placement, { script: input.command, env, ctx, projectDir: opts.projectDir, writableFiles: [cwdFile] });
          try {
            child = spawnShell({ script: input.command, cwd: ctx.shared.cwd, env: w.env, output: output.writeFd, argv: w.argv });
          } catch (e) {
            w.release();
            throw e;
          }
          void child.exited.then(w.release);
        } else child = spawnShell({ script: input.command, cwd: ctx.shared.cwd, env, output: output.writeFd, ...(jail ? { jail } : {}) });
      } finally {
        output.releaseWriter();
      }
      const pid = child.pid;
      const untrack = pid !== undefined ? ctx.env.trackProcessGroup(pid) : () => undefined;
      const maxBytes = ctx.env.maxOutputFileBytes ?? DEFAULT_MAX_OUTPUT_FILE_BYTES;
      let stopForSize: (() => void) | undefined;
      // Live output: announce growth; the executor reads the newest bytes when it sends a progress frame.
      let announced = 0;
      const poll = setInterval(() => {
        const size = output.size();
        if (size === announced) return;
        announced = size;
        ctx.progress({ kind: 'output', totalBytes: size, live: output });
        if (size > maxBytes) stopForSize?.();
      }, opts.pollMs ?? POLL_MS);
      poll.unref();

      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      const outcome = await new Promise<{ exit: ShellExit } | { stop: 'timeout' | 'abort' | 'output_limit' }>((resolve) => {
        stopForSize = () => resolve({ stop: 'output_limit' });
        void child.exited.then((exit) => resolve({ exit }));
        timer = setTimeout(() => resolve({ stop: 'timeout' }), timeoutMs);
        onAbort = () => resolve({ stop: 'abort' });
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
      });
      clearTimeout(timer);
      clearInterval(poll);
      if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
      const collected = output.collect(opts.outputBudget ?? DEFAULT_OUTPUT_BUDGET);
      // The last live output (the executor flushes it before the result).
      if (collected.totalBytes > announced) ctx.progress({ kind: 'output', totalBytes: collected.totalBytes, live: output });

      if ('stop' in outcome) {
        // Return now; the group gets SIGTERM, then SIGKILL after the grace, in the background.
        if (pid !== undefined) void killGroup(pid, { graceMs: grace, tag: callTag }).then(() => releaseWhenGone(pid, untrack, 250));
        rmSync(cwdFile, { force: true });
        return { collected, stop: outcome.stop };
      }
      releaseWhenGone(pid, untrack);
      let newCwd: string | undefined;
      try {
        newCwd = readFileSync(cwdFile, 'utf8').trim() || undefined;
      } catch {
        newCwd = undefined;
      }
      rmSync(cwdFile, { force: true });
      return { collected, exit: outcome.exit, ...(newCwd ? { newCwd } : {}) };
    } finally {
      output.close();
      if (output.kept) ctx.env.keptOutputs?.add(output.path, output.size());
    }
  }

  return {
    name: 'Bash',
    description: BASH_DESCRIPTION,
    inputSchema: BashInput,
    inputJsonSchema: BASH_INPUT_JSON_SCHEMA,
    interruptBehavior: 'cancel',
    cancelsSiblingsOnError: true,
    siblingSummary: (input) => input.description ?? input.command.slice(0, 80),
    async isConcurrencySafe(input) {
      if (input.run_in_background) return false;
      return isReadOnlyCommand(await analyzeCommand(input.command));
    },
    isReadOnly(input) {
      // Best effort while the parser is still loading: "not read-only" is the safe answer.
      const a = analyzeCommandSync(input.command);
      return !input.run_in_background && a !== undefined && isReadOnlyCommand(a);
    },
    permissionSubject: (input) => ({ kind: 'command', command: input.command }),
    validateInput(input, { shared }) {
      try {
        if (!statSync(shared.cwd).isDirectory()) return { ok: false, message: `Working directory is not a directory: ${shared.cwd}` };
      } catch {
        return { ok: false, message: `Working directory does not exist: ${shared.cwd}` };
      }
      if (input.command.trim() === '') return { ok: false, message: 'The command is empty' };
      return { ok: true };
    },
    async call(input, ctx): Promise<ToolOutcome<BashResult>> {
      await loadProcessSupport();
      const { def, max } = resolveTimeouts(ctx.env.childEnv, opts);
      // The second wall: a command only the analyser approved runs in the read-only sandbox (when there is
      // one; under AGENTD_READONLY_SANDBOX=required this rejects rather than run it unconfined).
      // `dangerouslyDisableSandbox` does not apply: the model must not be able to lower the wall.
      // Inside the command sandbox of the `sandbox` settings when it runs (see bash-sandbox.ts).
      const placement = await placeShell(input, ctx);
      if (input.run_in_background) return startBackground(input, ctx, placement, opts.projectDir);
      if (ctx.signal.aborted) {
        const data: BashOutput = { stdout: '', stderr: ABORT_MARKER, interrupted: true, isImage: false };
        return { data, content: ABORT_MARKER, isError: true };
      }
      const timeoutMs = clampTimeout(input.timeout, def, max);
      const [result, analysis] = await Promise.all([run(input, ctx, timeoutMs, placement), analyzeCommand(input.command)]);
      return toOutcome(ctx, result, analysis, timeoutMs, opts.projectDir);
    },
  };
}

/** What a jailed command may read: the working directories (the project, --add-dir's, the current cwd). */
function jailScope(ctx: ToolCallContext, projectDir: string | undefined): JailScope {
  const path = ctx.env.childEnv['PATH'];
  return { cwd: ctx.shared.cwd, readable: [projectDir ?? ctx.shared.cwd, ctx.shared.cwd, ...ctx.shared.additionalDirectories], ...(path !== undefined ? { path } : {}) };
}

async function startBackground(input: BashInput, ctx: ToolCallContext, placement: ShellPlacement, projectDir: string | undefined): Promise<ToolOutcome<BashResult>> {
  const registry = ctx.env.background;
  if (!isShellTaskRegistry(registry)) throw new Error('Background commands are not available in this session');
  const timeoutMs = clampTimeout(input.timeout, DEFAULT_BACKGROUND_TIMEOUT_MS, MAX_BACKGROUND_TIMEOUT_MS);
  const jailer = placement.kind === 'jail' ? placement.jailer : undefined;
  const req: StartShellTask = {
    command: input.command,
    ...(input.description !== undefined ? { description: input.description } : {}),
    cwd: ctx.shared.cwd,
    env: ctx.env.childEnv,
    outputDir: join(ctx.env.spillDir, 'tasks'),
    timeoutMs,
    toolUseId: ctx.toolUseId,
    trackProcessGroup: (pid: number) => ctx.env.trackProcessGroup(pid),
    ...(jailer ? { jail: (files: Pick<JailScope, 'readableFiles' | 'writableFiles'>) => jailer({ ...jailScope(ctx, projectDir), ...files }) } : {}),
  };
  const task =
    placement.kind === 'sandbox'
      ? await registry.startWrapped(req, (p) => sandboxedShell(placement, { script: input.command, env: p.env, ctx, projectDir, writableFiles: [p.outputPath] }))
      : registry.start(req);
  const data: BashOutput = { stdout: '', stderr: '', interrupted: false, backgroundTaskId: task.id };
  return { data, content: `Command running in background with ID: ${task.id}. Output is being written to: ${task.outputPath}` };
}

function toOutcome(
  ctx: ToolCallContext,
  r: RunResult,
  analysis: CommandAnalysis,
  timeoutMs: number,
  projectDir: string | undefined,
): ToolOutcome<BashResult> {
  // Leading blank lines and trailing whitespace carry nothing (as Claude Code trims them).
  const stdout = r.collected.text.replace(/^(\s*\n)+/, '').trimEnd();
  const notes: string[] = [];
  const persisted = r.collected.truncated && r.collected.spillPath ? { persistedOutputPath: r.collected.spillPath, persistedOutputSize: r.collected.totalBytes } : {};
  const noOutputExpected = analysis.ok && analysis.segments.length > 0 && analysis.segments.every((s) => SILENT.has(commandName(s)));

  if ('stop' in r) {
    if (r.stop === 'timeout') notes.push(`Command timed out after ${formatDuration(timeoutMs)}`);
    if (r.stop === 'output_limit') {
      const limit = ctx.env.maxOutputFileBytes ?? DEFAULT_MAX_OUTPUT_FILE_BYTES;
      notes.push(`Command stopped: its output passed ${limit} bytes (AGENTD_MAX_OUTPUT_FILE_BYTES)`);
    }
    notes.push(ABORT_MARKER);
    const stderr = notes.join('\n');
    const data: BashOutput = { stdout, stderr, interrupted: true, isImage: false, noOutputExpected, ...persisted };
    return { data, content: [stdout, stderr].filter(Boolean).join('\n'), isError: true };
  }
  const exit = r.exit;
  if (exit.error) throw new Error(`Failed to start bash: ${exit.error}`);

  let contextModifier: ToolOutcome['contextModifier'];
  if (exit.code === 0 && r.newCwd && real(r.newCwd) !== real(ctx.shared.cwd)) {
    const roots = [projectDir ?? ctx.shared.cwd, ...ctx.shared.additionalDirectories].map(real);
    const next = r.newCwd;
    if (roots.some((root) => within(root, real(next)))) contextModifier = (s) => ({ ...s, cwd: next });
    else notes.push(`Shell cwd was reset to ${ctx.shared.cwd}`);
  }
  const stderr = notes.join('\n');
  const interpretation = exit.code === 0 ? undefined : interpretExit(analysis, exit.code);
  if (exit.code !== 0 && interpretation === undefined) {
    const text = [`Exit code ${exit.code}`, stderr, stdout].filter(Boolean).join('\n');
    return { data: `Error: ${text}`, content: text, isError: true };
  }
  const data: BashOutput = {
    stdout,
    stderr,
    interrupted: false,
    isImage: false,
    noOutputExpected,
    ...(interpretation ? { returnCodeInterpretation: interpretation } : {}),
    ...persisted,
  };
  const content = [stdout, stderr].filter(Boolean).join('\n') || NO_OUTPUT;
  return { data, content, ...(contextModifier ? { contextModifier } : {}) };
}
