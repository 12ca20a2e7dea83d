// Remote MCP servers on 127.0.0.1 (no network): Streamable HTTP and SSE, with headers from the config, through
// the hub's real client transports.
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpHub } from '../../../src/mcp/hub.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { callCtx, makeHub } from './support.js';
import type { AnyTool, ToolCallContext } from '../../../src/tools/tool.js';

function mcpServer(seenAuth: string[]): Server {
  const s = new Server({ name: 'remote', version: '3.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'ping', description: 'Pings', inputSchema: { type: 'object' } }] }));
  s.setRequestHandler(CallToolRequestSchema, async (_req, extra) => {
    seenAuth.push(String(extra.requestInfo?.headers['authorization'] ?? ''));
    return { content: [{ type: 'text', text: 'pong' }] };
  });
  return s;
}

const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => unknown): Promise<string> {
  // Handlers may be async (http ignores what they return; a rejection surfaces as vitest's unhandled error).
  const srv = createServer((req, res) => void handler(req, res));
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

function hubWith(tools: ToolRegistry): McpHub {
  const hub = makeHub(tools);
  hub.start();
  return hub;
}

const ctx = (): ToolCallContext => callCtx();

describe('remote MCP servers', () => {
  it('Streamable HTTP: handshake, headers sent, tool called', async () => {
    const seen: string[] = [];
    const base = await listen(async (req, res) => {
      // Stateless: a server and transport per request, as the SDK's examples do.
      const server = mcpServer(seen);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    const tools = new ToolRegistry([]);
    const hub = hubWith(tools);
    hub.add([{ kind: 'remote', name: 'web', source: 'dynamic', config: { type: 'http', url: `${base}/mcp`, headers: { Authorization: 'Bearer t0k' } } }]);
    await hub.settled(20_000);
    expect(hub.status()[0]).toMatchObject({ name: 'web', status: 'connected', serverInfo: { name: 'remote', version: '3.0.0' }, config: { type: 'http', url: `${base}/mcp` } });
    expect((await (tools.get('mcp__web__ping') as AnyTool).call({}, ctx())).content).toBe('pong');
    expect(seen).toEqual(['Bearer t0k']);
    await hub.close();
  });

  it('SSE: handshake and tool call', async () => {
    const seen: string[] = [];
    const transports = new Map<string, SSEServerTransport>();
    const base = await listen(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'GET' && url.pathname === '/sse') {
        const t = new SSEServerTransport('/messages', res);
        transports.set(t.sessionId, t);
        await mcpServer(seen).connect(t);
        return;
      }
      const t = transports.get(url.searchParams.get('sessionId') ?? '');
      if (!t) {
        res.writeHead(404).end();
        return;
      }
      await t.handlePostMessage(req, res);
    });
    const tools = new ToolRegistry([]);
    const hub = hubWith(tools);
    hub.add([{ kind: 'remote', name: 'old', source: 'dynamic', config: { type: 'sse', url: `${base}/sse`, headers: { Authorization: 'Bearer s5e' } } }]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'old', status: 'connected', source: 'dynamic' }]);
    expect((await (tools.get('mcp__old__ping') as AnyTool).call({}, ctx())).content).toBe('pong');
    expect(seen).toEqual(['Bearer s5e']);
    await hub.close();
    for (const t of transports.values()) await t.close();
  });

  it('a refused connection is failed with the reason', async () => {
    const base = await listen((_req, res) => res.writeHead(500).end('down'));
    const hub = hubWith(new ToolRegistry([]));
    hub.add([{ kind: 'remote', name: 'down', source: 'dynamic', config: { type: 'http', url: `${base}/mcp` } }]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'down', status: 'failed', source: 'dynamic', error: 'Streamable HTTP error: Error POSTing to endpoint: down' }]);
  });

  it('a 401 (Streamable HTTP) is needs-auth with the reason, not failed; mcp_toggle retries it', async () => {
    const base = await listen((_req, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('token please'));
    const tools = new ToolRegistry([]);
    const hub = hubWith(tools);
    hub.add([{ kind: 'remote', name: 'locked', source: 'dynamic', config: { type: 'http', url: `${base}/mcp` } }]);
    await hub.settled(20_000);
    const error =
      'the server answered 401 Unauthorized (Streamable HTTP error: Error POSTing to endpoint: token please); authenticate with mcp_authenticate (the SDK\'s mcpAuthenticate) or put a token in the server\'s "headers"';
    expect(hub.initList()).toEqual([{ name: 'locked', status: 'needs-auth', source: 'dynamic', error }]);
    expect(hub.status()).toEqual([{ name: 'locked', status: 'needs-auth', error, config: { type: 'http', url: `${base}/mcp` }, scope: 'dynamic', source: 'dynamic' }]);
    expect(await hub.toggle('locked', true)).toBe(error);
    expect(hub.initList()[0]?.status).toBe('needs-auth');
    await hub.close();
  });

  it('a 401 (SSE) is needs-auth', async () => {
    const base = await listen((_req, res) => res.writeHead(401).end());
    const hub = hubWith(new ToolRegistry([]));
    hub.add([{ kind: 'remote', name: 'locked', source: 'dynamic', config: { type: 'sse', url: `${base}/sse` } }]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([
      { name: 'locked', status: 'needs-auth', source: 'dynamic', error: expect.stringMatching(/^the server answered 401 Unauthorized \(SSE error: .*\); authenticate with mcp_authenticate/) },
    ]);
    await hub.close();
  });

  it('Streamable HTTP: a server that restarted (404 for the session) is redialled and its tools come back', async () => {
    const seen: string[] = [];
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    let starts = 0;
    const base = await listen(async (req, res) => {
      const sid = req.headers['mcp-session-id'];
      if (typeof sid === 'string') {
        const t = sessions.get(sid);
        if (!t) {
          res.writeHead(404).end('unknown session');
          return;
        }
        await t.handleRequest(req, res);
        return;
      }
      starts++;
      const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => `s${starts}`, onsessioninitialized: (id) => void sessions.set(id, t) });
      await mcpServer(seen).connect(t);
      await t.handleRequest(req, res);
    });
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools, { redialDelaysMs: [0] });
    hub.start();
    hub.add([{ kind: 'remote', name: 'web', source: 'dynamic', config: { type: 'http', url: `${base}/mcp` } }]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'web', status: 'connected', source: 'dynamic' }]);
    const ping = tools.get('mcp__web__ping') as AnyTool;
    // The server "restarts": every session it had is gone.
    for (const t of sessions.values()) await t.close();
    sessions.clear();
    await expect(ping.call({}, ctx())).rejects.toThrow(/unknown session/);
    expect(hub.initList()).toEqual([
      { name: 'web', status: 'pending', source: 'dynamic', error: expect.stringMatching(/^disconnected: the server no longer knows the session \(.*unknown session\); redialling \(1 of 1\)$/) },
    ]);
    expect(tools.get('mcp__web__ping')).toBeUndefined();
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'web', status: 'connected', source: 'dynamic' }]);
    expect((await (tools.get('mcp__web__ping') as AnyTool).call({}, ctx())).content).toBe('pong');
    expect(starts).toBe(2);
    await hub.close();
    for (const t of sessions.values()) await t.close();
  });

  it('Streamable HTTP: a server that is gone is redialled, then failed with both reasons', async () => {
    const base = await listen(async (req, res) => {
      const server = mcpServer([]);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    const tools = new ToolRegistry([]);
    const hub = makeHub(tools, { redialDelaysMs: [0] });
    hub.start();
    hub.add([{ kind: 'remote', name: 'web', source: 'dynamic', config: { type: 'http', url: `${base}/mcp` } }]);
    await hub.settled(20_000);
    expect(hub.initList()[0]?.status).toBe('connected');
    const srv = servers.splice(0)[0];
    await new Promise((r) => {
      srv?.close(r);
      srv?.closeAllConnections();
    });
    await expect((tools.get('mcp__web__ping') as AnyTool).call({}, ctx())).rejects.toThrow(/fetch failed/);
    expect(hub.initList()[0]).toMatchObject({ status: 'pending', error: expect.stringMatching(/^disconnected: the server cannot be reached \(.+\); redialling \(1 of 1\)$/) });
    await hub.settled(20_000);
    expect(hub.initList()[0]).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^disconnected: the server cannot be reached \(.*\); redialling failed \(1 of 1\), the last: .*fetch failed/),
    });
    await hub.close();
  });

  // A lost SSE event stream (the server ends it, restarts on the same port, or is gone) is in remote-sse.test.ts.
});
