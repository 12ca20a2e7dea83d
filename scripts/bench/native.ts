// The native executable (npm run build:native) next to bin/agentd: its size, and spawn → `initialize` answered,
// the two measured in alternation so that load on the machine falls on both alike. Also the first start of a
// build, which extracts the bundles into the cache directory before answering. Builds the executable first
// when dist-native/agentd is missing or older than dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { initialize, place, start, using } from './session.js';
import { summarize } from './stats.js';
import { type Subject, agentdNativeSubject } from './subjects.js';
import { type BenchContext, type Benchmark, type Row, agentdTarget, failedRow } from './types.js';

function ensureBuilt(ctx: BenchContext): string {
  const exe = join(ctx.root, 'dist-native', 'agentd');
  const built = join(ctx.root, 'dist', '.built');
  if (existsSync(exe) && statSync(exe).mtimeMs >= statSync(built).mtimeMs) return exe;
  ctx.log('  building the native executable (scripts/build-native.mjs)');
  const r = spawnSync(process.execPath, [join(ctx.root, 'scripts', 'build-native.mjs'), '--out', exe], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`build-native failed: ${r.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return exe;
}

async function initMs(subject: Subject, where: { home: string; cwd: string }): Promise<number> {
  return using(start(subject, where), async (p) => (await initialize(p)).at - p.spawnedAt);
}

export const native: Benchmark = {
  name: 'native',
  description:
    'the native executable (`npm run build:native`: Node SEA, no Node needed) next to `bin/agentd`: file size; spawn → `initialize` answered, the two alternating run by run (environment as in startup); and a build\'s first start, which extracts its files into the cache directory (a fresh one each run).',
  async run(ctx) {
    const runs = ctx.quick ? 5 : 30;
    const exe = ensureBuilt(ctx);
    const nat = agentdNativeSubject(exe);
    const [bin] = ctx.subjects(['agentd']);
    if (!bin) throw new Error('the agentd subject is missing');
    const rows: Row[] = [
      { bench: 'native', metric: 'file size', subject: 'dist-native/agentd', unit: 'MiB', n: 1, median: statSync(exe).size / 2 ** 20 },
    ];
    const subjects = [bin, nat];
    const where = new Map(subjects.map((s) => [s.id, place(ctx, 'native', s)]));
    const times = new Map<string, number[]>(subjects.map((s) => [s.id, []]));
    const failed = new Map<string, unknown>();
    // Run 0 of each warms the page cache (and extracts the native build's files into its HOME's cache).
    for (let i = 0; i <= runs; i++) {
      for (const s of subjects) {
        if (failed.has(s.id)) continue;
        try {
          const t = await initMs(s, where.get(s.id) as { home: string; cwd: string });
          if (i > 0) times.get(s.id)?.push(t);
        } catch (err) {
          failed.set(s.id, err);
        }
      }
    }
    for (const s of subjects) {
      const base = { bench: 'native', metric: 'spawn → initialize answered', subject: s.label, unit: 'ms', ...agentdTarget(s, '<=', 45) };
      if (failed.has(s.id)) {
        rows.push(failedRow(base, failed.get(s.id)));
        continue;
      }
      const st = summarize(times.get(s.id) ?? []);
      rows.push({ ...base, n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 });
    }
    const first: number[] = [];
    const firstBase = { bench: 'native', metric: 'first start of a build (extracting) → initialize answered', subject: nat.label, unit: 'ms' };
    try {
      for (let i = 0; i < Math.ceil(runs / 3); i++) first.push(await initMs(nat, place(ctx, 'native-first', nat)));
      const st = summarize(first);
      rows.push({ ...firstBase, n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 });
    } catch (err) {
      rows.push(failedRow(firstBase, err));
    }
    return rows;
  },
};
