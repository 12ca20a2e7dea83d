// WebFetch and a remote (Streamable HTTP) MCP server use the same network settings as the model client
// (net/fetch.ts netFetch): with HTTP_PROXY set, both reach their servers through the loopback CONNECT proxy, which
// resolves the names (the daemon never does). Driven through the official TypeScript SDK on the scripted model.
import { type Server as HttpServer, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { type ConnectProxy, startConnectProxy } from '../support/connect-proxy.js';
import { collect, promptChannel, query, scriptedRun, toolResults } from '../support/sdk-run.js';

const callThen = (id: string, name: string, input: Record<string, unknown>): Scenario => ({
  rules: [
    { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id, name, input }] } },
    { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
  ],
});

let proxy: ConnectProxy | undefined;
let http: HttpServer | undefined;
afterEach(async () => {
  await proxy?.close();
  http?.closeAllConnections();
  await new Promise((r) => (http ? http.close(r) : r(undefined)));
  proxy = undefined;
  http = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  http = createServer(handler);
  await new Promise<void>((r) => http?.listen(0, '127.0.0.1', r));
  return (http.address() as AddressInfo).port;
}

describe('WebFetch and remote MCP servers go through the proxy', () => {
  it('WebFetch: HTTP_PROXY tunnels the fetch (the proxy resolves the host name)', async () => {
    const port = await listen((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('the page body, fetched through the proxy'));
    proxy = await startConnectProxy('tunnel', { 'docs.example.test:80': `127.0.0.1:${port}` });
    const run = scriptedRun(callThen('f1', 'WebFetch', { url: 'http://docs.example.test/page', prompt: 'what does it say?' }), { env: { HTTP_PROXY: proxy.url } });
    const msgs = await collect(query({ prompt: 'fetch it', options: run.options({ allowedTools: ['WebFetch'] }) }));
    expect(proxy.connects).toEqual(['docs.example.test:80']);
    const [[id, isError]] = toolResults(msgs) as [[string, boolean, string]];
    expect([id, isError]).toEqual(['f1', false]);
    // WebFetch answers its prompt with the small model over the page: the page fetched through the proxy is what
    // that request carries.
    expect(run.requests().some((r) => JSON.stringify(r.messages).includes('the page body, fetched through the proxy'))).toBe(true);
  });

  it('a remote MCP server: connected and called through the proxy', async () => {
    const calls: unknown[] = [];
    const port = await listen((req, res) => {
      const s = new Server({ name: 'proxied', version: '1.0.0' }, { capabilities: { tools: {} } });
      s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'ping', description: 'Ping', inputSchema: { type: 'object', properties: {} } }] }));
      s.setRequestHandler(CallToolRequestSchema, async (r) => {
        calls.push(r.params.name);
        return { content: [{ type: 'text', text: 'pong via proxy' }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      void s.connect(transport).then(() => transport.handleRequest(req, res));
    });
    proxy = await startConnectProxy('tunnel', { 'mcp.example.test:80': `127.0.0.1:${port}` });
    const run = scriptedRun(callThen('m1', 'mcp__remote__ping', {}), { env: { HTTP_PROXY: proxy.url } });
    const input = promptChannel();
    input.push('ping');
    const q = query({ prompt: input, options: run.options({ allowedTools: ['mcp__remote'], mcpServers: { remote: { type: 'http', url: 'http://mcp.example.test/mcp' } } }) });
    const msgs = await collect(q, (m) => {
      if (m.type === 'result') input.close();
    });
    expect(calls).toEqual(['ping']);
    expect(toolResults(msgs)).toEqual([['m1', false, 'pong via proxy']]);
    expect(new Set(proxy.connects)).toEqual(new Set(['mcp.example.test:80']));
  });
});
