// SLOW (real processes, ~10 s in all): how Bash stops commands and bounds what they print.
// - a timeout kills the whole process group, background children included;
// - an abort returns at once and the group dies (SIGTERM, then SIGKILL after the grace);
// - a command that ignores SIGTERM is SIGKILLed within the grace;
// - a backgrounded child holding the pipe does not hang completion, and is killed on abort;
// - 50 MB of output is cut to the budget with every byte in the spill file, memory stays bounded;
// - binary garbage comes back as valid text within the budget.
import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../src/tools/builtin/bash.js';
import { warmShellParser } from '../../src/tools/shell/index.js';
import { escapedSize } from '../../src/tools/shell/output.js';
import { groupAlive } from '../../src/tools/process.js';
import { type BashHarness, bashHarness, groupGone, groupReaped } from '../unit/tools/bash-fixture.js';

const ABORTED = '<error>Command was aborted before completion</error>';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

let h: BashHarness;
beforeEach(() => {
  h = bashHarness();
});
afterEach(async () => {
  await h.cleanup();
});

const bash = createBashTool({ killGraceMs: 1000 });

/** Resolves once the progress stream has shown `text`. */
async function sawOutput(text: string, withinMs = 3000): Promise<void> {
  const start = Date.now();
  while (!h.progress.some((p) => p.output?.includes(text))) {
    if (Date.now() - start > withinMs) throw new Error(`no "${text}" in the output after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Bash kills (slow)', () => {
  it('kills the whole group on timeout, background children included', async () => {
    const r = await bash.call({ command: 'sleep 30 & echo started; sleep 30', timeout: 400 }, h.ctx());
    const pgid = h.groups[0] as number;
    expect(r).toEqual({
      data: {
        stdout: 'started',
        stderr: `Command timed out after 0.4s\n${ABORTED}`,
        interrupted: true,
        isImage: false,
        noOutputExpected: false,
      },
      content: `started\nCommand timed out after 0.4s\n${ABORTED}`,
      isError: true,
    });
    // Generous limits: the kernel and init finish the job asynchronously, later on a loaded machine.
    await groupGone(pgid, 10_000);
    await groupReaped(pgid);
    expect(h.tracker.size).toBe(0);
  });

  it('returns promptly on abort and kills the group', async () => {
    const ac = new AbortController();
    const call = bash.call({ command: 'echo running; sleep 30' }, h.ctx({ signal: ac.signal }));
    await sawOutput('running');
    const pgid = h.groups[0] as number;
    const t0 = Date.now();
    ac.abort();
    const r = await call;
    // Far below the command's 30 s (the exact latency is a benchmark's business, not a loaded test machine's).
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(r).toMatchObject({ content: `running\n${ABORTED}`, isError: true, data: { interrupted: true } });
    await groupGone(pgid, 10_000);
  });

  it('SIGKILLs a command that ignores SIGTERM, within the grace', async () => {
    const ac = new AbortController();
    const call = bash.call({ command: "trap '' TERM; echo ready; sleep 30" }, h.ctx({ signal: ac.signal }));
    await sawOutput('ready');
    const pgid = h.groups[0] as number;
    ac.abort();
    await call;
    // The call returned at once and SIGTERM was ignored: the group is still there (no timer of the grace can run
    // between the call's resolution and this line)…
    expect(groupAlive(pgid)).toBe(true);
    // …and only the SIGKILL after the 1 s grace ends it, long before its 30 s sleep would.
    await groupGone(pgid, 10_000);
  });

  it('completes when the shell exits although a background child holds the pipe, and leaves it running', async () => {
    const t0 = Date.now();
    const r = await bash.call({ command: 'sleep 30 & echo started' }, h.ctx());
    // Not held until the background child's 30 s end.
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.content).toBe('started');
    const pgid = h.groups[0] as number;
    // The child lives on, and stays tracked so shutdown can kill it.
    expect(groupAlive(pgid)).toBe(true);
    expect(h.tracker.size).toBe(1);
  });

  it('kills a background child on abort', async () => {
    const ac = new AbortController();
    const call = bash.call({ command: 'sleep 30 & echo started; sleep 30' }, h.ctx({ signal: ac.signal }));
    await sawOutput('started');
    const pgid = h.groups[0] as number;
    ac.abort();
    await call;
    await groupGone(pgid, 10_000);
  });

  it('cuts 50 MB of output to the budget, spills all of it, and stays within memory', async () => {
    await warmShellParser();
    let peak = 0;
    let progressBytes = 0;
    const base = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss - base);
    }, 10);
    const r = await bash.call(
      { command: "head -c 50000000 /dev/zero | tr '\\0' a; echo; echo END" },
      h.ctx({ progress: (u) => (progressBytes = u.totalBytes ?? progressBytes) }),
    );
    clearInterval(sampler);
    const data = r.data as { stdout: string; persistedOutputPath: string; persistedOutputSize: number };
    expect(r.isError).toBeUndefined();
    expect(data.persistedOutputSize).toBe(50_000_005);
    expect(progressBytes).toBe(50_000_005);
    expect(statSync(data.persistedOutputPath).size).toBe(50_000_005);
    expect(data.stdout.startsWith('aaaa')).toBe(true);
    expect(data.stdout.endsWith('a\nEND')).toBe(true);
    expect(data.stdout).toContain(`bytes in all; the full output is in ${data.persistedOutputPath}] ...`);
    expect(escapedSize(data.stdout)).toBeLessThanOrEqual(30_000);
    // The whole result fits one frame line (content and tool_use_result both carry the text).
    expect(Buffer.byteLength(JSON.stringify({ content: r.content, data: r.data }))).toBeLessThan(64 * 1024);
    // Head and tail buffers, not 50 MB of strings.
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });

  it('returns binary garbage as valid text within the budget', async () => {
    const r = await bash.call({ command: 'head -c 3000000 /dev/urandom' }, h.ctx());
    const text = (r.data as { stdout: string }).stdout;
    expect(FORBIDDEN_CONTROL.test(text)).toBe(false);
    expect(LONE_SURROGATE.test(text)).toBe(false);
    expect(escapedSize(text)).toBeLessThanOrEqual(30_000);
    expect(Buffer.byteLength(JSON.stringify({ content: r.content, data: r.data }))).toBeLessThan(64 * 1024);
  });
});
