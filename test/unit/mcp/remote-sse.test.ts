// A legacy SSE MCP server on 127.0.0.1 whose event stream is lost: the server ends it, restarts on the same port,
// or is gone. The EventSource under the MCP SDK's SSEClientTransport reports each loss through `onerror` and then
// arms its own reconnect, which would attach the client to a session the server never saw initialised; agentd
// closes the transport inside that callback instead and the hub redials with a fresh handshake.
//
// Determinism: every stream the fixture serves says `retry: 50`, so an EventSource reconnect that was not
// prevented would come within 50 ms, not 3 s. The redial waits 250 ms (`redialDelaysMs`), so `until` (polling
// every 20 ms, its timer armed before the redial's) always sees the pending state: the earlier timer fires
// first however loaded the machine is. (The test this file replaces polled for a redial that waited 0 ms and
// finished in ~15 ms, and so missed the pending state 3 runs in 5.)
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src/tools/registry.js';
import type { AnyTool } from '../../../src/tools/tool.js';
import { until } from '../../support/wait.js';
import { callCtx, makeHub } from './support.js';

interface SseFixture {
  srv: HttpServer;
  port: number;
  url: string;
  /** GETs of the event stream, each a new session. */
  gets: number;
  /** The JSON-RPC methods (or `response`) POSTed, per session in the order the sessions were opened. */
  posts: Map<string, string[]>;
  /** POSTs for a session this server does not know (it would answer 404). */
  unknown: number;
  sessions: Map<string, SSEServerTransport>;
  /** Ends every event stream and forgets every session, as a restarted server would have none. */
  endStreams(): Promise<void>;
}

interface FixtureOptions {
  port?: number;
  /** Answers a POST instead of the MCP server (e.g. to end the stream mid-handshake); `true` when it did. */
  intercept?(f: SseFixture, session: SSEServerTransport, method: string, res: ServerResponse): Promise<boolean>;
  /** tools/call waits for this before answering. */
  callGate?: Promise<void>;
}

const fixtures: SseFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) {
    await f.endStreams();
    await new Promise((r) => {
      f.srv.close(r);
      f.srv.closeAllConnections();
    });
  }
});

function mcpServer(o: FixtureOptions): Server {
  const s = new Server({ name: 'legacy', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'ping', description: 'Pings', inputSchema: { type: 'object' } }] }));
  s.setRequestHandler(CallToolRequestSchema, async () => {
    await o.callGate;
    return { content: [{ type: 'text', text: 'pong' }] };
  });
  return s;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

async function sseFixture(o: FixtureOptions = {}): Promise<SseFixture> {
  const f: SseFixture = {
    srv: createServer((req, res) => void handle(req, res)),
    port: 0,
    url: '',
    gets: 0,
    posts: new Map(),
    unknown: 0,
    sessions: new Map(),
    endStreams: async () => {
      for (const t of f.sessions.values()) await t.close();
      f.sessions.clear();
    },
  };
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/sse') {
      f.gets++;
      const t = new SSEServerTransport('/messages', res);
      f.sessions.set(t.sessionId, t);
      f.posts.set(t.sessionId, []);
      await mcpServer(o).connect(t);
      res.write('retry: 50\n\n');
      return;
    }
    const id = url.searchParams.get('sessionId') ?? '';
    const t = f.sessions.get(id);
    if (!t) {
      f.unknown++;
      res.writeHead(404).end('unknown session');
      return;
    }
    const body = await readJson(req);
    const method = typeof body === 'object' && body !== null && 'method' in body ? String(body.method) : 'response';
    f.posts.get(id)?.push(method);
    if (o.intercept && (await o.intercept(f, t, method, res))) return;
    await t.handlePostMessage(req, res, body);
  }
  fixtures.push(f);
  await listenOn(f.srv, o.port ?? 0);
  f.port = (f.srv.address() as AddressInfo).port;
  f.url = `http://127.0.0.1:${f.port}/sse`;
  return f;
}

