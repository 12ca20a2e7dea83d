// MCP servers through the official TS SDK (issue 11, "Done when"): an in-process server (createSdkMcpServer +
// tool()), an external stdio server and a Streamable HTTP server on 127.0.0.1 are used by the scripted model, a
// broken server is reported as failed with its stderr line, a canUseTool deny never reaches the handler, and the
// stdio server is gone after exit.
import { type Options, createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type Server as HttpServer, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { groupAlive } from '../../src/tools/process-groups.js';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { AGENTD, ROOT } from '../support/daemon.js';
import { collect, promptChannel, query, scriptedRun, toolResults } from '../support/sdk-run.js';
import { until } from '../support/wait.js';

const FIXTURE = join(ROOT, 'test/fixtures/mcp-stdio-server.mjs');

function echoServer(calls: string[]) {
  return createSdkMcpServer({
    name: 'host',
    version: '2.0.0',
    tools: [
      tool('greet', 'Greets someone', { who: z.string() }, async ({ who }) => {
        calls.push(who);
        return { content: [{ type: 'text', text: `hello ${who} from the host` }] };
      }),
    ],
  });
}

const callThen = (id: string, name: string, input: Record<string, unknown>): Scenario => ({
  rules: [
    { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id, name, input }] } },
    { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'model saw: {{lastToolResult}}' }] } },
  ],
});

