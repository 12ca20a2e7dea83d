// The read-only sandbox's cost (issue 9 item 6, issue 14 target: ≤ 15 ms per command): the Bash tool running
// `ls` in-process, as a read-only command nobody approved (inside bubblewrap) and as a host-approved one
// (unconfined), alternating so both see the same machine load. The overhead row is the median of the paired
// differences. Each run checks the output, so a broken jail cannot look fast.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/log/logger.js';
import { createBackgroundRegistry } from '../../src/tools/builtin/background.js';
import { type BashOutput, createBashTool } from '../../src/tools/builtin/bash.js';
import { ProcessGroupTracker, createToolEnvironment } from '../../src/tools/environment.js';
import { createReadOnlySandbox } from '../../src/tools/sandbox/index.js';
import type { Approval, ToolCallContext } from '../../src/tools/tool.js';
import { summarize } from './stats.js';
import { type Benchmark, type Row, failedRow } from './types.js';

const NAME = 'bash-readonly-sandboxed';
const COMMAND = 'ls';

export const bashReadonlySandboxed: Benchmark = {
  name: NAME,
  description: `the Bash tool in-process running \`${COMMAND}\` (10 files) as a read-only command nobody approved (inside the bubblewrap read-only sandbox) and as a host-approved one (unconfined), alternating; call → result, after warm-up. Overhead: median of the paired differences.`,
  async run(ctx) {
    const base = { bench: NAME, unit: 'ms' };
    const cwd = ctx.dir('sandbox-');
    const spillDir = join(ctx.dir('sandbox-spill-'), 'spill');
    mkdirSync(spillDir, { mode: 0o700 });
    for (let i = 0; i < 10; i++) writeFileSync(join(cwd, `f${i}.txt`), 'x');
    const sandbox = createReadOnlySandbox({ policy: 'required', path: process.env['PATH'] });
    const status = await sandbox.status();
    if (status.state !== 'active') {
      return [failedRow({ ...base, metric: 'Bash ls, sandboxed', subject: 'agentd' }, new Error(`no sandbox: ${JSON.stringify(status)}`))];
    }
    const tracker = new ProcessGroupTracker();
    const env = createToolEnvironment({
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], LANG: 'C.UTF-8' },
      logger: silentLogger(),
      tracker,
      background: createBackgroundRegistry(),
      spillDir,
      readOnlySandbox: sandbox,
    });
    const bash = createBashTool();
    const expected = Array.from({ length: 10 }, (_, i) => `f${i}.txt`).join('\n');
    const once = async (approval: Approval): Promise<number> => {
      const c: ToolCallContext = { toolUseId: 'toolu_bench', shared: { cwd, additionalDirectories: [] }, env, signal: new AbortController().signal, progress: () => undefined, approval };
      const t0 = performance.now();
      const r = await bash.call({ command: COMMAND }, c);
      const ms = performance.now() - t0;
      if ((r.data as BashOutput).stdout !== expected) throw new Error(`unexpected output (${approval.by}): ${JSON.stringify(r.data)}`);
      return ms;
    };
    const runs = ctx.quick ? 10 : 40;
    const jailed: number[] = [];
    const plain: number[] = [];
    const diffs: number[] = [];
    for (let i = 0; i < 3; i++) {
      await once({ by: 'read-only-analysis' });
      await once({ by: 'host' });
    }
    for (let i = 0; i < runs; i++) {
      const a = await once({ by: 'read-only-analysis' });
      const b = await once({ by: 'host' });
      jailed.push(a);
      plain.push(b);
      diffs.push(a - b);
    }
    const row = (metric: string, subject: string, v: number[], extra: Partial<Row> = {}): Row => {
      const s = summarize(v);
      return { ...base, metric, subject, n: s.n, nLabel: 'calls', median: s.median, p90: s.p90, ...extra };
    };
    return [
      row(`Bash \`${COMMAND}\`: call → result`, 'agentd, unconfined (host-approved)', plain),
      row(`Bash \`${COMMAND}\`: call → result`, 'agentd, read-only sandbox (bubblewrap)', jailed),
      row('read-only sandbox overhead per command', 'agentd (paired difference)', diffs, { target: { op: '<=', value: 15 }, note: `bwrap ${status.path}` }),
    ];
  },
};
