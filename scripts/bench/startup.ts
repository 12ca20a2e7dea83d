// Cold-start benchmarks: bare node for reference, spawn → initialize answered, spawn → first result.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { userFrame } from './proc.js';
import { awaitResult, initialize, perSubject, place, start, using } from './session.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { type BenchContext, type Benchmark, type Row, agentdTarget } from './types.js';

const ms = (a: number, b: number): number => b - a;

/** A one-rule scenario: every request gets a short text (a trivial turn). */
export const SHORT_REPLY: Scenario = {
  description: 'bench: every request gets a short text',
  rules: [{ name: 'short', reply: { content: [{ type: 'text', text: 'ok' }] } }],
};

function runs(ctx: BenchContext): number {
  return ctx.quick ? 5 : 20;
}

/** Spawns `node <args>` and returns ms from spawn to `until` (the first stdout byte, or the exit). */
function timeNode(args: readonly string[], until: 'first-byte' | 'exit', env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'ignore'], env });
    let firstByte = 0;
    c.stdout.once('data', () => {
      firstByte = performance.now();
    });
    c.stdout.resume();
    c.on('error', reject);
    c.on('exit', (code) => {
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${String(code)}`));
      else resolve(ms(t0, until === 'exit' ? performance.now() : firstByte));
    });
  });
}

export const nodeBaseline: Benchmark = {
  name: 'node-baseline',
  description:
    'bare Node.js for reference: `node -e 0` spawn → exit, and spawn → first stdout line of a script that prints one line (what any Node daemon pays before its own code runs).',
  async run(ctx) {
    // The same clean environment the daemons get, so the rows compare like with like.
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: ctx.dir('node-home-') };
    const cases = [
      { metric: 'spawn → exit', subject: 'node -e 0', args: ['-e', '0'], until: 'exit' as const, env },
      { metric: 'spawn → first stdout line', subject: 'node -e (print one line)', args: ['-e', 'process.stdout.write("{}\\n")'], until: 'first-byte' as const, env },
    ];
    // With this set (as in this machine's shell; the SDKs pass their environment on), Node parses every
    // certificate of that file at start-up: worth knowing when a daemon's start-up looks slow.
    const extraCa = process.env['NODE_EXTRA_CA_CERTS'];
    if (extraCa && existsSync(extraCa)) {
      cases.push({ metric: 'spawn → exit', subject: `node -e 0 with NODE_EXTRA_CA_CERTS=${extraCa}`, args: ['-e', '0'], until: 'exit' as const, env: { ...env, NODE_EXTRA_CA_CERTS: extraCa } });
    }
    const rows: Row[] = [];
    for (const c of cases) {
      const times: number[] = [];
      // run 0 warms the page cache
      for (let i = 0; i <= runs(ctx); i++) {
        const t = await timeNode(c.args, c.until, c.env);
        if (i > 0) times.push(t);
      }
      const s = summarize(times);
      rows.push({ bench: 'node-baseline', metric: c.metric, subject: c.subject, unit: 'ms', n: s.n, nLabel: 'runs', median: s.median, p90: s.p90 });
    }
    return rows;
  },
};

export const startup: Benchmark = {
  name: 'startup',
  description:
    'spawn → `initialize` control_response (initialize written right after spawn, as the SDKs do; clean environment: PATH, HOME, API key and base URL only).',
  async run(ctx) {
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'agentd-baseline', 'claude']);
    const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'startup',
      metric: 'spawn → initialize answered',
      subject: s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', 45),
    });
    return perSubject(ctx, subjects, base, async (s) => {
      const where = place(ctx, 'startup', s);
      const times: number[] = [];
      for (let i = 0; i <= runs(ctx); i++) {
        const t = await using(start(s, where), async (p) => ms(p.spawnedAt, (await initialize(p)).at));
        if (i > 0) times.push(t);
      }
      const st = summarize(times);
      return { ...base(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 };
    });
  },
};

const LOADERS = ['vm-cache', 'compile-cache', 'plain'] as const;

/** The subject started with AGENTD_LOADER=<loader> (src/cli/launch.ts). */
function withLoader(s: Subject, loader: string): Subject {
  return {
    ...s,
    label: `${s.label}, AGENTD_LOADER=${loader}`,
    spec: (o) => {
      const spec = s.spec(o);
      return { ...spec, env: { ...spec.env, AGENTD_LOADER: loader } };
    },
  };
}

export const startupLoaders: Benchmark = {
  name: 'startup-loaders',
  description:
    'spawn → `initialize` answered (as startup, scripted model) for each way of loading the bundles: `vm-cache` (the default: V8 flags + the vm.Script code cache), `compile-cache` (Node ≥ 22.1: module.enableCompileCache; vm-cache on Node 20), `plain` (no tricks). The three alternate run by run. Run it per Node version with --node.',
  async run(ctx) {
    const [scripted] = ctx.subjects(['agentd-scripted']);
    if (!scripted) return [];
    const subjects = LOADERS.map((l) => withLoader(scripted, l));
    return alternatingStartup(ctx, subjects, 'startup-loaders', `spawn → initialize answered (${process.version})`, runs(ctx), false);
  },
};

/**
 * spawn → `initialize` answered for each subject, one run of each in turn (the order reversed every other round
 * when `flip`), so they share the machine's load; the first round warms caches and is not counted.
 */
async function alternatingStartup(ctx: BenchContext, subjects: readonly Subject[], bench: string, metric: string, rounds: number, flip: boolean): Promise<Row[]> {
  const times = new Map<Subject, number[]>(subjects.map((s) => [s, []]));
  for (let i = 0; i <= rounds; i++) {
    for (const s of flip && i % 2 === 0 ? [...subjects].reverse() : subjects) {
      const t = await using(start(s, place(ctx, bench, s)), async (p) => ms(p.spawnedAt, (await initialize(p)).at));
      if (i > 0) times.get(s)?.push(t);
    }
  }
  return subjects.map((s) => {
    const st = summarize(times.get(s) ?? []);
    return { bench, metric, subject: s.label, unit: 'ms', n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 };
  });
}

export const startupAb: Benchmark = {
  name: 'startup-ab',
  description:
    'spawn → `initialize` answered (scripted model, empty project) for this build and the `--baseline <dir>` build, alternating run by run, so both see the same machine load: the side-by-side start-up comparison with an earlier commit. Without --baseline it measures nothing.',
  async run(ctx) {
    const subjects = ctx.subjects(['agentd-scripted', 'agentd-baseline']);
    if (subjects.length < 2) {
      ctx.log('startup-ab: no --baseline <dir> given; nothing to compare');
      return [];
    }
    return alternatingStartup(ctx, subjects, 'startup-ab', 'spawn → initialize answered (alternating)', runs(ctx) * 2, true);
  },
};

export const firstResult: Benchmark = {
  name: 'first-result',
  description: 'spawn → first `result` of a short text turn (initialize and the user frame written at once, as the TS SDK does).',
  async run(ctx) {
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'first-result',
      metric: 'spawn → first result',
      subject: s.label,
      unit: 'ms',
    });
    return ctx.withLoopback(SHORT_REPLY, (server) =>
      perSubject(ctx, subjects, base, async (s) => {
        const where = place(ctx, 'first-result', s);
        const times: number[] = [];
        for (let i = 0; i <= runs(ctx); i++) {
          const t = await using(start(s, where, s.usesLoopback ? { baseUrl: server.url } : {}), async (p) => {
            const init = initialize(p);
            p.send(userFrame('Say ok.'));
            await init;
            return ms(p.spawnedAt, (await awaitResult(p)).at);
          });
          if (i > 0) times.push(t);
        }
        const st = summarize(times);
        return { ...base(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 };
      }),
    );
  },
};
