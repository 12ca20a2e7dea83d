// An SDK ("in-process") MCP server served by a host written here at the wire, frame by frame, so what the TS SDK
// does not control can be: when the host answers the handshake, and what initialize carries
// (`sdkMcpServerConfigs` per-tool policies and timeout, `sdkMcpServerManifests`).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/types.js';
import { type Daemon, STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';

const running: Daemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) {
    d.endInput();
    await d.exited;
  }
});

interface Host {
  d: Daemon;
  requests(): ModelRequest[];
  /** The JSON-RPC methods the daemon sent to the host's server, in order (`tools/call` with the tool's name). */
  methods: string[];
}

/**
 * A daemon on the scripted model (it calls mcp__host__ping, then says what it saw), and a host serving the SDK
 * server `host` with one tool, `ping`: handshake answers wait `handshakeDelayMs`; `tools/call` is answered
 * unless `hangCalls`; `can_use_tool` is answered with `canUseTool`.
 */
function host(o: { args?: string[]; handshakeDelayMs?: number; hangCalls?: boolean; canUseTool?: 'allow' | 'deny' } = {}): Host {
  const dir = tempDir('agentd-sdkhost-');
  const scenario = join(dir, 'scenario.json');
  const record = join(dir, 'requests.ndjson');
  writeFileSync(
    scenario,
    JSON.stringify({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_p', name: 'mcp__host__ping', input: { n: 1 } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'saw: {{lastToolResult}}' }] } },
      ],
    }),
  );
  const d = startDaemon({ args: [...STREAM_ARGS, ...(o.args ?? [])], env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_SCENARIO: scenario, AGENTD_SCENARIO_RECORD: record }) });
  running.push(d);
  const methods: string[] = [];
  const reply = (requestId: unknown, response: Record<string, unknown>): void => {
    d.send({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } });
  };
  d.tap.onFrame((f) => {
    if (f['type'] !== 'control_request') return;
    const id = f['request_id'];
    const req = f['request'] as Record<string, unknown>;
    if (req['subtype'] === 'can_use_tool') {
      reply(id, o.canUseTool === 'allow' ? { behavior: 'allow', updatedInput: req['input'] } : { behavior: 'deny', message: 'the host says no' });
      return;
    }
    if (req['subtype'] !== 'mcp_message') return;
    const m = req['message'] as { id?: number; method: string; params?: { name?: string } };
    methods.push(m.method === 'tools/call' ? `tools/call ${String(m.params?.name)}` : m.method);
    const answer = (result: unknown): void => reply(id, { mcp_response: { jsonrpc: '2.0', id: m.id ?? 0, result } });
    const later = (fn: () => void): void => void setTimeout(fn, o.handshakeDelayMs ?? 0);
    switch (m.method) {
      case 'initialize':
        later(() => answer({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'host', version: '1.0.0' } }));
        break;
      case 'tools/list':
        later(() => answer({ tools: [{ name: 'ping', description: 'Pings', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }] }));
        break;
      case 'tools/call':
        if (!o.hangCalls) answer({ content: [{ type: 'text', text: 'pong' }] });
        break;
      default:
        answer({});
    }
  });
  const requests = (): ModelRequest[] => {
    try {
      return readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ModelRequest);
    } catch {
      return [];
    }
  };
  return { d, requests, methods };
}

/** initialize and the prompt in one write, as a fast host sends them; resolves with the turn's result frame. */
async function turn(h: Host, initialize: Record<string, unknown>): Promise<Record<string, unknown>> {
  h.d.sendRaw(`${JSON.stringify(initializeFrame('init', initialize))}\n${JSON.stringify(userFrame('ping it'))}\n`);
  return h.d.waitFor((f) => f['type'] === 'result', 20_000);
}

const toolResult = (h: Host): unknown => {
  const last = h.requests()[1]?.messages.at(-1);
  return Array.isArray(last?.content) ? last.content[0] : undefined;
};

