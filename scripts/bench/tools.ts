// Tool execution benchmarks: parallel Reads around an exclusive Bash, 200 Reads in one message, and a Bash that
// prints 50 MB. Each measures user frame written → `result` read (two model requests and the tools in between)
// in one long-lived process after a warm-up turn, and checks that every tool ran and none failed.
import { join } from 'node:path';
import { initialize, perSubject, start, toolTurn, using } from './session.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { bash, fixtureDir, read, timeShell, toolPlace, toolScenario, toolStart, writeScenario } from './tool-fixtures.js';
import { type Benchmark, type Row, agentdTarget } from './types.js';

type Base = Omit<Row, 'n' | 'median' | 'failed'>;

const PARALLEL_TRIGGER = 'bench tools-parallel';
const PARALLEL_BASH = 'sleep 1; touch x';

export const toolsParallel: Benchmark = {
  name: 'tools-parallel',
  description: `one assistant message with 4 Reads and one Bash \`${PARALLEL_BASH}\` in the middle (not read-only, so it runs alone: Reads 1–2 in parallel, then the Bash, then Reads 3–4); user frame written → \`result\` read, after 2 warm-up turns. Allow rules \`--allowedTools Read,Bash\`.`,
  async run(ctx) {
    const turns = ctx.quick ? 3 : 8;
    const cwd = fixtureDir(ctx, 'tools-parallel', Object.fromEntries([1, 2, 3, 4].map((i) => [`f${i}.txt`, `file ${i}\n`.repeat(20)])));
    const scenario = toolScenario('bench: 4 Reads and an exclusive Bash', PARALLEL_TRIGGER, [
      read(join(cwd, 'f1.txt')),
      read(join(cwd, 'f2.txt')),
      bash(PARALLEL_BASH),
      read(join(cwd, 'f3.txt')),
      read(join(cwd, 'f4.txt')),
    ]);
    const scenarioFile = writeScenario(ctx, scenario);
    const shell: number[] = [];
    for (let i = 0; i < turns; i++) shell.push(await timeShell(PARALLEL_BASH, cwd));
    const ref: Row = {
      bench: 'tools-parallel',
      metric: 'the Bash command alone',
      subject: `bash -c '${PARALLEL_BASH}' (spawn → exit)`,
      unit: 'ms',
      n: shell.length,
      nLabel: 'runs',
      ...pick(summarize(shell)),
    };
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const base = (s: Subject): Base => ({
      bench: 'tools-parallel',
      metric: 'user → result (4 Reads + Bash sleep 1)',
      subject: s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', 1025),
    });
    const rows = await ctx.withLoopback(scenario, (server) =>
      perSubject(ctx, subjects, base, async (s) => {
        const { where, tmp } = toolPlace(ctx, 'tools-parallel', s, cwd);
        return using(start(s, where, toolStart(s, server.url, scenarioFile, tmp)), async (p) => {
          await initialize(p);
          for (let i = 0; i < 2; i++) await toolTurn(p, `${PARALLEL_TRIGGER} warm-up ${i}`, 5);
          const times: number[] = [];
          const phases: Array<[number, number, number]> = [];
          for (let i = 0; i < turns; i++) {
            const t = await toolTurn(p, `${PARALLEL_TRIGGER} ${i}`, 5);
            times.push(t.result.at - t.sentAt);
            phases.push([t.firstAssistantAt - t.sentAt, t.lastToolResultAt - t.firstAssistantAt, t.result.at - t.lastToolResultAt]);
          }
          const med = (k: 0 | 1 | 2): string => summarize(phases.map((ph) => ph[k])).median.toFixed(1);
          const note = `medians of the phases: user → first assistant frame ${med(0)} ms (first model request), → last tool_result ${med(1)} ms (tools), → result ${med(2)} ms (second model request)`;
          return { ...base(s), n: times.length, nLabel: 'turns', ...pick(summarize(times)), note };
        });
      }),
    );
    return [ref, ...rows];
  },
};

const READS = 200;
const READS_TRIGGER = 'bench reads-200';

export const reads200: Benchmark = {
  name: 'reads-200',
  description: `${READS} Reads of small files (~100 bytes) in one assistant message; user frame written → \`result\` read (after one warm-up turn per process), and the process's peak RSS (VmHWM of /proc/<pid>/status, read before it exits: the peak over start-up and all its turns).`,
  async run(ctx) {
    const runs = ctx.quick || ctx.profiling ? 1 : 3;
    const turns = ctx.quick ? 2 : 5;
    const names = Array.from({ length: READS }, (_, i) => `r${String(i).padStart(3, '0')}.txt`);
    const cwd = fixtureDir(ctx, 'reads-200', Object.fromEntries(names.map((n, i) => [n, `line one of ${n}\nline two ${i}\n${'x'.repeat(60)}\n`])));
    const scenario = toolScenario(`bench: ${READS} Reads in one message`, READS_TRIGGER, names.map((n) => read(join(cwd, n))));
    const scenarioFile = writeScenario(ctx, scenario);
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const latencyBase = (s: Subject): Base => ({
      bench: 'reads-200',
      metric: `user → result (${READS} Reads)`,
      subject: s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', 120),
    });
    const peakBase = (s: Subject): Base => ({
      bench: 'reads-200',
      metric: 'peak RSS (VmHWM)',
      subject: s.label,
      unit: 'MiB',
      ...agentdTarget(s, '<=', 100),
    });
    return ctx.withLoopback(scenario, async (server) => {
      const rows: Row[] = [];
      for (const s of subjects) {
        const times: number[] = [];
        const peaks: number[] = [];
        const pair = await perSubject(ctx, [s], latencyBase, async () => {
          for (let r = 0; r < runs; r++) {
            const { where, tmp } = toolPlace(ctx, 'reads-200', s, cwd);
            await using(start(s, where, toolStart(s, server.url, scenarioFile, tmp)), async (p) => {
              await initialize(p);
              await toolTurn(p, `${READS_TRIGGER} warm-up`, READS);
              for (let i = 0; i < turns; i++) {
                const t = await toolTurn(p, `${READS_TRIGGER} ${i}`, READS);
                times.push(t.result.at - t.sentAt);
              }
              peaks.push(p.statusKiB('VmHWM') / 1024);
            });
          }
          return { ...latencyBase(s), n: times.length, nLabel: `turns (${runs} processes)`, ...pick(summarize(times)) };
        });
        rows.push(...pair);
        if (pair[0]?.failed === undefined) rows.push({ ...peakBase(s), n: peaks.length, nLabel: 'processes', ...pick(summarize(peaks)) });
      }
      return rows;
    });
  },
};

