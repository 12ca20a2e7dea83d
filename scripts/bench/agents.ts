// agent-first-request: how long agentd takes from an Agent tool call to its subagent's first model round. The
// scripted model answers in-process, so "the subagent's first frame" (its first tool_use, which carries the
// Agent call's id in parent_tool_use_id) bounds "its first model request" from above.
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
