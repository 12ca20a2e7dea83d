// Shared by the built-in tool tests: a real ToolEnvironment in a temp dir, and a runner that walks a call through
// the steps the executor applies (schema → validateInput → call) so tests see what the model would see.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../src/log/logger.js';
import { ProcessGroupTracker, createToolEnvironment } from '../../../src/tools/environment.js';
import type { AnyTool, SharedToolContext, ToolCallContext, ToolEnvironment, ToolOutcome } from '../../../src/tools/tool.js';

export interface Sandbox {
  dir: string;
  env: ToolEnvironment;
  shared: SharedToolContext;
  tracker: ProcessGroupTracker;
  ctx(extra?: Partial<Pick<ToolCallContext, 'signal' | 'pinnedRealPath' | 'toolUseId'>>): ToolCallContext;
  cleanup(): void;
}

export function sandbox(envVars: Record<string, string | undefined> = { PATH: process.env['PATH'] }): Sandbox {
  // realpath: /tmp may itself be a symlink, and tools report real paths.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-tools-')));
  const tracker = new ProcessGroupTracker();
  const env = createToolEnvironment({ env: envVars, logger: silentLogger(), tracker, spillDir: join(dir, '.spill') });
  const shared: SharedToolContext = { cwd: dir, additionalDirectories: [] };
  return {
    dir,
    env,
    shared,
    tracker,
    ctx: (extra = {}) => ({
      toolUseId: extra.toolUseId ?? 'toolu_test',
      shared,
      env,
      signal: extra.signal ?? new AbortController().signal,
      progress: () => undefined,
      approval: { by: 'unchecked' } as const,
      ...(extra.pinnedRealPath !== undefined ? { pinnedRealPath: extra.pinnedRealPath } : {}),
    }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export type RunResult<O> = { kind: 'invalid'; message: string } | { kind: 'rejected'; message: string } | { kind: 'error'; message: string } | ({ kind: 'ok' } & ToolOutcome<O>);

/** Schema, validateInput, call: the executor's steps minus hooks and permissions. */
export async function run<O>(
  tool: AnyTool,
  input: unknown,
  sb: Sandbox,
  extra?: Partial<Pick<ToolCallContext, 'signal' | 'pinnedRealPath'>>,
): Promise<RunResult<O>> {
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) return { kind: 'invalid', message: JSON.stringify(parsed.error.issues) };
  const v = await tool.validateInput?.(parsed.data, { shared: sb.shared, env: sb.env });
  if (v && !v.ok) return { kind: 'rejected', message: v.message };
  try {
    const out = (await tool.call(parsed.data, sb.ctx(extra))) as ToolOutcome<O>;
    return { kind: 'ok', ...out };
  } catch (e) {
    return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
  }
}

/** The outcome of a call that must succeed. */
export async function ok<O>(tool: AnyTool, input: unknown, sb: Sandbox, extra?: Partial<Pick<ToolCallContext, 'signal' | 'pinnedRealPath'>>): Promise<ToolOutcome<O>> {
  const r = await run<O>(tool, input, sb, extra);
  if (r.kind !== 'ok') throw new Error(`expected success, got ${r.kind}: ${r.message}`);
  const { kind: _kind, ...outcome } = r;
  return outcome;
}
