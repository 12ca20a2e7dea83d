// Background shells: Bash with run_in_background, the registry (events, output tail, timeout, killAll) and
// TaskStop. Real processes; each test stays well under a second.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log/logger.js';
import { type ShellTaskEvent, type ShellTaskInfo, createTaskStopTool } from '../../../src/tools/builtin/background.js';
import { createBashTool } from '../../../src/tools/builtin/bash.js';
import { ProcessGroupTracker, createToolEnvironment } from '../../../src/tools/environment.js';
import { type BashHarness, bashHarness, groupGone } from './bash-fixture.js';

let h: BashHarness;
beforeEach(() => {
  h = bashHarness({ killGraceMs: 300 });
});
afterEach(async () => {
  await h.cleanup();
});

const bash = createBashTool();
const taskStop = createTaskStopTool();

function ended(id: string): Promise<ShellTaskInfo> {
  const now = h.background.get(id);
  if (now && now.status !== 'running') return Promise.resolve(now);
  return new Promise((resolve) => {
    const off = h.background.onEvent((e: ShellTaskEvent) => {
      if (e.type === 'ended' && e.task.id === id) {
        off();
        resolve(e.task);
      }
    });
  });
}

async function start(command: string, timeout?: number): Promise<{ id: string; content: unknown }> {
  const r = await bash.call({ command, run_in_background: true, ...(timeout ? { timeout } : {}) }, h.ctx());
  const data = r.data as { backgroundTaskId: string };
  return { id: data.backgroundTaskId, content: r.content };
}

describe('run_in_background', () => {
  it('returns at once with the task id and the output file, which gets all the output', async () => {
    const events: string[] = [];
    h.background.onEvent((e) => events.push(`${e.type}:${e.task.status}`));
    const r = await bash.call({ command: 'echo out; echo err >&2; sleep 0.1; echo done', run_in_background: true, description: 'Print' }, h.ctx());
    const id = (r.data as { backgroundTaskId: string }).backgroundTaskId;
    expect(id).toMatch(/^b[0-9a-z]{8}$/);
    const info = h.background.get(id);
    expect(r).toEqual({
      data: { stdout: '', stderr: '', interrupted: false, backgroundTaskId: id },
      content: `Command running in background with ID: ${id}. Output is being written to: ${info?.outputPath}`,
    });
    const done = await ended(id);
    expect({ status: done.status, exitCode: done.exitCode, description: done.description, toolUseId: done.toolUseId }).toEqual({
      status: 'completed',
      exitCode: 0,
      description: 'Print',
      toolUseId: 'toolu_test',
    });
    expect(readFileSync(done.outputPath, 'utf8')).toBe('out\nerr\ndone\n');
    expect(events).toEqual(['started:running', 'ended:completed']);
    expect(h.background.list().map((t) => t.id)).toEqual([id]);
  });

  it('records a failing command as failed with its exit code', async () => {
    const { id } = await start('exit 3');
    expect(await ended(id)).toMatchObject({ status: 'failed', exitCode: 3 });
  });

  it('stops a command that outlives its timeout, with its whole group', async () => {
    const { id } = await start('sleep 30 & sleep 30', 200);
    const pgid = h.groups.at(-1) as number;
    const done = await ended(id);
    expect(done.status).toBe('killed');
    await groupGone(pgid, 1000);
  });

  it('reads the end of the output', async () => {
    const { id } = await start('head -c 10000 /dev/zero | tr "\\0" x; printf "\\nEND"');
    await ended(id);
    const tail = await h.background.readOutput(id);
    expect({ truncated: tail?.truncated, total: tail?.total_bytes, length: tail?.output.length, end: tail?.output.slice(-4) }).toEqual({
      truncated: true,
      total: 10_004,
      length: 8192,
      end: '\nEND',
    });
    expect(await h.background.readOutput('nope')).toBeUndefined();
  });

  it('kills every background group on killAll', async () => {
    const a = await start('sleep 30');
    const b = await start('sleep 30');
    const groups = h.groups.slice(-2);
    await h.background.killAll();
    expect((await ended(a.id)).status).toBe('killed');
    expect((await ended(b.id)).status).toBe('killed');
    for (const g of groups) await groupGone(g, 1000);
  });

  it('refuses when the session has no background registry', async () => {
    const env = createToolEnvironment({ env: { PATH: process.env['PATH'] }, logger: silentLogger(), tracker: new ProcessGroupTracker(), spillDir: h.spillDir });
    await expect(bash.call({ command: 'ls', run_in_background: true }, { ...h.ctx(), env })).rejects.toThrow(
      'Background commands are not available in this session',
    );
  });
});

describe('TaskStop', () => {
  const v = (input: { task_id?: string; shell_id?: string }) => taskStop.validateInput?.(input, { shared: h.ctx().shared, env: h.env });

  it('stops a running task and its group', async () => {
    const { id } = await start('echo ready; sleep 30');
    const pgid = h.groups.at(-1) as number;
    expect(await v({ task_id: id })).toEqual({ ok: true });
    const r = await taskStop.call({ task_id: id }, h.ctx());
    const data = { message: `Successfully stopped task: ${id} (echo ready; sleep 30)`, task_id: id, task_type: 'local_bash', command: 'echo ready; sleep 30' };
    expect(r).toEqual({ data, content: JSON.stringify(data) });
    expect(h.background.get(id)?.status).toBe('killed');
    await groupGone(pgid, 1000);
  });

  it('accepts the deprecated shell_id', async () => {
    const { id } = await start('sleep 30');
    expect(await v({ shell_id: id })).toEqual({ ok: true });
    expect((await taskStop.call({ shell_id: id }, h.ctx())).data).toMatchObject({ task_id: id });
  });

  it('explains what it cannot stop', async () => {
    expect(await v({})).toEqual({ ok: false, message: 'Missing required parameter: task_id' });
    expect(await v({ task_id: 'bnope' })).toEqual({ ok: false, message: 'No task found with ID: bnope' });
    const { id } = await start('true');
    await ended(id);
    expect(await v({ task_id: id })).toEqual({ ok: false, message: `Task ${id} is not running (status: completed)` });
  });
});
