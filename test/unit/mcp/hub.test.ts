// The hub over the SDK-host transport, against a real MCP server (@modelcontextprotocol/sdk's Server) reached
// through an in-memory McpMessagePort: the handshake, tools in the registry, calls, progress, cancellation,
// timeouts, and a host that never answers.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpHub } from '../../../src/mcp/hub.js';
import type { McpMessagePort } from '../../../src/mcp/port.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { type HubOptions, callCtx, makeHub as makeSharedHub } from './support.js';
import type { AnyTool, ToolProgressUpdate } from '../../../src/tools/tool.js';

/** An MCP server the "host" runs, and the port agentd would reach it through. */
async function hostedServer(opts: { silent?: boolean } = {}) {
  const server = new Server({ name: 'hosted', version: '0.1.0' }, { capabilities: { tools: { listChanged: true } } });
  const started: string[] = [];
  const added: Array<{ name: string; inputSchema: { type: 'object' } }> = [];
  const cancelled: string[] = [];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: 'look up', description: 'Looks up', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, annotations: { readOnlyHint: true } },
      { name: 'wait', description: 'Waits until cancelled', inputSchema: { type: 'object' } },
      { name: 'big', description: 'Returns a lot', inputSchema: { type: 'object' } },
      ...added,
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    started.push(req.params.name);
    if (req.params.name === 'look up') {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: req.params._meta?.progressToken ?? 0, progress: 1, total: 2, message: 'halfway' } });
      return { content: [{ type: 'text', text: `found ${String(req.params.arguments?.['q'])}` }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] };
    }
    if (req.params.name === 'big') return { content: [{ type: 'text', text: 'x'.repeat(1000) }] };
    await new Promise<void>((r) => extra.signal.addEventListener('abort', () => r()));
    cancelled.push(req.params.name);
    return { content: [] };
  });
  const [hostSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const pending = new Map<string | number, (m: unknown) => void>();
  const withdrawn: unknown[] = [];
  let hub: McpHub | undefined;
  hostSide.onmessage = (m) => {
    const id = 'id' in m ? m.id : undefined;
    const waiter = id !== undefined && !('method' in m) ? pending.get(id) : undefined;
    if (waiter) {
      pending.delete(id as string | number);
      waiter(m);
    } else hub?.deliver('hosted', m);
  };
  await hostSide.start();
  const port: McpMessagePort = {
    send: (_server, message, o = {}) =>
      new Promise((resolve, reject) => {
        o.signal?.addEventListener('abort', () => {
          withdrawn.push(message['method']);
          reject(new Error('withdrawn'));
        });
        if (opts.silent) return;
        if ('method' in message && 'id' in message) pending.set(message['id'] as string | number, resolve);
        else resolve({ jsonrpc: '2.0', result: {}, id: 0 });
        void hostSide.send(message as never);
      }),
  };
  return { port, started, cancelled, withdrawn, attach: (h: McpHub) => (hub = h), server, added };
}

const makeHub = (tools: ToolRegistry, over: Partial<HubOptions> = {}) => makeSharedHub(tools, { connectTimeoutMs: 10_000, toolTimeoutMs: 10_000, ...over });
const ctx = callCtx;

const sdkSpec = { kind: 'sdk' as const, name: 'hosted', source: 'sdk' as const, config: { type: 'sdk' as const, name: 'hosted' } };

