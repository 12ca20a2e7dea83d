// Long-lived process benchmarks: warm turn latency and idle memory.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchProc } from './proc.js';
import { initialize, perSubject, place, start, turn, using } from './session.js';
import { SHORT_REPLY } from './startup.js';
import { summarize } from './stats.js';
import { type Benchmark, type Row, type RowBase, rowBase } from './types.js';

/**
 * The warm-turn harness (warm-turn, warm-turn-proxy): 5 unmeasured warm-up turns, then `turns` trivial turns,
 * each measured from the user frame written to the `result` read.
 */
export async function warmTurnRow(p: BenchProc, base: RowBase, turns: number): Promise<Row> {
  await initialize(p);
  for (let i = 0; i < 5; i++) await turn(p, `warm-up ${i}`);
  const times: number[] = [];
  for (let i = 0; i < turns; i++) {
    const { sentAt, result } = await turn(p, `turn ${i}`);
    times.push(result.at - sentAt);
  }
  const st = summarize(times);
  return { ...base, n: st.n, nLabel: 'turns', median: st.median, p90: st.p90 };
}

export const warmTurn: Benchmark = {
  name: 'warm-turn',
  description:
    'one long-lived process: user frame written → `result` read, for a trivial one-reply turn (after 5 unmeasured warm-up turns). The loopback rows include the HTTP round trip; the conversation grows with every turn (each request carries the whole history), as it does for a real host.',
  async run(ctx) {
    const turns = ctx.quick ? 50 : 200;
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'agentd-baseline', 'claude']);
    const base = rowBase({ bench: 'warm-turn', metric: 'warm turn latency', unit: 'ms', target: { op: '<=', value: 2 } });
    return ctx.withLoopback(SHORT_REPLY, (server) =>
      perSubject(ctx, subjects, base, (s) => using(start(s, place(ctx, 'warm-turn', s), s.usesLoopback ? { baseUrl: server.url } : {}), (p) => warmTurnRow(p, base(s), turns))),
    );
  },
};

export const idleRss: Benchmark = {
  name: 'idle-rss',
  description: 'VmRSS of the spawned process itself (/proc/<pid>/status; children not counted) after initialize + one short turn and 1 s idle.',
  async run(ctx) {
    const runs = ctx.quick ? 1 : 3;
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const base = rowBase({ bench: 'idle-rss', metric: 'idle RSS after one turn', unit: 'MiB', target: { op: '<=', value: 65 } });
    return ctx.withLoopback(SHORT_REPLY, (server) =>
      perSubject(ctx, subjects, base, async (s) => {
        const where = place(ctx, 'idle-rss', s);
        const samples: number[] = [];
        for (let i = 0; i < runs; i++) {
          samples.push(
            await using(start(s, where, s.usesLoopback ? { baseUrl: server.url } : {}), async (p) => {
              await initialize(p);
              await turn(p, 'Say ok.');
              await sleep(1000);
              return p.rssKiB() / 1024;
            }),
          );
        }
        const st = summarize(samples);
        return { ...base(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 };
      }),
    );
  },
};
