// The command sandbox's cost (issue 14 item 4, target ≤ 15 ms per command): the Bash tool running `ls`
// in-process inside the sandbox of the `sandbox` settings (@anthropic-ai/sandbox-runtime: bubblewrap, its seccomp
// helper, and the relays to its proxy when a host is allowed) and unconfined, alternating so both see the same
// machine load, in two configurations: no host allowed (agentd leaves the relays out: offline.ts) and one host
// allowed. The overhead rows are the medians of the paired differences. Each run checks the output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/log/logger.js';
import { createBackgroundRegistry } from '../../src/tools/builtin/background.js';
import { type BashOutput, createBashTool } from '../../src/tools/builtin/bash.js';
import { ProcessGroupTracker, createToolEnvironment } from '../../src/tools/environment.js';
import { createReadOnlySandbox } from '../../src/tools/sandbox/index.js';
import { createCommandSandbox } from '../../src/tools/sandbox/runtime.js';
import { SANDBOXED_SHELL_COMMAND } from '../../src/tools/shell/init-script.js';
import { resolveSandboxSettings } from '../../src/tools/sandbox/settings.js';
import type { Approval, ToolCallContext } from '../../src/tools/tool.js';
import { sandboxBreakdown } from './sandbox-breakdown.js';
import { summarize } from './stats.js';
import { type Benchmark, type Row, failedRow } from './types.js';

const NAME = 'bash-settings-sandboxed';
const COMMAND = 'ls';

export const bashSettingsSandboxed: Benchmark = {
  name: NAME,
  description: `the Bash tool in-process running \`${COMMAND}\` (10 files) inside the command sandbox of \`sandbox: { enabled: true }\` (@anthropic-ai/sandbox-runtime) and unconfined (dangerouslyDisableSandbox), alternating; call → result, after warm-up; with no host allowed (no relays), then with \`network.allowedDomains: ['example.com']\` (relays to the proxy). Overhead: median of the paired differences. Then the invocation the Bash tool ran with the host allowed, cut down layer by layer (sandbox-breakdown.ts), the steps alternating: spawn → exit per step.`,
  async run(ctx) {
    const base = { bench: NAME, unit: 'ms' };
    const cwd = ctx.dir('cmd-sandbox-');
    const spillDir = join(ctx.dir('cmd-sandbox-spill-'), 'spill');
    mkdirSync(spillDir, { mode: 0o700 });
    for (let i = 0; i < 10; i++) writeFileSync(join(cwd, `f${i}.txt`), 'x');
    const bash = createBashTool();
    const expected = Array.from({ length: 10 }, (_, i) => `f${i}.txt`).join('\n');
    const approval: Approval = { by: 'host' };
    const runs = ctx.quick ? 10 : 40;
    // One configuration at a time (the runtime is a process-wide singleton): Bash inside its sandbox and
    // unconfined, alternating; then, with a host allowed, the invocation cut down step by step.
    const measure = async (block: Record<string, unknown>, breakdown: boolean) => {
      const r = resolveSandboxSettings({ enabled: true, ...block });
      if (!r.ok || !r.settings) throw new Error('unexpected settings');
      const sandbox = createCommandSandbox({ settings: r.settings, workingDirectory: () => process.cwd() });
      const status = await sandbox.start();
      if (status.state !== 'active') throw new Error(`no sandbox: ${status.reason}`);
      const env = createToolEnvironment({
        env: { PATH: process.env['PATH'], HOME: process.env['HOME'], LANG: 'C.UTF-8' },
        logger: silentLogger(),
        tracker: new ProcessGroupTracker(),
        background: createBackgroundRegistry(),
        spillDir,
        readOnlySandbox: createReadOnlySandbox({ policy: 'off', path: process.env['PATH'] }),
        commandSandbox: sandbox,
      });
      const once = async (outside: boolean): Promise<number> => {
        const c: ToolCallContext = { toolUseId: 'toolu_bench', shared: { cwd, additionalDirectories: [] }, env, signal: new AbortController().signal, progress: () => undefined, approval };
        const t0 = performance.now();
        const out = await bash.call({ command: COMMAND, ...(outside ? { dangerouslyDisableSandbox: true } : {}) }, c);
        const ms = performance.now() - t0;
        if ((out.data as BashOutput).stdout !== expected) throw new Error(`unexpected output: ${JSON.stringify(out.data)}`);
        return ms;
      };
      const inside: number[] = [];
      const plain: number[] = [];
      const diffs: number[] = [];
      let steps: Row[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          await once(false);
          await once(true);
        }
        for (let i = 0; i < runs; i++) {
          const a = await once(false);
          const b = await once(true);
          inside.push(a);
          plain.push(b);
          diffs.push(a - b);
        }
        if (breakdown) {
          // The same invocation the Bash tool ran, cut down step by step.
          const file = join(spillDir, 'breakdown-cwd');
          writeFileSync(file, '');
          const w = await sandbox.wrap({ script: SANDBOXED_SHELL_COMMAND, cwd, writableDirs: [cwd], writableFiles: [file], readOnly: false, signal: new AbortController().signal });
          try {
            steps = await sandboxBreakdown(NAME, w, { PATH: process.env['PATH'] ?? '', AGENTD_SANDBOX_SCRIPT: 'true' }, runs);
          } catch (e) {
            steps = [failedRow({ bench: NAME, unit: 'ms', metric: 'spawn → exit, step by step', subject: 'command sandbox' }, e)];
          } finally {
            w.release();
          }
        }
      } finally {
        await sandbox.stop();
      }
      return { inside, plain, diffs, steps };
    };
    let offline: Awaited<ReturnType<typeof measure>>;
    let relayed: Awaited<ReturnType<typeof measure>>;
    try {
      offline = await measure({}, false);
      relayed = await measure({ network: { allowedDomains: ['example.com'] } }, true);
    } catch (e) {
      return [failedRow({ ...base, metric: 'Bash ls, sandboxed', subject: 'agentd' }, e)];
    }
    const row = (metric: string, subject: string, v: number[], extra: Partial<Row> = {}): Row => {
      const s = summarize(v);
      return { ...base, metric, subject, n: s.n, nLabel: 'calls', median: s.median, p90: s.p90, ...extra };
    };
    return [
      row(`Bash \`${COMMAND}\`: call → result`, 'agentd, unconfined (dangerouslyDisableSandbox)', offline.plain),
      row(`Bash \`${COMMAND}\`: call → result`, 'agentd, command sandbox, no host allowed (no relays)', offline.inside),
      row('command sandbox overhead per command, no host allowed', 'agentd (paired difference)', offline.diffs, { target: { op: '<=', value: 15 } }),
      row(`Bash \`${COMMAND}\`: call → result`, 'agentd, unconfined (dangerouslyDisableSandbox), second run', relayed.plain),
      row(`Bash \`${COMMAND}\`: call → result`, 'agentd, command sandbox, a host allowed (relays to the proxy)', relayed.inside),
      row('command sandbox overhead per command, a host allowed', 'agentd (paired difference)', relayed.diffs, { target: { op: '<=', value: 15 } }),
      ...relayed.steps,
    ];
  },
};