describe('McpHub with an SDK-host server', () => {
  it('handshakes, registers normalised tools with their JSON Schema, and calls them (progress, images)', async () => {
    const h = await hostedServer();
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools);
    h.attach(hub);
    hub.add([sdkSpec]);
    expect(hub.initList()).toEqual([{ name: 'hosted', status: 'pending', source: 'sdk' }]);
    hub.attachHost(h.port);
    await hub.settled(10_000);
    expect(hub.initList()).toEqual([{ name: 'hosted', status: 'connected', source: 'sdk' }]);
    expect(tools.names()).toEqual(['mcp__hosted__look_up', 'mcp__hosted__wait', 'mcp__hosted__big']);
    const lookUp = tools.get('mcp__hosted__look_up') as AnyTool;
    expect(tools.definitions()[0]).toEqual({
      name: 'mcp__hosted__look_up',
      description: 'Looks up',
      input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    });
    expect([lookUp.isConcurrencySafe({}), (tools.get('mcp__hosted__wait') as AnyTool).isConcurrencySafe({})]).toEqual([true, false]);
    expect(await lookUp.validateInput?.({ q: 3 }, {} as never)).toEqual({ ok: false, message: 'InputValidationError: mcp__hosted__look_up input does not match its schema: /q must be string' });
    const progress: ToolProgressUpdate[] = [];
    const out = await lookUp.call({ q: 'x' }, ctx(undefined, progress));
    expect(out.content).toEqual([
      { type: 'text', text: 'found x' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ]);
    expect(progress).toEqual([{ kind: 'output', output: 'halfway\n', progress: 1, total: 2 }]);
    expect(hub.status()[0]).toMatchObject({ name: 'hosted', status: 'connected', serverInfo: { name: 'hosted', version: '0.1.0' }, source: 'sdk' });
    await hub.close();
  });

  it('an interrupt cancels the call on the server (notifications/cancelled) and withdraws the host request', async () => {
    const h = await hostedServer();
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools);
    h.attach(hub);
    hub.add([sdkSpec]);
    hub.attachHost(h.port);
    await hub.settled(10_000);
    const ac = new AbortController();
    const call = (tools.get('mcp__hosted__wait') as AnyTool).call({}, ctx(ac.signal));
    const settled = call.then(
      () => 'resolved',
      () => 'rejected',
    );
    while (h.started.length === 0) await new Promise((r) => setImmediate(r));
    ac.abort();
    expect(await settled).toBe('rejected');
    while (h.cancelled.length === 0) await new Promise((r) => setImmediate(r));
    expect(h.cancelled).toEqual(['wait']);
    expect(h.withdrawn).toContain('tools/call');
    await hub.close();
  });

  it('MCP_TOOL_TIMEOUT: a call over the limit is an error naming the server', async () => {
    const h = await hostedServer();
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools, { toolTimeoutMs: 50 });
    h.attach(hub);
    hub.add([sdkSpec]);
    hub.attachHost(h.port);
    await hub.settled(10_000);
    await expect((tools.get('mcp__hosted__wait') as AnyTool).call({}, ctx())).rejects.toThrow(/^MCP server "hosted" failed to run wait: MCP error -32001: Request timed out/);
    await hub.close();
  });

  it('MAX_MCP_OUTPUT_TOKENS: text over the cap is cut with a marker', async () => {
    const h = await hostedServer();
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools, { maxOutputChars: 100 });
    h.attach(hub);
    hub.add([sdkSpec]);
    hub.attachHost(h.port);
    await hub.settled(10_000);
    const out = await (tools.get('mcp__hosted__big') as AnyTool).call({}, ctx());
    expect(out.content).toBe(`${'x'.repeat(100)}\n\n[agentd: MCP tool output cut at 100 of 1000 characters (MAX_MCP_OUTPUT_TOKENS)]`);
    await hub.close();
  });

  it('an SDK server whose host never answers is failed after MCP_TIMEOUT, and the request is withdrawn', async () => {
    const h = await hostedServer({ silent: true });
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools, { connectTimeoutMs: 100 });
    hub.add([sdkSpec]);
    hub.attachHost(h.port);
    await hub.settled(10_000);
    expect(hub.initList()).toEqual([{ name: 'hosted', status: 'failed', source: 'sdk', error: expect.stringMatching(/timed out/i) }]);
    expect(h.withdrawn).toContain('initialize');
    expect(tools.names()).toEqual([]);
  });

  it('one-shot mode has no host: SDK servers fail at once; invalid entries fail with their reason', () => {
    const hub = makeHub(new ToolRegistry([]));
    hub.noHost('no host');
    hub.add([sdkSpec, { kind: 'invalid', name: 'bad', source: 'dynamic', reason: 'unknown server type "ws"', config: {} }]);
    expect(hub.initList()).toEqual([
      { name: 'hosted', status: 'failed', source: 'sdk', error: 'no host' },
      { name: 'bad', status: 'failed', source: 'dynamic', error: 'unknown server type "ws"' },
    ]);
  });

  it('notifications/tools/list_changed: the toolset is listed again and the registry follows', async () => {
    const h = await hostedServer();
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools);
    h.attach(hub);
    hub.add([sdkSpec]);
    hub.attachHost(h.port);
    await hub.settled(10_000);
    h.added.push({ name: 'fresh', inputSchema: { type: 'object' } });
    await h.server.sendToolListChanged();
    while (!tools.get('mcp__hosted__fresh')) await new Promise((r) => setImmediate(r));
    expect(tools.names()).toEqual(['mcp__hosted__look_up', 'mcp__hosted__wait', 'mcp__hosted__big', 'mcp__hosted__fresh']);
    expect(hub.status()[0]?.tools?.map((t) => t.name)).toEqual(['look up', 'wait', 'big', 'fresh']);
    await hub.close();
  });
});

