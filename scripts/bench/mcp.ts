// SDK MCP tool round trip: the bench is the SDK host of an in-process MCP server `bench` (initialize.sdkMcpServers)
// and answers agentd's `mcp_message` requests at once; the scripted model calls `mcp__bench__ping`. Measured: the
// host's tools/call answer written → the tool_result `user` frame read (agentd's whole share of the call: reading
// the answer, mapping the result, PostToolUse, the frame).
import { perSubject, start, toolTurn, using } from './session.js';
import { type Frame, type TimedFrame, isObject } from './proc.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { fixtureDir, toolScenario, writeScenario } from './tool-fixtures.js';
import { type Benchmark, type Row, agentdTarget } from './types.js';

const TRIGGER = 'bench sdk-mcp';

/** Answers one `mcp_message` control request as the TS SDK's in-process server would. */
function answer(frame: Frame): Frame | undefined {
  const req = frame['request'];
  if (frame['type'] !== 'control_request' || !isObject(req) || req['subtype'] !== 'mcp_message') return undefined;
  const m = req['message'];
  if (!isObject(m)) return undefined;
  const reply = (mcp_response: unknown): Frame => ({ type: 'control_response', response: { subtype: 'success', request_id: frame['request_id'], response: { mcp_response } } });
  const id = m['id'];
  switch (m['method']) {
    case 'initialize': {
      const params = isObject(m['params']) ? m['params'] : {};
      return reply({ jsonrpc: '2.0', id, result: { protocolVersion: params['protocolVersion'], capabilities: { tools: {} }, serverInfo: { name: 'bench', version: '1.0.0' } } });
    }
    case 'tools/list':
      return reply({ jsonrpc: '2.0', id, result: { tools: [{ name: 'ping', description: 'Answers pong', inputSchema: { type: 'object', properties: {} } }] } });
    case 'tools/call':
      return reply({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'pong' }] } });
    default:
      return reply({ jsonrpc: '2.0', result: {}, id: 0 });
  }
}

export const sdkMcpRoundTrip: Benchmark = {
  name: 'sdk-mcp-round-trip',
  description:
    'an in-process (SDK) MCP server hosted by the bench (initialize.sdkMcpServers, every mcp_message answered at once); the scripted model calls its tool once per turn. Measured: the host\'s tools/call answer written → the tool_result `user` frame read, after 2 warm-up turns.',
  async run(ctx) {
    const turns = ctx.quick ? 5 : 30;
    const cwd = fixtureDir(ctx, 'sdk-mcp', {});
    const scenarioFile = writeScenario(ctx, toolScenario('bench: one SDK MCP tool call', TRIGGER, [{ type: 'tool_use', name: 'mcp__bench__ping', input: {} }]));
    const subjects = ctx.subjects(['agentd-scripted']);
    const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'sdk-mcp-round-trip',
      metric: 'host tools/call answer → tool_result frame',
      subject: s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', 2),
    });
    return perSubject(ctx, subjects, base, async (s) => {
      const proc = start(s, { home: ctx.dir('sdk-mcp-home-'), cwd }, { scenarioFile, extraArgs: ['--allowedTools', 'mcp__bench'], env: { TMPDIR: ctx.dir('sdk-mcp-tmp-') } });
      return using(proc, async (p) => {
        let answeredAt = Number.NaN;
        let toolResultAt = Number.NaN;
        // The host side: answer mcp_message requests as they arrive (also during initialize and toolTurn).
        const host = (t: TimedFrame): void => {
          const a = answer(t.frame);
          if (!a) return;
          const m = (t.frame['request'] as Frame)['message'] as Frame;
          p.send(a);
          if (m['method'] === 'tools/call') answeredAt = performance.now();
        };
        const installHost = (): void => {
          const inner = p.tap;
          p.tap = (t) => {
            host(t);
            if (t.frame['type'] === 'user' && Number.isNaN(toolResultAt) && !Number.isNaN(answeredAt)) toolResultAt = t.at;
            inner?.(t);
          };
        };
        p.tap = host;
        p.send({ request_id: 'bench_mcp_init', type: 'control_request', request: { subtype: 'initialize', systemPrompt: [''], sdkMcpServers: ['bench'] } });
        await p.waitFor((f) => f['type'] === 'control_response' && isObject(f['response']) && f['response']['request_id'] === 'bench_mcp_init', 30_000);
        const times: number[] = [];
        for (let i = 0; i < turns + 2; i++) {
          answeredAt = Number.NaN;
          toolResultAt = Number.NaN;
          // toolTurn installs its own tap; chain ours in front of it once it has.
          const turn = toolTurn(p, `${TRIGGER} ${i}`, 1);
          installHost();
          await turn;
          if (i >= 2) times.push(toolResultAt - answeredAt);
          p.tap = host;
        }
        const st = summarize(times);
        return { ...base(s), n: times.length, nLabel: 'turns', median: st.median, p90: st.p90 };
      });
    });
  },
};