describe('SDK MCP servers at the wire', () => {
  it('the first model request waits for a server initialize declared, even when the prompt came in the same write', async () => {
    const h = host({ handshakeDelayMs: 300, args: ['--allowedTools', 'mcp__host'] });
    // A host slower to start than the daemon (an SDK app under load): the daemon is idle and its tools loaded
    // before initialize comes. No frame says so; a second is ample on any machine.
    await new Promise((r) => setTimeout(r, 1000));
    const result = await turn(h, { sdkMcpServers: ['host'] });
    expect(h.requests()[0]?.tools?.map((t) => t.name)).toContain('mcp__host__ping');
    expect(h.methods).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call ping']);
    expect(result).toMatchObject({ subtype: 'success', result: 'saw: pong' });
  });

  it('sdkMcpServerConfigs always_deny: the call is denied even with an allow rule, and never reaches the host', async () => {
    const h = host({ args: ['--allowedTools', 'mcp__host'] });
    const result = await turn(h, { sdkMcpServers: ['host'], sdkMcpServerConfigs: { host: { tools: [{ name: 'ping', permission_policy: 'always_deny' }] } } });
    expect(h.methods).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(toolResult(h)).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_p',
      is_error: true,
      content: "mcp__host__ping was denied: the host's permission policy for this MCP tool is always_deny.",
    });
    expect(result).toMatchObject({ subtype: 'success', permission_denials: [{ tool_name: 'mcp__host__ping', tool_use_id: 'toolu_p', tool_input: { n: 1 } }] });
  });

  it('always_ask: the host is asked even under bypassPermissions; its deny means the tool never runs, its allow runs it', async () => {
    const configs = { host: { tools: [{ name: 'ping', permission_policy: 'always_ask' }] } };
    const denied = host({ args: ['--dangerously-skip-permissions', '--permission-prompt-tool', 'stdio'], canUseTool: 'deny' });
    await turn(denied, { sdkMcpServers: ['host'], sdkMcpServerConfigs: configs });
    expect(denied.d.tap.frames.filter((f) => (f['request'] as { subtype?: string } | undefined)?.subtype === 'can_use_tool')).toHaveLength(1);
    expect(denied.methods).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(toolResult(denied)).toMatchObject({ is_error: true, content: 'the host says no' });

    const allowed = host({ args: ['--allowedTools', 'mcp__host', '--permission-prompt-tool', 'stdio'], canUseTool: 'allow' });
    const result = await turn(allowed, { sdkMcpServers: ['host'], sdkMcpServerConfigs: configs });
    expect(allowed.d.tap.frames.filter((f) => (f['request'] as { subtype?: string } | undefined)?.subtype === 'can_use_tool')).toHaveLength(1);
    expect(result).toMatchObject({ subtype: 'success', result: 'saw: pong' });
  });

  it('always_ask under dontAsk is denied; a malformed policy list is read leniently (an unknown policy asks)', async () => {
    const h = host({ args: ['--permission-mode', 'dontAsk', '--allowedTools', 'mcp__host'] });
    await turn(h, { sdkMcpServers: ['host'], sdkMcpServerConfigs: { host: { tools: [{ permission_policy: 'always_deny' }, 7, { name: 'ping', permission_policy: 'sometimes' }] } } });
    expect(h.methods).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(toolResult(h)).toMatchObject({ is_error: true, content: expect.stringContaining('dontAsk') });
  });

  it("sdkMcpServerConfigs timeout bounds each call (the host never answers); manifests are answered not_honoured", async () => {
    const h = host({ hangCalls: true, args: ['--allowedTools', 'mcp__host'] });
    h.d.sendRaw(
      `${JSON.stringify(initializeFrame('init', { sdkMcpServers: ['host'], sdkMcpServerConfigs: { host: { timeout: 1000 } }, sdkMcpServerManifests: { host: { initializeResult: {} }, other: { initializeResult: {} } } }))}\n`,
    );
    const init = await h.d.waitFor((f) => f['type'] === 'control_response');
    expect((init['response'] as { response: Record<string, unknown> }).response['sdk_mcp_manifests_parked']).toEqual({ host: 'not_honoured' });
    const started = Date.now();
    h.d.send(userFrame('ping it'));
    await h.d.waitFor((f) => f['type'] === 'result', 20_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(toolResult(h)).toMatchObject({ is_error: true, content: expect.stringMatching(/MCP server "host" failed to run ping: .*timed out/i) });
    // The abandoned call was withdrawn from the host.
    expect(h.d.tap.frames.some((f) => f['type'] === 'control_cancel_request')).toBe(true);
  });
});
