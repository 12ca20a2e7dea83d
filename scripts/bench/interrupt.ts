// Interrupt latency: an `interrupt` control_request written (a) while a reply is streaming and (b) while a Bash
// `sleep 30` runs, to the turn's `result` read; also when the interrupt's control_response arrived, and for (b)
// whether the tool's process group was gone by the result (and when it was gone).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { type BenchProc, isControlResponseTo, isResult, userFrame } from './proc.js';
import { allProcesses, cmdline, liveGroupMembers, pollUntil, waitForDescendant } from './proc-tree.js';
import { initialize, perSubject, start, using } from './session.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { bash, fixtureDir, toolPlace, toolStart, writeScenario } from './tool-fixtures.js';
import { type BenchContext, type Benchmark, type Row, agentdTarget } from './types.js';

const STREAM_TRIGGER = 'bench interrupt-stream';
const BASH_TRIGGER = 'bench interrupt-bash';
// Not a bare `sleep 30`: Claude Code refuses a standalone sleep ("Blocked: standalone sleep 30").
const SLEEP = 'echo started; sleep 30';
/** Stream events to see before interrupting: the reply is well under way. */
const STREAM_EVENTS_FIRST = 20;

const SCENARIO: Scenario = {
  description: 'bench: a slowly streamed reply, and a Bash that sleeps',
  rules: [
    {
      name: 'slow text',
      when: { lastUserText: STREAM_TRIGGER },
      // 1000 deltas 5 ms apart: ~5 s of streaming if nothing stops it.
      reply: { content: [{ type: 'text', text: 'streaming '.repeat(800) }], chunkSize: 8, delays: { chunkMs: 5 } },
    },
    // No hasToolResults condition: after an interrupted Bash the next user text may share a message with the
    // interrupted call's tool_result.
    { name: 'sleep', when: { lastUserText: BASH_TRIGGER }, reply: { content: [bash(SLEEP)] } },
    { name: 'after tools', when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
  ],
  fallback: { content: [{ type: 'text', text: 'ok' }] },
};

interface Sample {
  toResult: number;
  toResponse: number;
  subtype: string;
  /** Bash case: interrupt written → result read and no live process left in the tool's group. */
  toGroupGone?: number;
  groupGoneAtResult?: boolean;
}

let interrupts = 0;

function pgidOf(pid: number): number | undefined {
  return allProcesses().find((p) => p.pid === pid)?.pgid;
}

/** One interrupted turn. For `bash`, waits until the `sleep` runs, then checks its process group after the result. */
async function interruptedTurn(p: BenchProc, kind: 'stream' | 'bash', label: string): Promise<Sample> {
  const pid = p.pid;
  if (pid === undefined) throw new Error('no pid');
  p.resetStreamCounters();
  let group: number | undefined;
  let sleepPid: number | undefined;
  if (kind === 'stream') {
    p.send(userFrame(`${STREAM_TRIGGER} ${label}`));
    await p.waitStreamEvents(STREAM_EVENTS_FIRST, 30_000);
  } else {
    p.send(userFrame(`${BASH_TRIGGER} ${label}`));
    const child = await waitForDescendant(pid, (x) => x.comm === 'sleep' && cmdline(x.pid).includes('30'), 30_000);
    sleepPid = child.pid;
    // A tool that shares the subject's own group cannot be checked by group: then only the sleep itself counts.
    group = child.pgid !== pgidOf(pid) ? child.pgid : undefined;
  }
  const id = `bench_interrupt_${++interrupts}`;
  let responseAt: number | undefined;
  p.tap = ({ frame, at }) => {
    if (isControlResponseTo(id)(frame)) responseAt ??= at;
  };
  try {
    const sentAt = performance.now();
    p.send({ type: 'control_request', request_id: id, request: { subtype: 'interrupt' } });
    const result = await p.waitFor(isResult, 15_000);
    for (let waited = 0; responseAt === undefined && waited < 3000; waited += 5) await sleep(5);
    if (responseAt === undefined) throw new Error('no control_response to the interrupt within 3 s of the result');
    const subtype = String(result.frame['subtype']);
    if (subtype === 'success') throw new Error('the turn succeeded: the interrupt came too late to measure');
    const sample: Sample = { toResult: result.at - sentAt, toResponse: responseAt - sentAt, subtype };
    if (kind === 'bash' && sleepPid !== undefined) {
      const alive = (): boolean => (group !== undefined ? liveGroupMembers(group).length > 0 : allProcesses().some((x) => x.pid === sleepPid && x.state !== 'Z'));
      sample.groupGoneAtResult = !alive();
      const checkedAt = performance.now();
      const gone = await pollUntil(() => !alive(), 5000);
      if (gone === undefined) {
        // Do not leave it behind for the next runs (it is the subject's child, started by this benchmark).
        if (group !== undefined) process.kill(-group, 'SIGKILL');
        else process.kill(sleepPid, 'SIGKILL');
        throw new Error(`the tool's ${group !== undefined ? `process group ${group}` : `process ${sleepPid}`} was still alive 5 s after the result`);
      }
      // Gone at the first look (right after the result was read) counts as gone by the result.
      sample.toGroupGone = gone === 0 ? result.at - sentAt : checkedAt + gone - sentAt;
    }
    return sample;
  } finally {
    p.tap = undefined;
  }
}

async function measure(ctx: BenchContext, s: Subject, kind: 'stream' | 'bash', cwd: string, url: string, scenarioFile: string): Promise<Sample[]> {
  const runs = ctx.quick ? 3 : 8;
  const { where, tmp } = toolPlace(ctx, `interrupt-${kind}`, s, cwd);
  const extra = kind === 'stream' ? ['--include-partial-messages'] : [];
  return using(start(s, where, toolStart(s, url, scenarioFile, tmp, extra)), async (p) => {
    await initialize(p);
    const samples: Sample[] = [];
    for (let i = 0; i <= runs; i++) {
      const one = await interruptedTurn(p, kind, String(i));
      if (i > 0) samples.push(one); // run 0 loads the tools and warms the paths
      await sleep(100);
    }
    return samples;
  });
}

export const interruptLatency: Benchmark = {
  name: 'interrupt-latency',
  description: `\`interrupt\` control_request written (a) while a reply streams (--include-partial-messages, after ${STREAM_EVENTS_FIRST} stream_event frames; 1000 deltas 5 ms apart) and (b) while a Bash \`${SLEEP}\` runs (its process seen in /proc) → the turn's \`result\` read, and → the interrupt's control_response read. For (b) also → result read *and* no live process left in the sleep's process group (polled in /proc). One process per case, one unmeasured interrupt first.`,
  async run(ctx) {
    const cwd = fixtureDir(ctx, 'interrupt', {});
    const scenarioFile = writeScenario(ctx, SCENARIO);
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const target = (s: Subject): Pick<Row, 'target'> => agentdTarget(s, '<=', 200);
    const row = (s: Subject, metric: string, values: number[], extra: Partial<Row> = {}): Row => {
      const st = summarize(values);
      return { bench: 'interrupt-latency', metric, subject: s.label, unit: 'ms', n: st.n, nLabel: 'interrupts', median: st.median, p90: st.p90, ...extra };
    };
    return ctx.withLoopback(SCENARIO, async (server) => {
      const rows: Row[] = [];
      for (const kind of ['stream', 'bash'] as const) {
        const what = kind === 'stream' ? 'streaming text' : 'running Bash sleep 30';
        const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({ bench: 'interrupt-latency', metric: `interrupt → result (${what})`, subject: s.label, unit: 'ms', ...target(s) });
        for (const s of subjects) {
          let samples: Sample[] = [];
          const first = await perSubject(ctx, [s], base, async () => {
            samples = await measure(ctx, s, kind, cwd, server.url, scenarioFile);
            const subtypes = [...new Set(samples.map((x) => x.subtype))].join(', ');
            return row(s, base(s).metric, samples.map((x) => x.toResult), { ...target(s), note: `${what}: result subtype ${subtypes}` });
          });
          rows.push(...first);
          if (first[0]?.failed !== undefined) continue;
          rows.push(row(s, `interrupt → control_response (${what})`, samples.map((x) => x.toResponse)));
          if (kind === 'bash') {
            const goneAtResult = samples.filter((x) => x.groupGoneAtResult === true).length;
            rows.push(
              row(s, `interrupt → result and the sleep's process group gone`, samples.map((x) => x.toGroupGone ?? Number.NaN), {
                ...target(s),
                note: `process group already gone when the result was read in ${goneAtResult} of ${samples.length} interrupts; gone within 5 s of the result in all of them`,
              }),
            );
          }
        }
      }
      return rows;
    });
  },
};