const BIG_BASH = "head -c 50000000 /dev/zero | tr '\\0' a";
const BIG_TRIGGER = 'bench bash-50mb';
const LINE_LIMIT_KIB = 64;

export const bash50mb: Benchmark = {
  name: 'bash-50mb',
  description: `one Bash \`${BIG_BASH}\` (50 MB of output on one line); user frame written → \`result\` read (after one warm-up turn per process), the process's peak RSS (VmHWM, read before it exits), and the longest stdout line the subject wrote over its whole life (bytes). The command alone (\`> /dev/null\`) is timed for reference.`,
  async run(ctx) {
    const runs = ctx.quick || ctx.profiling ? 1 : 3;
    const turns = ctx.quick ? 2 : 4;
    const cwd = fixtureDir(ctx, 'bash-50mb', {});
    const scenario = toolScenario('bench: a Bash printing 50 MB', BIG_TRIGGER, [bash(BIG_BASH)]);
    const scenarioFile = writeScenario(ctx, scenario);
    const alone: number[] = [];
    for (let i = 0; i <= runs * turns; i++) {
      const t = await timeShell(`${BIG_BASH} > /dev/null`, cwd);
      if (i > 0) alone.push(t); // the first run warms the page cache
    }
    const aloneMedian = summarize(alone).median;
    const rows: Row[] = [
      {
        bench: 'bash-50mb',
        metric: 'the command alone',
        subject: `bash -c '${BIG_BASH} > /dev/null' (spawn → exit)`,
        unit: 'ms',
        n: alone.length,
        nLabel: 'runs',
        ...pick(summarize(alone)),
      },
    ];
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const latencyBase = (s: Subject): Base => ({
      bench: 'bash-50mb',
      metric: 'user → result (Bash printing 50 MB)',
      subject: s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', 120),
    });
    await ctx.withLoopback(scenario, async (server) => {
      for (const s of subjects) {
        const times: number[] = [];
        const peaks: number[] = [];
        let longest = 0;
        const one = await perSubject(ctx, [s], latencyBase, async () => {
          for (let r = 0; r < runs; r++) {
            const { where, tmp } = toolPlace(ctx, 'bash-50mb', s, cwd);
            await using(start(s, where, toolStart(s, server.url, scenarioFile, tmp)), async (p) => {
              await initialize(p);
              await toolTurn(p, `${BIG_TRIGGER} warm-up`, 1);
              for (let i = 0; i < turns; i++) {
                const t = await toolTurn(p, `${BIG_TRIGGER} ${i}`, 1);
                times.push(t.result.at - t.sentAt);
              }
              peaks.push(p.statusKiB('VmHWM') / 1024);
              longest = Math.max(longest, p.maxLineBytes);
            });
          }
          const st = summarize(times);
          const note = `overhead over the command alone: ${(st.median - aloneMedian).toFixed(1)} ms (median ${st.median.toFixed(1)} − ${aloneMedian.toFixed(1)} ms)`;
          return { ...latencyBase(s), n: st.n, nLabel: `turns (${runs} processes)`, ...pick(st), note };
        });
        rows.push(...one);
        if (one[0]?.failed !== undefined) continue;
        rows.push({
          bench: 'bash-50mb',
          metric: 'peak RSS (VmHWM)',
          subject: s.label,
          unit: 'MiB',
          n: peaks.length,
          nLabel: 'processes',
          ...pick(summarize(peaks)),
          ...agentdTarget(s, '<=', 90),
        });
        rows.push({
          bench: 'bash-50mb',
          metric: 'longest stdout line (whole run)',
          subject: s.label,
          unit: 'KiB',
          n: runs,
          nLabel: 'processes',
          median: longest / 1024,
          note: `${longest.toLocaleString('en-US')} bytes (max over ${runs} processes); the limit is ${LINE_LIMIT_KIB} KiB = ${(LINE_LIMIT_KIB * 1024).toLocaleString('en-US')} bytes`,
          ...agentdTarget(s, '<=', LINE_LIMIT_KIB),
        });
      }
    });
    return rows;
  },
};

function pick(st: ReturnType<typeof summarize>): { median: number; p90: number } {
  return { median: st.median, p90: st.p90 };
}
