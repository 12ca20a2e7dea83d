// MCP benchmarks. sdk-mcp-round-trip: the bench is the SDK host of an in-process MCP server `bench` (initialize.sdkMcpServers)
// and answers agentd's `mcp_message` requests at once; the scripted model calls `mcp__bench__ping`. Measured: the
// host's tools/call answer written → the tool_result `user` frame read (agentd's whole share of the call: reading
// the answer, mapping the result, PostToolUse, the frame). mcp-stdio-10: start-up, first result and memory with
// ten stdio servers configured.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { awaitResult, initialize, perSubject, place, start, toolTurn, using } from './session.js';
import { SHORT_REPLY } from './startup.js';
import { type Frame, type TimedFrame, isObject, userFrame } from './proc.js';
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

const SERVERS = 10;

/** agentd's arguments for the 10 fixture servers (also used by init-instructions). */
export function stdioServersArgs(root: string): string[] {
  const fixture = join(root, 'test/fixtures/mcp-stdio-server.mjs');
  const config = JSON.stringify({ mcpServers: Object.fromEntries(Array.from({ length: SERVERS }, (_, i) => [`s${i}`, { command: process.execPath, args: [fixture] }])) });
  return ['--mcp-config', config, '--strict-mcp-config'];
}

/** ms from spawning `count` fixture servers together to the last one's tools/list answer. */
async function timeHandshakes(fixture: string, count: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: count }, () => timeHandshake(fixture)));
  return performance.now() - t0;
}

/** ms from spawning one fixture server to its tools/list answer (initialize, initialized, tools/list written at once). */
function timeHandshake(fixture: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    c.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      if (buf.split('\n').some((l) => l.includes('"id":2'))) {
        const t = performance.now() - t0;
        c.kill('SIGKILL');
        resolve(t);
      }
    });
    c.on('error', reject);
    const msgs = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    c.stdin.write(msgs.map((m) => `${JSON.stringify(m)}\n`).join(''));
  });
}

export const mcpStdio10: Benchmark = {
  name: 'mcp-stdio-10',
  description: `${SERVERS} stdio MCP servers (test/fixtures/mcp-stdio-server.mjs, a Node process each) in --mcp-config --strict-mcp-config: spawn → initialize answered (servers start in the background), spawn → first result of a short turn (it waits for the servers), and the daemon's RSS per connected server (RSS after the first result with ${SERVERS} servers minus without, ÷ ${SERVERS}). The servers' own handshakes (spawn → tools/list answered) are timed without a client, one alone and ${SERVERS} started together; the slowest of those together + 20 ms is the first result's target.`,
  async run(ctx) {
    const n = ctx.quick ? 3 : 8;
    const fixture = join(ctx.root, 'test/fixtures/mcp-stdio-server.mjs');
    const args = stdioServersArgs(ctx.root);
    const alone: number[] = [];
    for (let i = 0; i <= n; i++) {
      const t = await timeHandshake(fixture);
      if (i > 0) alone.push(t);
    }
    const handshake = summarize(alone);
    // The servers' own cost when they start together, as they do under any client: on a machine with fewer cores
    // than servers, their start-up (Node + the MCP SDK, ~all CPU) is shared, so the slowest handshake is this.
    // Timed right before each client run (interleaved), so both see the same machine.
    const together: number[] = [];
    const slowestMedian = (): number => (together.length ? summarize(together).median : handshake.median);
    const rows: Row[] = [
      { bench: 'mcp-stdio-10', metric: 'one server alone: spawn → tools/list answered', subject: 'node mcp-stdio-server.mjs', unit: 'ms', n: handshake.n, nLabel: 'runs', median: handshake.median, p90: handshake.p90 },
    ];
    const subjects = ctx.subjects(['agentd', 'claude']);
    const initBase = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({ bench: 'mcp-stdio-10', metric: `spawn → initialize answered (${SERVERS} servers)`, subject: s.label, unit: 'ms', ...agentdTarget(s, '<=', 45) });
    const firstBase = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'mcp-stdio-10',
      metric: `spawn → first result (${SERVERS} servers)`,
      subject: s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', Math.round(slowestMedian() + 20)),
      note: `target: the slowest server's own handshake (${SERVERS} started together, no client) + 20 ms`,
    });
    const rssBase = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({ bench: 'mcp-stdio-10', metric: 'RSS per connected server', subject: s.label, unit: 'MiB', ...agentdTarget(s, '<=', 1) });
    await ctx.withLoopback(SHORT_REPLY, async (server) => {
      for (const s of subjects) {
        const where = place(ctx, 'mcp-stdio-10', s);
        const launch = (extra: string[]) => start(s, where, { extraArgs: extra, ...(s.usesLoopback ? { baseUrl: server.url } : {}) });
        rows.push(
          ...(await perSubject(ctx, [s], initBase, async () => {
            const times: number[] = [];
            for (let i = 0; i <= n; i++) {
              const t = await using(launch(args), async (p) => (await initialize(p)).at - p.spawnedAt);
              if (i > 0) times.push(t);
            }
            const st = summarize(times);
            return { ...initBase(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 };
          })),
        );
        const withRss: number[] = [];
        const withoutRss: number[] = [];
        rows.push(
          ...(await perSubject(ctx, [s], firstBase, async () => {
            const times: number[] = [];
            const timesWithout: number[] = [];
            for (let i = 0; i <= n; i++) {
              for (const withServers of [true, false]) {
                const baseline = withServers ? await timeHandshakes(fixture, SERVERS) : 0;
                if (withServers && i > 0) together.push(baseline);
                await using(launch(withServers ? args : ['--strict-mcp-config']), async (p) => {
                  const init = initialize(p);
                  p.send(userFrame('Say ok.'));
                  await init;
                  const r = await awaitResult(p);
                  if (i === 0) return;
                  (withServers ? times : timesWithout).push(r.at - p.spawnedAt);
                  (withServers ? withRss : withoutRss).push(p.rssKiB() / 1024);
                });
              }
            }
            const st = summarize(times);
            // The daemon starts the servers once it has started itself: its own first result without servers
            // (same runs, alternating) shows how much of the figure comes before any server exists.
            const without = summarize(timesWithout).median;
            const note = `${firstBase(s).note ?? ''}; the same turn with no servers (alternating runs): ${without.toFixed(1)} ms`;
            return { ...firstBase(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90, note };
          })),
        );
        if (withRss.length && withoutRss.length) {
          const per = (summarize(withRss).median - summarize(withoutRss).median) / SERVERS;
          rows.push({ ...rssBase(s), n: withRss.length, nLabel: 'runs', median: per });
        }
      }
    });
    if (together.length) {
      const st = summarize(together);
      rows.splice(1, 0, {
        bench: 'mcp-stdio-10',
        metric: `${SERVERS} servers started together, no client: spawn → the last tools/list answered`,
        subject: 'node mcp-stdio-server.mjs',
        unit: 'ms',
        n: st.n,
        nLabel: 'runs',
        median: st.median,
        p90: st.p90,
      });
    }
    return rows;
  },
};