describe('McpHub permission-mode overrides', () => {
  it('stores and clears an override by name, known server or not', () => {
    const hub = makeSharedHub(new ToolRegistry([]));
    hub.add([{ kind: 'invalid', name: 'web', source: 'dynamic', reason: 'x', config: {} }]);
    expect(hub.setModeOverride('web', 'default')).toBe(true);
    expect(hub.setModeOverride('later', 'auto')).toBe(false);
    expect([hub.modeOverride('web'), hub.modeOverride('later'), hub.modeOverride('other')]).toEqual(['default', 'auto', undefined]);
    expect(hub.setModeOverride('web', null)).toBe(true);
    expect(hub.modeOverride('web')).toBeUndefined();
  });
});

describe('McpHub per-tool policies', () => {
  it('come from the definition; mcp_set_servers replaces them (no entry: none) and keeps the SDK connection', async () => {
    const h = await hostedServer();
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools);
    h.attach(hub);
    hub.add([{ ...sdkSpec, config: { ...sdkSpec.config, tools: [{ name: 'look up', permission_policy: 'always_deny' }, { name: 'wait', permission_policy: 'always_allow' }] } }]);
    hub.attachHost(h.port);
    await hub.settled(10_000);
    const before = tools.get('mcp__hosted__big');
    // always_allow is not honoured for an SDK server; names are matched after normalisation.
    expect([hub.toolPolicy('hosted', 'mcp__hosted__look_up'), hub.toolPolicy('hosted', 'mcp__hosted__wait'), hub.toolPolicy('other', 'mcp__other__x')]).toEqual(['always_deny', undefined, undefined]);
    expect(await hub.setServers([{ ...sdkSpec, config: { type: 'sdk', name: 'hosted', tools: [{ name: 'big', permission_policy: 'always_ask' }] } }])).toEqual({ added: [], removed: [], errors: {} });
    expect([hub.toolPolicy('hosted', 'mcp__hosted__look_up'), hub.toolPolicy('hosted', 'mcp__hosted__big')]).toEqual([undefined, 'always_ask']);
    await hub.setServers([sdkSpec]);
    expect(hub.toolPolicy('hosted', 'mcp__hosted__big')).toBeUndefined();
    // The same connection throughout: the tool objects were not replaced.
    expect(tools.get('mcp__hosted__big')).toBe(before);
    expect(hub.initList()).toEqual([{ name: 'hosted', status: 'connected', source: 'sdk' }]);
    await hub.close();
  });
});

describe('a withheld server (a repository server nobody approved)', () => {
  it('is listed disabled with why, never loads the MCP runtime, and neither reconnect nor toggle starts it', async () => {
    let loads = 0;
    const hub = makeSharedHub(new ToolRegistry([]), {
      load: async () => {
        loads++;
        throw new Error('the runtime must not be loaded for a withheld server');
      },
    });
    const config = { command: 'evil', args: ['--x'], env: { K: '${ANTHROPIC_API_KEY}' } };
    hub.add([{ kind: 'withheld', name: 'evil', source: 'project', reason: 'not trusted', config }]);
    hub.start();
    await hub.settled(1000);
    const row = { name: 'evil', status: 'disabled', error: 'not trusted', config: { type: 'stdio', command: 'evil', args: ['--x'] }, scope: 'project', source: 'project' };
    expect(hub.status()).toEqual([row]);
    expect(hub.initList()).toEqual([{ name: 'evil', status: 'disabled', source: 'project', error: 'not trusted' }]);
    const refusal = '"evil" is a project-scope MCP server (.mcp.json) that is not approved for this project. not trusted';
    expect(await hub.reconnect('evil')).toBe(refusal);
    expect(await hub.toggle('evil', true)).toBe(refusal);
    expect(await hub.toggle('evil', false)).toBeUndefined();
    expect(hub.status()).toEqual([row]);
    expect(hub.toolPolicy('evil', 'mcp__evil__x')).toBeUndefined();
    expect(loads).toBe(0);
  });
});
