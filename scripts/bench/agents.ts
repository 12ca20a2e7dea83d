// agent-first-request: how long agentd takes from an Agent tool call to its subagent's first model round. The
// scripted model answers in-process, so "the subagent's first frame" (its first tool_use, which carries the
// Agent call's id in parent_tool_use_id) bounds "its first model request" from above.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { perSubject, start, toolTurn, using } from './session.js';
import { isObject } from './proc.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { fixtureDir, writeScenario } from './tool-fixtures.js';
import { type Benchmark, type Row, agentdTarget } from './types.js';

const TRIGGER = 'bench agent';

export const agentFirstRequest: Benchmark = {
  name: 'agent-first-request',
  description:
    "one Agent call per turn (initialize.agents defines `bench`, tools ['Read']); the subagent reads one file and answers. Measured: the Agent tool_use `assistant` frame read → the subagent's first frame read (its Read tool_use, parent_tool_use_id set): agentd's whole share of starting a subagent (tool pipeline, toolset, thread, system prompt, request) plus an in-process scripted reply; after 2 warm-up turns. Resolution: frames that arrive in one stdout read share a timestamp (0 ms means the subagent's first round finished before agentd's writer flushed the Agent call's frame).",
  async run(ctx) {
    const turns = ctx.quick ? 5 : 30;
    const cwd = fixtureDir(ctx, 'agent', { 'a.txt': 'a\n' });
    const scenarioFile = writeScenario(ctx, {
      description: 'bench: one Agent call',
      rules: [
        { name: 'sub read', when: { system: 'bench subagent', hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'a.txt') } }] } },
        { name: 'sub done', when: { system: 'bench subagent', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'sub done' }] } },
        { name: 'agent', when: { lastUserText: TRIGGER, hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { description: 'bench', prompt: 'read a.txt', subagent_type: 'bench' } }] } },
        { name: 'after', when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    });
    const subjects = ctx.subjects(['agentd-scripted']);
    const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'agent-first-request',
      metric: 'Agent call → subagent first frame',
      subject: s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', 5),
    });
    return perSubject(ctx, subjects, base, async (s) => {
      const proc = start(s, { home: ctx.dir('agent-home-'), cwd }, { scenarioFile, extraArgs: ['--allowedTools', 'Read'], env: { TMPDIR: ctx.dir('agent-tmp-') } });
      return using(proc, async (p) => {
        p.send({ request_id: 'bench_agent_init', type: 'control_request', request: { subtype: 'initialize', systemPrompt: [''], agents: { bench: { description: 'bench agent', prompt: 'You are the bench subagent.', tools: ['Read'] } } } });
        await p.waitFor((f) => f['type'] === 'control_response' && isObject(f['response']) && f['response']['request_id'] === 'bench_agent_init', 30_000);
        const times: number[] = [];
        for (let i = 0; i < turns + 2; i++) {
          let callAt = Number.NaN;
          let subAt = Number.NaN;
          const turn = toolTurn(p, `${TRIGGER} ${i}`, 2);
          const inner = p.tap;
          p.tap = (t) => {
            if (t.frame['type'] === 'assistant') {
              const parent = t.frame['parent_tool_use_id'];
              if (parent === null && Number.isNaN(callAt)) callAt = t.at;
              else if (typeof parent === 'string' && Number.isNaN(subAt)) subAt = t.at;
            }
            inner?.(t);
          };
          await turn;
          if (i >= 2) times.push(subAt - callAt);
        }
        const st = summarize(times);
        return { ...base(s), n: times.length, nLabel: 'turns', median: st.median, p90: st.p90 };
      });
    });
  },
};

const PARALLEL = 10;

export const agentsParallelRss: Benchmark = {
  name: 'agents-parallel-rss',
  description: `${PARALLEL} Agent calls in one assistant message (initialize.agents defines \`bench\`, tools ['Read']); each subagent's first reply waits 300 ms (so all ${PARALLEL} are alive at once), then reads one file and answers. Measured per process: peak RSS (VmHWM, read after the turn) minus the idle RSS (VmRSS after initialize, one plain turn and 1 s idle; VmHWM reset there through /proc/<pid>/clear_refs, so the peak is the agents' turn's).`,
  async run(ctx) {
    const runs = ctx.quick ? 1 : 3;
    const cwd = fixtureDir(ctx, 'agents-rss', { 'a.txt': 'a\n'.repeat(200) });
    const calls = Array.from({ length: PARALLEL }, (_, i) => ({ type: 'tool_use' as const, name: 'Agent', input: { description: `bench ${i}`, prompt: `read a.txt (${i})`, subagent_type: 'bench' } }));
    const scenarioFile = writeScenario(ctx, {
      description: `bench: ${PARALLEL} parallel Agent calls`,
      rules: [
        { name: 'sub read', when: { system: 'bench subagent', hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'a.txt') } }], delays: { firstTokenMs: 300 } } },
        { name: 'sub done', when: { system: 'bench subagent', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'sub done' }] } },
        { name: 'agents', when: { lastUserText: TRIGGER, hasToolResults: false }, reply: { content: calls } },
        { name: 'after', when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
        { name: 'plain', reply: { content: [{ type: 'text', text: 'idle' }] } },
      ],
    });
    const subjects = ctx.subjects(['agentd-scripted']);
    const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'agents-parallel-rss',
      metric: `${PARALLEL} parallel subagents: peak RSS over idle`,
      subject: s.label,
      unit: 'MiB',
      ...agentdTarget(s, '<=', 30),
    });
    return perSubject(ctx, subjects, base, async (s) => {
      const deltas: number[] = [];
      const notes: string[] = [];
      for (let r = 0; r < runs; r++) {
        const proc = start(s, { home: ctx.dir('agents-rss-home-'), cwd }, { scenarioFile, extraArgs: ['--allowedTools', 'Read'], env: { TMPDIR: ctx.dir('agents-rss-tmp-') } });
        await using(proc, async (p) => {
          p.send({ request_id: 'bench_rss_init', type: 'control_request', request: { subtype: 'initialize', systemPrompt: [''], agents: { bench: { description: 'bench agent', prompt: 'You are the bench subagent.', tools: ['Read'] } } } });
          await p.waitFor((f) => f['type'] === 'control_response' && isObject(f['response']) && f['response']['request_id'] === 'bench_rss_init', 30_000);
          await toolTurn(p, 'hello', 0);
          await new Promise((res) => setTimeout(res, 1000));
          const idle = p.rssKiB();
          // Resets VmHWM to the current RSS (Linux clear_refs "5"), so the peak read after the turn is the turn's.
          writeFileSync(`/proc/${String(p.pid)}/clear_refs`, '5');
          await toolTurn(p, TRIGGER, PARALLEL * 2, 120_000);
          const peak = p.statusKiB('VmHWM');
          deltas.push((peak - idle) / 1024);
          notes.push(`idle ${(idle / 1024).toFixed(1)} MiB, peak ${(peak / 1024).toFixed(1)} MiB`);
        });
      }
      const st = summarize(deltas);
      return { ...base(s), n: deltas.length, nLabel: 'processes', median: st.median, p90: st.p90, note: notes.join('; ') };
    });
  },
};
