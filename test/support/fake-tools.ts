// Fake tools and an executor harness for unit and property tests. A fake call sleeps (fake timers) for
// `ms`, may fail, and records when it ran, so tests can check overlap and concurrency invariants.
import { tmpdir } from 'node:os';
import * as z from 'zod/mini';
import { type ExecutorDeps, StreamingToolExecutor } from '../../src/executor/executor.js';
import { type PermissionGate, type ToolHooks, passThroughHooks, passThroughPermissions } from '../../src/executor/pipeline.js';
import { silentLogger } from '../../src/log/logger.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import type { SessionEvent } from '../../src/session/events.js';
import { ProcessGroupTracker, createToolEnvironment } from '../../src/tools/environment.js';
import type { AnyTool, SharedToolContext, Tool } from '../../src/tools/tool.js';

export interface RunLog {
  id: string;
  safe: boolean;
  start: number;
  end?: number;
  aborted?: boolean;
}

/** Live view of what is running, checked at every start (catches overlaps exactly, even for 0 ms calls). */
export class RunMonitor {
  readonly active = new Map<string, boolean>();
  readonly violations: string[] = [];
  maxActive = 0;

  start(id: string, safe: boolean, cap: number): void {
    if (!safe && this.active.size > 0) this.violations.push(`exclusive ${id} started while ${[...this.active.keys()].join(',')} ran`);
    for (const [other, otherSafe] of this.active) if (!otherSafe) this.violations.push(`${id} started while exclusive ${other} ran`);
    this.active.set(id, safe);
    this.maxActive = Math.max(this.maxActive, this.active.size);
    if (this.active.size > cap) this.violations.push(`${this.active.size} calls running, cap ${cap}`);
  }

  end(id: string): void {
    this.active.delete(id);
  }
}

export const FakeInput = z.strictObject({
  ms: z.number(),
  fail: z.optional(z.boolean()),
  safe: z.optional(z.boolean()),
  throwInSafety: z.optional(z.boolean()),
  asyncSafety: z.optional(z.boolean()),
  ignoreAbort: z.optional(z.boolean()),
  cwd: z.optional(z.string()),
});
export type FakeInput = z.infer<typeof FakeInput>;

export function fakeTool(
  name: string,
  log: RunLog[],
  opts: { interruptBehavior?: 'cancel' | 'block'; cancelsSiblings?: boolean; monitor?: RunMonitor; cap?: number } = {},
): Tool<FakeInput, { id: string }> {
  return {
    name,
    description: `fake ${name}`,
    inputSchema: FakeInput,
    isConcurrencySafe: (i) => {
      if (i.throwInSafety) throw new Error('cannot tell');
      return i.asyncSafety ? Promise.resolve(i.safe === true) : i.safe === true;
    },
    isReadOnly: (i) => i.safe === true,
    interruptBehavior: opts.interruptBehavior ?? 'cancel',
    ...(opts.cancelsSiblings ? { cancelsSiblingsOnError: true } : {}),
    call: (input, ctx) =>
      new Promise((resolve, reject) => {
        const entry: RunLog = { id: ctx.toolUseId, safe: input.safe === true, start: Date.now() };
        log.push(entry);
        opts.monitor?.start(ctx.toolUseId, input.safe === true, opts.cap ?? Number.POSITIVE_INFINITY);
        const t = setTimeout(() => {
          entry.end = Date.now();
          opts.monitor?.end(ctx.toolUseId);
          ctx.signal.removeEventListener('abort', onAbort);
          if (input.fail) {
            resolve({ data: { id: ctx.toolUseId }, content: `failed ${ctx.toolUseId}`, isError: true });
            return;
          }
          resolve({
            data: { id: ctx.toolUseId },
            content: `ok ${ctx.toolUseId}`,
            ...(input.cwd ? { contextModifier: (c: SharedToolContext) => ({ ...c, cwd: `${c.cwd}/${input.cwd}` }) } : {}),
          });
        }, input.ms);
        const onAbort = (): void => {
          if (input.ignoreAbort) return;
          clearTimeout(t);
          entry.end = Date.now();
          entry.aborted = true;
          opts.monitor?.end(ctx.toolUseId);
          reject(new Error('aborted'));
        };
        ctx.signal.addEventListener('abort', onAbort, { once: true });
      }),
  };
}

export function toolUse(id: string, name: string, input: Record<string, unknown>): ToolUseBlock {
  return { type: 'tool_use', id, name, input };
}

export interface Harness {
  executor: StreamingToolExecutor;
  events: SessionEvent[];
  shared: { current: SharedToolContext };
  controller: AbortController;
}

export function harness(tools: AnyTool[], opts: { maxConcurrency?: number; hooks?: ToolHooks; permissions?: PermissionGate; withheld?: (name: string) => boolean } = {}): Harness {
  const events: SessionEvent[] = [];
  const shared = { current: { cwd: '/w', additionalDirectories: [] as readonly string[] } };
  const controller = new AbortController();
  let n = 0;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const logger = silentLogger();
  const deps: ExecutorDeps = {
    tools: { get: (name) => byName.get(name), ...(opts.withheld ? { withheld: opts.withheld } : {}) },
    hooks: opts.hooks ?? passThroughHooks,
    permissions: opts.permissions ?? passThroughPermissions,
    maxConcurrency: opts.maxConcurrency ?? 10,
    env: createToolEnvironment({ env: {}, logger, tracker: new ProcessGroupTracker(), spillDir: tmpdir() }),
    getShared: () => shared.current,
    setShared: (c) => {
      shared.current = c;
    },
    emit: (e) => {
      events.push(e);
    },
    now: () => Date.now(),
    newUuid: () => `uuid-${++n}`,
    logger,
    progress: { intervalMs: 100, maxChars: 1000, heartbeatMs: 0 },
  };
  return { executor: new StreamingToolExecutor(deps, controller.signal), events, shared, controller };
}

export function resultIds(events: readonly SessionEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'tool_result' ? [e.toolUseId] : []));
}
