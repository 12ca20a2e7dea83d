// Background shells (Bash with run_in_background) and TaskStop, which stops them. A background shell writes
// all its output to a file (the startup script redirects it), so it needs nothing from agentd while it runs
// and the model reads the output with Read, as with Claude Code (whose TaskOutput tool was removed). Each
// shell is its own process group; stopping it, its timeout, and killAll() signal the whole group.
import { mkdirSync, writeFileSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { groupAlive, killGroup, spawnShell, withRunTag } from '../process.js';
import { ensureInitScript, shellEnv } from '../shell/init-script.js';
import type { BackgroundRegistry, BackgroundShellInfo, Tool } from '../tool.js';
import type { JailScope, ShellJail } from '../sandbox/types.js';

export const DEFAULT_BACKGROUND_TIMEOUT_MS = 1_800_000;
export const MAX_BACKGROUND_TIMEOUT_MS = 7_200_000;
const KILL_GRACE_MS = 2_000;
/** How much of a task's output readOutput returns (the same tail Claude Code's get_task_output reads). */
const OUTPUT_TAIL_BYTES = 8192;

export interface ShellTaskInfo extends BackgroundShellInfo {
  description: string;
  outputPath: string;
  toolUseId?: string;
  startedAt: number;
  endedAt?: number;
}

export type ShellTaskEvent = { type: 'started'; task: ShellTaskInfo } | { type: 'ended'; task: ShellTaskInfo };

export interface StartShellTask {
  command: string;
  description?: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Private directory for the output file and the shell startup file. */
  outputDir: string;
  timeoutMs: number;
  toolUseId?: string;
  trackProcessGroup(pid: number): () => void;
  /**
   * Run inside the read-only sandbox: given the scope with the task's startup and output files added, the
   * jail to run in (see tools/sandbox).
   */
  jail?: (files: Pick<JailScope, 'readableFiles' | 'writableFiles'>) => ShellJail;
}

/** A background task's files and environment, before its shell starts. */
export interface PreparedTask {
  id: string;
  outputPath: string;
  initScript: string;
  env: Record<string, string>;
}

export interface TaskOutputTail {
  output: string;
  total_bytes: number;
  truncated: boolean;
}

interface Entry {
  info: ShellTaskInfo;
  pid: number | undefined;
  exited: Promise<unknown>;
  stopping: boolean;
  timer?: ReturnType<typeof setTimeout>;
  untrack: () => void;
}

function newTaskId(): string {
  // Claude Code's shape: a letter for the kind (b = bash) and 8 base-36 characters.
  const bytes = randomBytes(8);
  let id = 'b';
  for (const b of bytes) id += (b % 36).toString(36);
  return id;
}

/** The run tag of one background task (see withRunTag). */
function taskTag(id: string): string {
  return `task-${id}`;
}

/** Untracks a process group once nothing of it is left (background jobs of a finished shell may linger). */
export function releaseWhenGone(pgid: number | undefined, untrack: () => void, pollMs = 1000): void {
  if (pgid === undefined || !groupAlive(pgid)) {
    untrack();
    return;
  }
  const t = setInterval(() => {
    if (groupAlive(pgid)) return;
    clearInterval(t);
    untrack();
  }, pollMs);
  t.unref();
}

export class ShellTaskRegistry implements BackgroundRegistry {
  private readonly tasks = new Map<string, Entry>();
  private readonly listeners = new Set<(e: ShellTaskEvent) => void>();

  constructor(private readonly opts: { killGraceMs?: number; now?: () => number } = {}) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** Starts a command in the background; resolves once it is running (or failed to start). */
  start(req: StartShellTask): ShellTaskInfo {
    const p = this.prepare(req);
    const jail = req.jail?.({ readableFiles: [p.initScript], writableFiles: [p.outputPath] });
    return this.launch(req, p, spawnShell({ script: req.command, cwd: req.cwd, env: p.env, output: 'ignore', ...(jail ? { jail } : {}) }));
  }

  /** start() for a command the command sandbox runs: `wrap` gives the argv and environment for the task's files. */
  async startWrapped(req: StartShellTask, wrap: (p: PreparedTask) => Promise<{ argv: readonly string[]; env: Record<string, string>; release: () => void }>): Promise<ShellTaskInfo> {
    const p = this.prepare(req);
    const w = await wrap(p);
    let child: ReturnType<typeof spawnShell>;
    try {
      child = spawnShell({ script: req.command, cwd: req.cwd, env: w.env, output: 'ignore', argv: w.argv });
    } catch (e) {
      w.release();
      throw e;
    }
    void child.exited.then(w.release);
    return this.launch(req, p, child);
  }

  private prepare(req: StartShellTask): PreparedTask {
    mkdirSync(req.outputDir, { recursive: true, mode: 0o700 });
    const id = newTaskId();
    const outputPath = join(req.outputDir, `${id}.output`);
    writeFileSync(outputPath, '', { mode: 0o600 });
    const initScript = ensureInitScript(req.outputDir);
    // The task's own run tag: stopping it also kills what it started outside its process group (setsid).
    const env = withRunTag(shellEnv(req.env, { initScript, outputFile: outputPath }), taskTag(id));
    return { id, outputPath, initScript, env };
  }

  private launch(req: StartShellTask, p: PreparedTask, child: ReturnType<typeof spawnShell>): ShellTaskInfo {
    const { id, outputPath } = p;
    const info: ShellTaskInfo = {
      id,
      command: req.command,
      description: req.description ?? req.command,
      status: 'running',
      exitCode: null,
      outputPath,
      startedAt: this.now(),
      ...(req.toolUseId !== undefined ? { toolUseId: req.toolUseId } : {}),
    };
    const entry: Entry = {
      info,
      pid: child.pid,
      exited: child.exited,
      stopping: false,
      untrack: child.pid !== undefined ? req.trackProcessGroup(child.pid) : () => undefined,
    };
    this.tasks.set(id, entry);
    if (child.pid !== undefined) {
      entry.timer = setTimeout(() => void this.stop(id), req.timeoutMs);
      entry.timer.unref();
    }
    void child.exited.then((exit) => {
      if (entry.timer) clearTimeout(entry.timer);
      info.exitCode = exit.code;
      info.status = entry.stopping ? 'killed' : exit.error ? 'failed' : exit.code === 0 ? 'completed' : 'failed';
      info.endedAt = this.now();
      if (exit.error) writeFileSync(outputPath, `Failed to start the shell: ${exit.error}\n`, { flag: 'a' });
      releaseWhenGone(entry.pid, entry.untrack);
      this.emit({ type: 'ended', task: { ...info } });
    });
    this.emit({ type: 'started', task: { ...info } });
    return { ...info };
  }

  get(id: string): ShellTaskInfo | undefined {
    const e = this.tasks.get(id);
    return e ? { ...e.info } : undefined;
  }

  list(): ShellTaskInfo[] {
    return [...this.tasks.values()].map((e) => ({ ...e.info }));
  }

  /** Subscribes to task starts and ends (for task_started / task_notification frames). */
  onEvent(listener: (e: ShellTaskEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(e: ShellTaskEvent): void {
    for (const l of this.listeners) l(e);
  }

  /** Stops a running task (SIGTERM to its group, SIGKILL after the grace). Resolves with its final state. */
  async stop(id: string): Promise<ShellTaskInfo | undefined> {
    const e = this.tasks.get(id);
    if (!e) return undefined;
    if (e.info.status === 'running' && e.pid !== undefined) {
      e.stopping = true;
      await killGroup(e.pid, { graceMs: this.opts.killGraceMs ?? KILL_GRACE_MS, tag: taskTag(e.info.id) });
      await e.exited;
    }
    return { ...e.info };
  }

  /** The end of a task's output (at most 8 KiB), decoded as UTF-8, escape sequences included. */
  async readOutput(id: string, maxBytes = OUTPUT_TAIL_BYTES): Promise<TaskOutputTail | undefined> {
    const e = this.tasks.get(id);
    if (!e) return undefined;
    let size: number;
    try {
      size = (await stat(e.info.outputPath)).size;
    } catch {
      return { output: '', total_bytes: 0, truncated: false };
    }
    const start = Math.max(0, size - maxBytes);
    const fh = await open(e.info.outputPath, 'r');
    try {
      const buf = Buffer.alloc(size - start);
      const { bytesRead } = await fh.read(buf, 0, buf.length, start);
      let b = buf.subarray(0, bytesRead);
      // Skip the rest of a character cut by the window.
      let skip = 0;
      while (start > 0 && skip < 3 && skip < b.length && ((b[skip] as number) & 0xc0) === 0x80) skip++;
      b = b.subarray(skip);
      return { output: new TextDecoder().decode(b), total_bytes: size, truncated: start > 0 };
    } finally {
      await fh.close();
    }
  }

  /** Kills every background group, running or lingering after its shell exited. */
  async killAll(): Promise<void> {
    const grace = this.opts.killGraceMs ?? KILL_GRACE_MS;
    await Promise.all(
      [...this.tasks.values()].map(async (e) => {
        if (e.pid === undefined) return;
        if (e.info.status === 'running') e.stopping = true;
        await killGroup(e.pid, { graceMs: grace, tag: taskTag(e.info.id) });
      }),
    );
  }
}

export function createBackgroundRegistry(opts: { killGraceMs?: number; now?: () => number } = {}): ShellTaskRegistry {
  return new ShellTaskRegistry(opts);
}

export function isShellTaskRegistry(r: BackgroundRegistry): r is ShellTaskRegistry {
  return r instanceof ShellTaskRegistry;
}

// ---- TaskStop --------------------------------------------------------------------------------------------

const TaskStopInput = z.lazy(() => z.strictObject({
  task_id: z.optional(z.string()),
  shell_id: z.optional(z.string()),
}));
export type TaskStopInput = z.infer<typeof TaskStopInput>;

export interface TaskStopOutput {
  message: string;
  task_id: string;
  task_type: string;
  command?: string;
}

const TASK_STOP_DESCRIPTION = `- Stops a running background task by its ID
- Takes a task_id parameter identifying the task to stop
- Returns a success or failure status
- Use this tool when you need to terminate a long-running task`;

const TASK_STOP_SCHEMA = {
  type: 'object',
  properties: {
    task_id: { description: 'The ID of the background task to stop', type: 'string' },
    shell_id: { description: 'Deprecated: use task_id instead', type: 'string' },
  },
  additionalProperties: false,
};

export function createTaskStopTool(): Tool<TaskStopInput, TaskStopOutput> {
  return {
    name: 'TaskStop',
    description: TASK_STOP_DESCRIPTION,
    inputSchema: TaskStopInput,
    inputJsonSchema: TASK_STOP_SCHEMA,
    isConcurrencySafe: () => true,
    isReadOnly: () => false,
    interruptBehavior: 'block',
    permissionSubject: () => ({ kind: 'none' }),
    validateInput(input, { env }) {
      const id = input.task_id ?? input.shell_id;
      if (!id) return { ok: false, message: 'Missing required parameter: task_id' };
      const task = isShellTaskRegistry(env.background) ? env.background.get(id) : undefined;
      if (!task) return { ok: false, message: `No task found with ID: ${id}` };
      if (task.status !== 'running') return { ok: false, message: `Task ${id} is not running (status: ${task.status})` };
      return { ok: true };
    },
    async call(input, ctx) {
      const id = input.task_id ?? input.shell_id ?? '';
      const registry = ctx.env.background;
      const task = isShellTaskRegistry(registry) ? await registry.stop(id) : undefined;
      if (!task) throw new Error(`No task found with ID: ${id}`);
      const data: TaskStopOutput = {
        message: `Successfully stopped task: ${id} (${task.command})`,
        task_id: id,
        task_type: 'local_bash',
        command: task.command,
      };
      return { data, content: JSON.stringify(data) };
    },
  };
}