/** Listens on `port`; a port just released may take a moment to be free again. */
async function listenOn(srv: HttpServer, port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(port, '127.0.0.1', () => {
          srv.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const HANDSHAKE = ['initialize', 'notifications/initialized', 'tools/list'];

async function connectedHub(f: SseFixture, tools: ToolRegistry): Promise<ReturnType<typeof makeHub>> {
  const hub = makeHub(tools, { redialDelaysMs: [250] });
  hub.start();
  hub.add([{ kind: 'remote', name: 'legacy', source: 'dynamic', config: { type: 'sse', url: f.url } }]);
  await hub.settled(20_000);
  expect(hub.initList()).toEqual([{ name: 'legacy', status: 'connected', source: 'dynamic' }]);
  return hub;
}

describe('SSE MCP server: a lost event stream', () => {
  it('the server ends the stream: a call in flight fails at once, pending, redialled with a fresh handshake, the tools come back', async () => {
    let release = (): void => undefined;
    const f = await sseFixture({ callGate: new Promise<void>((r) => (release = r)) });
    const tools = new ToolRegistry([]);
    const hub = await connectedHub(f, tools);
    const inFlight = (tools.get('mcp__legacy__ping') as AnyTool).call({}, callCtx());
    await until(() => f.posts.get([...f.sessions.keys()][0] ?? '')?.includes('tools/call') === true, 'the call to reach the server');
    const first = [...f.posts.keys()][0];
    await f.endStreams();
    // Its answer would have come on the stream: it fails now, not at the tool timeout (20 s here).
    await expect(inFlight).rejects.toThrow(/Connection closed/);
    await until(() => hub.initList()[0]?.status !== 'connected', 'the lost stream to be noticed');
    expect(hub.initList()).toEqual([
      { name: 'legacy', status: 'pending', source: 'dynamic', error: 'disconnected: the event stream was lost (the server ended it); redialling (1 of 1)' },
    ]);
    expect(tools.get('mcp__legacy__ping')).toBeUndefined();
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'legacy', status: 'connected', source: 'dynamic' }]);
    release();
    expect((await (tools.get('mcp__legacy__ping') as AnyTool).call({}, callCtx())).content).toBe('pong');
    // One new stream, the redial's, initialised before use; nothing was POSTed to a session the server forgot.
    expect(f.gets).toBe(2);
    const second = [...f.posts.keys()][1];
    expect(first === undefined || second === undefined).toBe(false);
    expect(Object.fromEntries(f.posts)).toEqual({ [first as string]: [...HANDSHAKE, 'tools/call'], [second as string]: [...HANDSHAKE, 'tools/call'] });
    expect(f.unknown).toBe(0);
    await hub.close();
  });

  it('the server restarts on the same port: redialled with a fresh handshake on the new server, never its old session', async () => {
    const old = await sseFixture();
    const tools = new ToolRegistry([]);
    const hub = await connectedHub(old, tools);
    expect((await (tools.get('mcp__legacy__ping') as AnyTool).call({}, callCtx())).content).toBe('pong');
    // The restart: the old process stops listening, the new one listens on the same port, then the old one's
    // connections die with it (sockets destroyed, no orderly end of the stream).
    old.srv.close();
    const fresh = await sseFixture({ port: old.port });
    old.srv.closeAllConnections();
    await until(() => hub.initList()[0]?.status !== 'connected', 'the lost stream to be noticed');
    expect(hub.initList()).toEqual([
      { name: 'legacy', status: 'pending', source: 'dynamic', error: expect.stringMatching(/^disconnected: the event stream was lost \(TypeError: terminated: .+\); redialling \(1 of 1\)$/) },
    ]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'legacy', status: 'connected', source: 'dynamic' }]);
    expect((await (tools.get('mcp__legacy__ping') as AnyTool).call({}, callCtx())).content).toBe('pong');
    expect([old.gets, fresh.gets, fresh.unknown]).toEqual([1, 1, 0]);
    expect([...fresh.posts.values()]).toEqual([[...HANDSHAKE, 'tools/call']]);
    await hub.close();
  });

  it('the server is gone: pending, then failed with the loss and the last redial\'s reason', async () => {
    const f = await sseFixture();
    const tools = new ToolRegistry([]);
    const hub = await connectedHub(f, tools);
    await new Promise((r) => {
      f.srv.close(r);
      f.srv.closeAllConnections();
    });
    await until(() => hub.initList()[0]?.status !== 'connected', 'the lost stream to be noticed');
    expect(hub.initList()).toEqual([
      { name: 'legacy', status: 'pending', source: 'dynamic', error: expect.stringMatching(/^disconnected: the event stream was lost \(TypeError: terminated: .+\); redialling \(1 of 1\)$/) },
    ]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([
      {
        name: 'legacy',
        status: 'failed',
        source: 'dynamic',
        error: expect.stringMatching(/^disconnected: the event stream was lost \(TypeError: terminated: .+\); redialling failed \(1 of 1\), the last: SSE error: TypeError: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/),
      },
    ]);
    expect(tools.get('mcp__legacy__ping')).toBeUndefined();
    await hub.close();
  });

  it('a stream lost during the handshake fails it at once, and the EventSource never reconnects to an uninitialised session', async () => {
    const f = await sseFixture({
      intercept: async (fx, _t, method, res) => {
        if (method !== 'initialize') return false;
        res.writeHead(202).end('Accepted');
        await fx.endStreams();
        return true;
      },
    });
    const hub = makeHub(new ToolRegistry([]), { redialDelaysMs: [250] });
    hub.start();
    hub.add([{ kind: 'remote', name: 'legacy', source: 'dynamic', config: { type: 'sse', url: f.url } }]);
    // Without the fix: the initialize answer is lost, the EventSource reconnects 50 ms later to a new session and
    // the handshake waits for its 20 s timeout ("Request timed out").
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([
      { name: 'legacy', status: 'failed', source: 'dynamic', error: 'the event stream was lost (the server ended it) during the handshake' },
    ]);
    // Twenty times the stream's `retry:` interval: an EventSource reconnect would have come by now.
    await new Promise((r) => setTimeout(r, 1000));
    expect(f.gets).toBe(1);
    expect(f.unknown).toBe(0);
    await hub.close();
  });
});
