// A turn the model API refused, under both ACP adapters (agentd as CLAUDE_CODE_EXECUTABLE, its real Anthropic client
// against the loopback Messages server): the adapters read agentd's result as they read Claude Code's (`success`
// with is_error and the error's text in `result`), so the editor gets the API's error text on the failed prompt,
// and a missing credential ("Not logged in · Please run /login") as ACP's authRequired.
import { RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { type AcpAdapter, type AcpAgent, type AcpWorld, ZED_ACP, acpWorld, currentAcp } from '../support/acp-client.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';

const running: AcpAgent[] = [];
const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(world: AcpWorld): Promise<AcpAgent> {
  const agent = await world.start();
  running.push(agent);
  onTestFailed(() => {
    process.stderr.write(`claude-agent-acp stderr:\n${agent.stderr().slice(-4000)}\n`);
  });
  return agent;
}

/** The JSON-RPC error a prompt was answered with (undefined when it succeeded). */
async function promptError(agent: AcpAgent, sessionId: string, text: string): Promise<{ code: number; message: string; data?: unknown } | undefined> {
  try {
    await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text }] });
    return undefined;
  } catch (e) {
    const o = e as { code?: unknown; message?: unknown; data?: unknown };
    return { code: Number(o.code), message: String(o.message), ...(o.data !== undefined ? { data: o.data } : {}) };
  }
}

async function world(adapter: AcpAdapter, opts: { status?: number; type?: string; message?: string; noKey?: boolean } = {}): Promise<AcpWorld> {
  const server = await startLoopbackServer({
    rules: [],
    fallback: opts.status ? { error: { status: opts.status, type: opts.type ?? 'api_error', message: opts.message ?? 'boom' } } : { content: [{ type: 'text', text: 'fine' }] },
  });
  servers.push(server);
  const w = acpWorld({ loopbackUrl: server.url }, { adapter });
  w.env['AGENTD_MAX_RETRIES'] = '1';
  w.env['AGENTD_RETRY_BASE_DELAY_MS'] = '5';
  if (opts.noKey) delete w.env['ANTHROPIC_API_KEY'];
  return w;
}

const SERVER_ERROR = (port: string): string =>
  `API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:${port}).`;

/** The text of the agent_message_chunk updates of a session. */
function shown(agent: AcpAgent, sessionId: string): string[] {
  return agent.updates.filter((n) => n.sessionId === sessionId).flatMap((n) => (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? [n.update.content.text] : []));
}

describe('API errors under @agentclientprotocol/claude-agent-acp 0.101.0 (Node 22)', () => {
  it('a 500 after the retries fails the prompt with the API error text (errorKind server_error) and shows it', async () => {
    const w = await world(currentAcp(), { status: 500, type: 'api_error', message: 'Internal server error' });
    const agent = await start(w);
    const { sessionId } = await agent.conn.newSession({ cwd: w.cwd, mcpServers: [] });
    const port = new URL(w.env['ANTHROPIC_BASE_URL'] ?? '').port;
    expect(await promptError(agent, sessionId, 'hello')).toEqual({ code: -32603, message: `Internal error: ${SERVER_ERROR(port)}`, data: { errorKind: 'server_error' } });
    expect(shown(agent, sessionId)).toEqual([SERVER_ERROR(port)]);
  });

  it('no credential: "Not logged in · Please run /login" becomes authRequired, the hint itself is not shown', async () => {
    const w = await world(currentAcp(), { noKey: true });
    const agent = await start(w);
    const { sessionId } = await agent.conn.newSession({ cwd: w.cwd, mcpServers: [] });
    expect(await promptError(agent, sessionId, 'hello')).toEqual({ code: RequestError.authRequired().code, message: 'Authentication required' });
    expect(shown(agent, sessionId)).toEqual([]);
  });
});

describe('API errors under @zed-industries/claude-agent-acp 0.23.1', () => {
  it('a 500 after the retries fails the prompt with the API error text', async () => {
    const w = await world(ZED_ACP, { status: 500, type: 'api_error', message: 'Internal server error' });
    const agent = await start(w);
    const { sessionId } = await agent.conn.newSession({ cwd: w.cwd, mcpServers: [] });
    const port = new URL(w.env['ANTHROPIC_BASE_URL'] ?? '').port;
    expect(await promptError(agent, sessionId, 'hello')).toEqual({ code: -32603, message: `Internal error: ${SERVER_ERROR(port)}` });
  });

  it('no credential: authRequired', async () => {
    const w = await world(ZED_ACP, { noKey: true });
    const agent = await start(w);
    const { sessionId } = await agent.conn.newSession({ cwd: w.cwd, mcpServers: [] });
    expect(await promptError(agent, sessionId, 'hello')).toEqual({ code: RequestError.authRequired().code, message: 'Authentication required' });
  });
});