/** A stateless Streamable HTTP MCP server on 127.0.0.1 with one tool, `lookup`; records each call and its auth header. */
async function httpMcpServer(): Promise<{ url: string; calls: Array<[unknown, string]>; close(): Promise<void> }> {
  const calls: Array<[unknown, string]> = [];
  const mcp = (): Server => {
    const s = new Server({ name: 'web-fixture', version: '4.5.6' }, { capabilities: { tools: {} } });
    s.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } }],
    }));
    s.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      calls.push([req.params.arguments, String(extra.requestInfo?.headers['authorization'] ?? '')]);
      return { content: [{ type: 'text', text: `definition of ${String(req.params.arguments?.['word'])} over HTTP` }] };
    });
    return s;
  };
  // A server and a transport per request, as the MCP SDK's stateless examples do.
  const http: HttpServer = createServer((req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void mcp()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    close: async () => {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

/** One turn in which the scripted model calls mcp__web__lookup; the server's status is taken after the result. */
async function lookupTurn(extra: Partial<Options>, run = scriptedRun(callThen('w1', 'mcp__web__lookup', { word: 'daemon' }))) {
  const input = promptChannel();
  input.push('look up daemon');
  const q = query({ prompt: input, options: run.options({ allowedTools: ['mcp__web'], ...extra }) });
  let status: Awaited<ReturnType<typeof q.mcpServerStatus>> = [];
  const msgs = await collect(q, async (m) => {
    if (m.type === 'result') {
      status = await q.mcpServerStatus();
      input.close();
    }
  });
  return { msgs, status, run };
}

describe('MCP through the TS SDK', () => {
  it('an SDK server tool is offered to the model, called, and its handler reply reaches the model', async () => {
    const calls: string[] = [];
    const run = scriptedRun(callThen('g1', 'mcp__host__greet', { who: 'Ada' }));
    const q = query({ prompt: 'greet Ada', options: run.options({ mcpServers: { host: echoServer(calls) }, allowedTools: ['mcp__host'] }) });
    const msgs = await collect(q);
    expect(calls).toEqual(['Ada']);
    expect(toolResults(msgs)).toEqual([['g1', false, 'hello Ada from the host']]);
    const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init).toMatchObject({ mcp_servers: [{ name: 'host', status: 'connected', source: 'sdk' }] });
    expect((init as { tools: string[] }).tools).toContain('mcp__host__greet');
    // What the model was asked: the tool with the handler's JSON Schema, then the handler's answer.
    const [first, second] = run.requests();
    const def = first?.tools?.find((t) => t.name === 'mcp__host__greet');
    expect(def).toMatchObject({ name: 'mcp__host__greet', description: 'Greets someone', input_schema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] } });
    const last = second?.messages.at(-1);
    expect(last?.content).toEqual([{ type: 'tool_result', tool_use_id: 'g1', content: 'hello Ada from the host', cache_control: { type: 'ephemeral' } }]);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'model saw: hello Ada from the host' });
  });

  it('a canUseTool deny of an SDK MCP tool: the handler is never called', async () => {
    const calls: string[] = [];
    const asked: unknown[] = [];
    const run = scriptedRun(callThen('g1', 'mcp__host__greet', { who: 'Eve' }));
    const msgs = await collect(
      query({
        prompt: 'greet Eve',
        options: run.options({
          mcpServers: { host: echoServer(calls) },
          canUseTool: async (name, _input, o) => {
            asked.push([name, o.mcpServer]);
            return { behavior: 'deny', message: 'not Eve' };
          },
        }),
      }),
    );
    // The host learns which server the tool belongs to and that it is its own (source sdk).
    expect(asked).toEqual([['mcp__host__greet', { name: 'host', source: 'sdk' }]]);
    expect(calls).toEqual([]);
    expect(toolResults(msgs)).toEqual([['g1', true, 'not Eve']]);
  });

  it('an external stdio server is used the same way; a broken one is failed with its stderr line; mcpServerStatus()', async () => {
    const run = scriptedRun(callThen('e1', 'mcp__fx__echo', { text: 'hi' }));
    const pidFile = join(run.cwd, 'server.pid');
    const input = promptChannel();
    input.push('echo hi');
    const q = query({
      prompt: input,
      options: run.options({
        mcpServers: {
          fx: { command: process.execPath, args: [FIXTURE], env: { MCP_FIXTURE_PID_FILE: pidFile } },
          broken: { command: 'sh', args: ['-c', 'echo "broken: cannot start" >&2; exit 3'] },
        },
        allowedTools: ['mcp__fx__echo'],
      }),
    });
    let status: Awaited<ReturnType<typeof q.mcpServerStatus>> = [];
    let toggled: unknown[] = [];
    const msgs = await collect(q, async (m) => {
      if (m.type === 'result') {
        status = await q.mcpServerStatus();
        // toggleMcpServer() / reconnectMcpServer(): mcp_toggle and mcp_reconnect.
        await q.toggleMcpServer('fx', false);
        const off = (await q.mcpServerStatus()).find((x) => x.name === 'fx')?.status;
        await q.reconnectMcpServer('fx');
        const again = (await q.mcpServerStatus()).find((x) => x.name === 'fx')?.status;
        const refused = await q.reconnectMcpServer('broken').then(
          () => 'reconnected',
          (e: Error) => e.message,
        );
        toggled = [off, again, refused];
        input.close();
      }
    });
    expect(toolResults(msgs)).toEqual([['e1', false, 'echo:hi']]);
    const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init') as { mcp_servers: Array<Record<string, unknown>> } | undefined;
    expect(init?.mcp_servers).toEqual([
      { name: 'fx', status: 'connected', source: 'dynamic' },
      { name: 'broken', status: 'failed', source: 'dynamic', error: expect.stringContaining('broken: cannot start') },
    ]);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'model saw: echo:hi' });
    expect(status).toEqual([
      {
        name: 'fx',
        status: 'connected',
        serverInfo: { name: 'fixture', version: '1.2.3' },
        config: { type: 'stdio', command: process.execPath, args: [FIXTURE] },
        scope: 'dynamic',
        source: 'dynamic',
        tools: [
          { name: 'echo', description: 'Echoes text', annotations: { readOnly: true } },
          { name: 'add', description: 'Adds two numbers' },
          { name: 'fail', description: 'Always fails' },
          { name: 'env', description: 'Reports whether credentials are visible' },
          { name: 'slow', description: 'Waits' },
          { name: 'ask', description: 'Asks the user for a name (elicitation)' },
        ],
      },
      {
        name: 'broken',
        status: 'failed',
        error: expect.stringMatching(/exited with code 3.*broken: cannot start/),
        config: { type: 'stdio', command: 'sh', args: ['-c', 'echo "broken: cannot start" >&2; exit 3'] },
        scope: 'dynamic',
        source: 'dynamic',
      },
    ]);
    expect(toggled).toEqual(['disabled', 'connected', expect.stringContaining('broken: cannot start')]);
    // The daemon has exited (the query is over): the server's process group is gone with it.
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !groupAlive(pid), `MCP server process group ${pid} to be gone`, 10_000);
  });

  it('a Streamable HTTP server on 127.0.0.1: its tool is called with the configured header and its reply reaches the model', async () => {
    const web = await httpMcpServer();
    try {
      const { msgs, status, run } = await lookupTurn({ mcpServers: { web: { type: 'http', url: web.url, headers: { Authorization: 'Bearer web-t0k' } } } });
      expect(web.calls).toEqual([[{ word: 'daemon' }, 'Bearer web-t0k']]);
      expect(toolResults(msgs)).toEqual([['w1', false, 'definition of daemon over HTTP']]);
      const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init') as { mcp_servers: unknown; tools: string[] } | undefined;
      expect(init?.mcp_servers).toEqual([{ name: 'web', status: 'connected', source: 'dynamic' }]);
      expect(init?.tools).toContain('mcp__web__lookup');
      const [first, second] = run.requests();
      expect(first?.tools?.find((t) => t.name === 'mcp__web__lookup')).toEqual({
        name: 'mcp__web__lookup',
        description: 'Looks a word up',
        input_schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
      });
      expect(second?.messages.at(-1)?.content).toEqual([{ type: 'tool_result', tool_use_id: 'w1', content: 'definition of daemon over HTTP', cache_control: { type: 'ephemeral' } }]);
      expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'model saw: definition of daemon over HTTP' });
      expect(status).toEqual([
        {
          name: 'web',
          status: 'connected',
          serverInfo: { name: 'web-fixture', version: '4.5.6' },
          config: { type: 'http', url: web.url },
          scope: 'dynamic',
          source: 'dynamic',
          tools: [{ name: 'lookup', description: 'Looks a word up' }],
        },
      ]);
    } finally {
      await web.close();
    }
  });

  it('a server added with `agentd mcp add -s project -t http … -H …` is used by the next session in the trusted repository (settingSources: project)', async () => {
    const web = await httpMcpServer();
    try {
      const run = scriptedRun(callThen('w1', 'mcp__web__lookup', { word: 'daemon' }));
      const added = execFileSync(process.execPath, [AGENTD, 'mcp', 'add', '-s', 'project', '-t', 'http', 'web', web.url, '-H', 'Authorization: Bearer from-mcp-add'], { cwd: run.cwd, env: run.env, encoding: 'utf8' });
      expect(added).toBe(`Added HTTP MCP server web with URL: ${web.url} to project config\nHeaders: {\n  "Authorization": "[REDACTED]"\n}\nFile modified: ${join(run.cwd, '.mcp.json')}\n`);
      // .mcp.json belongs to the repository: its servers start once the repository is trusted (here for this run).
      const { msgs, status } = await lookupTurn({ settingSources: ['project'], extraArgs: { 'trust-workspace': null } }, run);
      expect(web.calls).toEqual([[{ word: 'daemon' }, 'Bearer from-mcp-add']]);
      expect(toolResults(msgs)).toEqual([['w1', false, 'definition of daemon over HTTP']]);
      expect(status).toMatchObject([{ name: 'web', status: 'connected', scope: 'project', source: 'project' }]);
    } finally {
      await web.close();
    }
  });

  it("mcpServersDelivery: 'initialize': the servers come in initialize, are applied, and work", async () => {
    const run = scriptedRun(callThen('a1', 'mcp__fx__add', { a: 2, b: 40 }));
    const msgs = await collect(
      query({
        prompt: 'add',
        options: run.options({
          mcpServersDelivery: 'initialize',
          mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } },
          allowedTools: ['mcp__fx'],
        }),
      }),
    );
    expect(toolResults(msgs)).toEqual([['a1', false, '42']]);
    const result = msgs.find((m) => m.type === 'user' && (m as { tool_use_result?: unknown }).tool_use_result !== undefined) as { tool_use_result?: unknown } | undefined;
    expect(result?.tool_use_result).toEqual({ content: [{ type: 'text', text: '42' }], structuredContent: { sum: 42 } });
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'model saw: 42' });
  });

  it('a server slower than MCP_TIMEOUT: the turn goes on without it, and its tools join at the next model round', async () => {
    const run = scriptedRun(
      {
        rules: [
          { when: { requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'touch first.txt; echo first' } }] } },
          { when: { requestIndex: 1 }, reply: { content: [{ type: 'tool_use', id: 'e1', name: 'mcp__late__echo', input: { text: 'joined' } }] } },
          { reply: { content: [{ type: 'text', text: 'model saw: {{lastToolResult}}' }] } },
        ],
      },
      { env: { MCP_TIMEOUT: '100', MCP_CONNECT_TIMEOUT_MS: '60000' } },
    );
    const gate = join(run.cwd, 'go');
    const input = promptChannel();
    input.push('go');
    const q = query({
      prompt: input,
      options: run.options({
        // The server starts only once the gate file exists: it cannot be ready within the first request's wait.
        mcpServers: { late: { command: 'sh', args: ['-c', `while [ ! -e "${gate}" ]; do sleep 0.05; done; exec "${process.execPath}" "${FIXTURE}"`] } },
        allowedTools: ['mcp__late'],
        // The Bash call of the first round is held here until the late server has connected.
        canUseTool: async (_name, toolInput) => {
          writeFileSync(gate, '');
          await until(() => connected, 'the late server to connect', 30_000);
          return { behavior: 'allow', updatedInput: toolInput };
        },
      }),
    });
    let connected = false;
    const poll = setInterval(() => {
      void q.mcpServerStatus().then((s) => {
        connected ||= s.some((x) => x.name === 'late' && x.status === 'connected');
      }, () => undefined);
    }, 50);
    const msgs = await collect(q, (m) => {
      if (m.type === 'result') input.close();
    }).finally(() => clearInterval(poll));
    const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init') as { mcp_servers: unknown[] } | undefined;
    expect(init?.mcp_servers).toEqual([{ name: 'late', status: 'pending', source: 'dynamic' }]);
    const [first, second] = run.requests();
    expect(first?.tools?.some((t) => t.name.startsWith('mcp__late__'))).toBe(false);
    expect(second?.tools?.some((t) => t.name === 'mcp__late__echo')).toBe(true);
    expect(toolResults(msgs)).toEqual([
      ['b1', false, 'first'],
      ['e1', false, 'echo:joined'],
    ]);
  });

  it('--permission-prompt-tool mcp__perm__approve: asks go to that MCP tool; its JSON answer allows or denies', async () => {
    const asked: Array<[string, string]> = [];
    const perm = createSdkMcpServer({
      name: 'perm',
      tools: [
        tool('approve', 'Decides permission requests', { tool_name: z.string(), input: z.record(z.string(), z.unknown()), tool_use_id: z.string() }, async (a) => {
          const file = String(a.input['file_path'] ?? '');
          asked.push([a.tool_name, a.tool_use_id]);
          const answer = file.endsWith('ok.txt') ? { behavior: 'allow', updatedInput: a.input } : { behavior: 'deny', message: `No writes to ${file}.` };
          return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
        }),
      ],
    });
    const run = scriptedRun({
      rules: [
        {
          when: { hasToolResults: false },
          reply: {
            content: [
              { type: 'tool_use', id: 'w_ok', name: 'Write', input: { file_path: '{{cwd}}/ok.txt', content: 'fine\n' } },
              { type: 'tool_use', id: 'w_no', name: 'Write', input: { file_path: '{{cwd}}/no.txt', content: 'never\n' } },
            ],
          },
        },
        { reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    });
    const msgs = await collect(query({ prompt: 'write', options: run.options({ mcpServers: { perm }, permissionPromptToolName: 'mcp__perm__approve' }) }));
    expect(asked).toEqual([
      ['Write', 'w_ok'],
      ['Write', 'w_no'],
    ]);
    expect(toolResults(msgs).map(([id, err, text]) => [id, err, id === 'w_ok' ? text.startsWith('File created successfully') : text])).toEqual([
      ['w_ok', false, true],
      ['w_no', true, `No writes to ${join(run.cwd, 'no.txt')}.`],
    ]);
    expect([existsSync(join(run.cwd, 'ok.txt')), existsSync(join(run.cwd, 'no.txt'))]).toEqual([true, false]);
  });

  it('--permission-prompt-tool naming a tool that does not exist: asks are denied (fails closed)', async () => {
    const run = scriptedRun(callThen('w1', 'Write', { file_path: '{{cwd}}/x.txt', content: 'x' }));
    const msgs = await collect(query({ prompt: 'write', options: run.options({ permissionPromptToolName: 'mcp__nobody__approve' }) }));
    expect(toolResults(msgs)).toEqual([['w1', true, expect.stringContaining('the permission prompt tool mcp__nobody__approve is not available')]]);
    expect(existsSync(join(run.cwd, 'x.txt'))).toBe(false);
  });

  it('setMcpServers(): servers are added (stdio and SDK), replaced and removed mid-session', async () => {
    const calls: string[] = [];
    const run = scriptedRun({ rules: [{ reply: { content: [{ type: 'text', text: 'ok' }] } }] });
    const input = promptChannel();
    input.push('hi');
    const q = query({ prompt: input, options: run.options({ mcpServers: { host: echoServer(calls) } }) });
    const seen: unknown[] = [];
    await collect(q, async (m) => {
      if (m.type !== 'result') return;
      const names = async () => (await q.mcpServerStatus()).map((x) => [x.name, x.status, x.source]);
      seen.push(await q.setMcpServers({ fx: { command: process.execPath, args: [FIXTURE] }, other: echoServer(calls) }));
      seen.push(await names());
      seen.push(await q.setMcpServers({ broken: { command: 'sh', args: ['-c', 'echo nope >&2; exit 2'] } }));
      seen.push(await names());
      input.close();
    });
    expect(seen).toEqual([
      { added: ['fx', 'other'], removed: ['host'], errors: {} },
      [
        ['fx', 'connected', 'dynamic'],
        ['other', 'connected', 'sdk'],
      ],
      { added: ['broken'], removed: ['fx', 'other'], errors: { broken: expect.stringContaining('nope') } },
      [['broken', 'failed', 'dynamic']],
    ]);
  });

  it('elicitation: a server asks, the host answers through onElicitation; without a callback it is declined', async () => {
    const asked: unknown[] = [];
    const scenario = callThen('a1', 'mcp__fx__ask', {});
    const withCallback = scriptedRun(scenario);
    const msgs = await collect(
      query({
        prompt: 'ask',
        options: withCallback.options({
          mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } },
          allowedTools: ['mcp__fx'],
          onElicitation: async (req) => {
            asked.push([req.serverName, req.message, req.requestedSchema]);
            return { action: 'accept', content: { name: 'Ada' } };
          },
        }),
      }),
    );
    expect(asked).toEqual([['fx', 'Your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }]]);
    expect(toolResults(msgs)).toEqual([['a1', false, 'accept:{"name":"Ada"}']]);
    const without = scriptedRun(scenario);
    const declined = await collect(query({ prompt: 'ask', options: without.options({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } }, allowedTools: ['mcp__fx'] }) }));
    expect(toolResults(declined)).toEqual([['a1', false, 'decline']]);
  });
});
