// Many user messages queued at once (issue 22): 2,000 user frames written right after `initialize`, before the
// first answer, then stdin closed. Claude Code 2.1.330 folds the messages queued while a turn runs into the next
// turn (test/measure/reliability.measure.ts); agentd does the same (src/session/fold.ts). Measured: the first
// frame written → the subject's last `result` read (it answers what is queued, then exits at EOF), with how many
// results and model requests that took.
import type { LoopbackHandle } from './loopback.js';
import type { TimedFrame } from './proc.js';
import { userFrame } from './proc.js';
import { initialize, perSubject, place, start, using } from './session.js';
import { SHORT_REPLY } from './startup.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { type BenchContext, type Benchmark, rowBase } from './types.js';

const MESSAGES = 2000;

interface Sample {
  ms: number;
  results: number;
  requests: number | undefined;
}

async function once(ctx: BenchContext, s: Subject, server: LoopbackHandle): Promise<Sample> {
  const before = s.usesLoopback ? (await server.stats()).requests : 0;
  const sample = await using(start(s, place(ctx, 'queued-2000', s), s.usesLoopback ? { baseUrl: server.url } : {}), async (p) => {
    await initialize(p);
    const results: TimedFrame[] = [];
    p.tap = (t) => {
      if (t.frame['type'] === 'result') results.push(t);
    };
    const t0 = performance.now();
    for (let i = 0; i < MESSAGES; i++) p.send(userFrame(`queued message ${i}`));
    p.child.stdin?.end();
    const exit = await p.exited;
    p.tap = undefined;
    const failed = results.find((r) => r.frame['is_error'] === true);
    if (failed) throw new Error(`error result: ${JSON.stringify(failed.frame).slice(0, 300)}`);
    const last = results.at(-1);
    if (!last) throw new Error(`no result before the exit (code ${String(exit.code)})`);
    return { ms: last.at - t0, results: results.length, requests: undefined };
  });
  return { ...sample, requests: s.usesLoopback ? (await server.stats()).requests - before : undefined };
}

export const queued2000: Benchmark = {
  name: 'queued-2000',
  description: `${MESSAGES} user frames written at once right after \`initialize\` (before the first answer), then stdin closed: first frame written → last \`result\` read. Messages that arrive while a turn runs are folded into the next turn (Claude Code's behaviour, measured), so this is a few turns, not ${MESSAGES}; the note says how many results and model requests it took.`,
  async run(ctx) {
    const runs = ctx.quick ? 1 : 3;
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const base = rowBase({ bench: 'queued-2000', metric: `${MESSAGES} queued messages answered`, unit: 'ms', target: { op: '<=', value: 3000 } });
    return ctx.withLoopback(SHORT_REPLY, (server) =>
      perSubject(ctx, subjects, base, async (s) => {
        const samples: Sample[] = [];
        for (let i = 0; i < runs; i++) samples.push(await once(ctx, s, server));
        const st = summarize(samples.map((x) => x.ms));
        const counts = [...new Set(samples.map((x) => `${x.results} results${x.requests === undefined ? '' : `, ${x.requests} model requests`}`))].join(' / ');
        return { ...base(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90, note: counts };
      }),
    );
  },
};
