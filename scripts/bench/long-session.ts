// A long session: 200 turns in one process, each running one Read, and how much resident memory every turn
// leaves behind. RSS right after a `result` depends on where the garbage collector happens to be, so agentd is
// also measured with a full GC forced just before each sample: NODE_OPTIONS `--expose-gc --require <preload>`
// adds a SIGUSR2 handler that calls gc() without touching the daemon's code.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchProc } from './proc.js';
import { initialize, perSubject, start, toolTurn, using } from './session.js';
import { slope, summarize } from './stats.js';
import { type Subject, agentdScriptedSubject, agentdSubject } from './subjects.js';
import { fixtureDir, read, toolPlace, toolScenario, toolStart, writeScenario } from './tool-fixtures.js';
import { type Benchmark, type Row, agentdTarget } from './types.js';

const TRIGGER = 'bench session-turn';
const FROM_TURN = 20;
const GC_PRELOAD = `'use strict';
// agentd benchmark preload: on SIGUSR2, a full garbage collection, then the JS heap in use appended to a file.
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  require('node:fs').appendFileSync(process.env.AGENTD_BENCH_GC_OUT, 'heapUsed=' + process.memoryUsage().heapUsed + '\\n');
});
`;

interface MemSample {
  rssKiB: number;
  /** JS heap in use after the forced GC (GC variant only). */
  heapKiB?: number;
}

function gcLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** VmRSS, after a forced full GC when `gcOut` is given (the preload reports there when the GC is done). */
async function sample(p: BenchProc, gcOut: string | undefined): Promise<MemSample> {
  if (gcOut === undefined) return { rssKiB: p.rssKiB() };
  const before = gcLines(gcOut).length;
  p.child.kill('SIGUSR2');
  const t0 = performance.now();
  let lines = gcLines(gcOut);
  while (lines.length <= before) {
    if (performance.now() - t0 > 5000) throw new Error('the GC preload did not answer SIGUSR2 within 5 s');
    await sleep(5);
    lines = gcLines(gcOut);
  }
  const m = /^heapUsed=(\d+)$/.exec(lines[lines.length - 1] ?? '');
  if (!m?.[1]) throw new Error(`unexpected GC preload output: ${lines[lines.length - 1] ?? ''}`);
  return { rssKiB: p.rssKiB(), heapKiB: Number(m[1]) / 1024 };
}

export const session200Turns: Benchmark = {
  name: 'session-200-turns',
  description: `one process, ${200} turns, each running one Read of a small file (two model requests a turn; the history grows all along, as in a real session); RSS growth per turn = least-squares slope of VmRSS sampled after every turn from ${FROM_TURN} to 200 (the two-point difference is in the notes: it depends on where the two samples fall in GC cycles). The "forced GC" rows sample every 10 turns, each after a full GC (agentd only, see the analysis).`,
  async run(ctx) {
    const total = ctx.quick ? 80 : 200;
    const cwd = fixtureDir(ctx, 'session', { 'notes.txt': `${'a line of notes for the long session\n'.repeat(8)}` });
    const scenario = toolScenario('bench: one Read a turn', TRIGGER, [read(join(cwd, 'notes.txt'))]);
    const scenarioFile = writeScenario(ctx, scenario);
    const preload = join(ctx.dir('gc-preload-'), 'gc-preload.cjs');
    writeFileSync(preload, GC_PRELOAD);
    const gcLaunch = { nodeOptions: ['--expose-gc', '--require', preload] };
    const plain = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const withGc = ctx.profiling
      ? []
      : ctx.subjects(['agentd', 'agentd-scripted']).map((s) => ({ ...(s.id === 'agentd' ? agentdSubject(ctx.root, gcLaunch) : agentdScriptedSubject(ctx.root, gcLaunch)), gc: true }));
    const cases: Array<Subject & { gc?: boolean }> = [...plain, ...withGc];
    const base = (s: Subject & { gc?: boolean }): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'session-200-turns',
      metric: `RSS growth per turn (turn ${FROM_TURN} → ${total})${s.gc ? ', forced GC' : ''}`,
      subject: s.label,
      unit: 'KiB/turn',
      // The target is the plain measurement's (the task's); the forced-GC rows are a diagnostic: they add two
      // full GCs per sample to the process they measure, and show what growth is live rather than garbage.
      ...(s.gc ? {} : agentdTarget(s, '<=', 16)),
    });
    return ctx.withLoopback(scenario, async (server) => {
      const rows: Row[] = [];
      for (const s of cases) {
        let heapRow: Row | undefined;
        const one = await perSubject(ctx, [s], base, async () => {
          const { where, tmp } = toolPlace(ctx, 'session', s, cwd);
          const gcOut = s.gc ? join(tmp, 'gc.log') : undefined;
          const opts = toolStart(s, server.url, scenarioFile, tmp);
          return using(start(s, where, gcOut ? { ...opts, env: { ...opts.env, AGENTD_BENCH_GC_OUT: gcOut } } : opts), async (p) => {
            await initialize(p);
            let atFrom: MemSample = { rssKiB: Number.NaN };
            const times: number[] = [];
            // VmRSS after every turn from FROM_TURN on (every 10th, after a full GC, in the forced-GC runs): the
            // growth rate is their least-squares slope.
            const series: Array<[number, number]> = [];
            for (let i = 1; i <= total; i++) {
              const t = await toolTurn(p, `${TRIGGER} ${i}`, 1);
              times.push(t.result.at - t.sentAt);
              if (i === FROM_TURN) atFrom = await sample(p, gcOut);
              else if (i > FROM_TURN && i < total && !gcOut) series.push([i, p.rssKiB()]);
              else if (i > FROM_TURN && i < total && i % 10 === 0) series.push([i, (await sample(p, gcOut)).rssKiB]);
            }
            const atEnd = await sample(p, gcOut);
            series.unshift([FROM_TURN, atFrom.rssKiB]);
            series.push([total, atEnd.rssKiB]);
            const turns = total - FROM_TURN;
            const mib = (kib: number | undefined): string => ((kib ?? Number.NaN) / 1024).toFixed(1);
            if (atFrom.heapKiB !== undefined && atEnd.heapKiB !== undefined) {
              heapRow = {
                bench: 'session-200-turns',
                metric: `JS heap growth per turn (turn ${FROM_TURN} → ${total}), forced GC`,
                subject: s.label,
                unit: 'KiB/turn',
                n: turns,
                nLabel: 'turns',
                median: (atEnd.heapKiB - atFrom.heapKiB) / turns,
                note: `heapUsed after a full GC: ${mib(atFrom.heapKiB)} MiB after turn ${FROM_TURN}, ${mib(atEnd.heapKiB)} MiB after turn ${total}`,
              };
            }
            const twoPoint = (atEnd.rssKiB - atFrom.rssKiB) / turns;
            const fit = slope(series);
            return {
              ...base(s),
              n: turns,
              nLabel: 'turns',
              median: fit,
              note: `${s.gc ? 'forced GC: ' : ''}VmRSS ${mib(atFrom.rssKiB)} MiB after turn ${FROM_TURN}, ${mib(atEnd.rssKiB)} MiB after turn ${total} (two-point ${twoPoint.toFixed(1)} KiB/turn; range ${mib(Math.min(...series.map((x) => x[1])))}–${mib(Math.max(...series.map((x) => x[1])))} MiB); median turn ${summarize(times).median.toFixed(1)} ms`,
            };
          });
        });
        rows.push(...one);
        if (heapRow) rows.push(heapRow);
      }
      return rows;
    });
  },
};
