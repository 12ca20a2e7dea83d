// OAuth for a remote MCP server through the official TS SDK (issue 11): a Streamable HTTP server on 127.0.0.1
// that requires bearer tokens from a loopback authorization server (the MCP SDK's server-side auth helpers) is
// `needs-auth`; the SDK's hidden mcpAuthenticate() gets an authorization URL; the "browser" comes back to
// agentd's loopback listener or, with the host's own redirect URI, through mcpSubmitOAuthCallbackUrl(); the
// server connects and its tool reaches the model; an expired token is refreshed; a denied authorization and
// mcpClearAuth() (which revokes the tokens at the authorization server) leave it needs-auth; a later session
// reuses the stored grant; the token is never logged.
import { type Query } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { type OAuthMcpFixture, oauthMcpServer } from '../support/oauth-mcp.js';
import { collect, promptChannel, query, scriptedRun, toolResults } from '../support/sdk-run.js';

/** The TS SDK's hidden OAuth methods (present in sdk.mjs, not in its public types). */
interface HiddenAuth {
  mcpAuthenticate(serverName: string, redirectUri?: string, opts?: { redirectUriOnly?: boolean }): Promise<Record<string, unknown>>;
  mcpSubmitOAuthCallbackUrl(serverName: string, callbackUrl: string): Promise<unknown>;
  mcpClearAuth(serverName: string): Promise<unknown>;
}
const hidden = (q: Query): HiddenAuth => q as unknown as HiddenAuth;

const callWhoami: Scenario = {
  rules: [
    { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'w1', name: 'mcp__secure__whoami', input: { note: 'hi' } }] } },
    { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'model saw: {{lastToolResult}}' }] } },
  ],
};

const fixtures: OAuthMcpFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.close();
});

async function statusOf(q: Query, name: string): Promise<{ status: string; error?: string } | undefined> {
  return (await q.mcpServerStatus()).find((s) => s.name === name);
}

async function waitStatus(q: Query, name: string, want: string): Promise<{ status: string; error?: string }> {
  const t0 = Date.now();
  for (;;) {
    const s = await statusOf(q, name);
    if (s?.status === want) return s;
    if (Date.now() - t0 > 30_000) throw new Error(`"${name}" is ${JSON.stringify(s)}, not ${want}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A session with the OAuth server configured; the prompt is pushed by the test. */
function session(f: OAuthMcpFixture, run = scriptedRun(callWhoami), extra: Record<string, { type: 'stdio'; command: string; args: string[] }> = {}) {
  const input = promptChannel();
  const stderr: string[] = [];
  const q = query({
    prompt: input,
    options: run.options({ mcpServers: { secure: { type: 'http', url: f.mcpUrl }, ...extra }, allowedTools: ['mcp__secure'], stderr: (s) => stderr.push(s) }),
  });
  return { q, input, run, stderr };
}

/** Pushes one prompt and collects until its result; the session is then closed. */
async function turn(s: ReturnType<typeof session>) {
  s.input.push('who am I?');
  return collect(s.q, (m) => {
    if (m.type === 'result') s.input.close();
  });
}

function grantFile(home: string): string {
  return join(home, '.claude', 'agentd', 'mcp-oauth.json');
}

describe('MCP OAuth through the TS SDK', () => {
  it('needs-auth → mcpAuthenticate → the browser returns to the loopback listener → connected, tool used; stored 0600; never logged', async () => {
    const f = await oauthMcpServer();
    fixtures.push(f);
    const s = session(f);
    const before = await waitStatus(s.q, 'secure', 'needs-auth');
    expect(before.error).toContain('401');

    const answer = await hidden(s.q).mcpAuthenticate('secure');
    expect(answer).toEqual({
      authUrl: expect.any(String),
      requiresUserAction: true,
      callbackExpected: true,
      redirectScheme: 'localhost',
      state: expect.any(String),
      callbackPort: expect.any(Number),
    });
    const authUrl = new URL(String(answer['authUrl']));
    expect(authUrl.searchParams.get('redirect_uri')).toBe(`http://localhost:${String(answer['callbackPort'])}/callback`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('state')).toBe(answer['state']);
    // Registered dynamically: the authorization server knows one client, agentd.
    expect([...f.provider.clientsStore.clients.values()].map((c) => c.client_name)).toEqual(['agentd']);

    // The user's browser: consents, is sent to agentd's listener (127.0.0.1 behind `localhost`).
    const back = new URL(await f.authorize(authUrl.toString()));
    back.hostname = '127.0.0.1';
    const page = await fetch(back);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Authentication complete');
    await waitStatus(s.q, 'secure', 'connected');

    const msgs = await turn(s);
    expect(toolResults(msgs)).toEqual([['w1', false, 'authorized as a registered client']]);
    expect(f.calls.map(([args]) => args)).toEqual([{ note: 'hi' }]);
    expect(f.provider.log).toEqual(['code']);

    const file = grantFile(s.run.home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = [...f.provider.access.keys()][0] ?? 'missing';
    expect(readFileSync(file, 'utf8')).toContain(token);
    expect(s.stderr.join('')).not.toContain(token);
  });

  it("the host's own redirect URI: mcpSubmitOAuthCallbackUrl completes it (a wrong state is refused, the flow keeps waiting); the next session reuses the grant", async () => {
    const f = await oauthMcpServer();
    fixtures.push(f);
    const s = session(f);
    await waitStatus(s.q, 'secure', 'needs-auth');
    await expect(hidden(s.q).mcpSubmitOAuthCallbackUrl('secure', 'myapp://cb?code=x&state=y')).rejects.toThrow('No active OAuth flow for server: secure');

    const answer = await hidden(s.q).mcpAuthenticate('secure', 'myapp://oauth/callback');
    expect(answer).toEqual({ authUrl: expect.any(String), requiresUserAction: true, callbackExpected: true, redirectScheme: 'custom', state: expect.any(String) });
    const back = await f.authorize(String(answer['authUrl']));
    expect(back.startsWith('myapp://oauth/callback?')).toBe(true);
    const forged = new URL(back);
    forged.searchParams.set('state', 'someone-else');
    await expect(hidden(s.q).mcpSubmitOAuthCallbackUrl('secure', forged.toString())).rejects.toThrow('OAuth state mismatch');
    await expect(hidden(s.q).mcpSubmitOAuthCallbackUrl('secure', 'myapp://oauth/callback?state=x')).rejects.toThrow('missing authorization code');
    // Answered once the code is exchanged and the server reconnected.
    await expect(hidden(s.q).mcpSubmitOAuthCallbackUrl('secure', back)).resolves.toEqual({});
    expect(await statusOf(s.q, 'secure')).toMatchObject({ status: 'connected' });
    s.input.close();
    await collect(s.q);

    // A new session with the same config directory: connected with the stored grant, no flow.
    const again = session(f, scriptedRun(callWhoami, { env: { HOME: s.run.home, CLAUDE_CONFIG_DIR: join(s.run.home, '.claude') } }));
    await waitStatus(again.q, 'secure', 'connected');
    const msgs = await turn(again);
    expect(toolResults(msgs)).toEqual([['w1', false, 'authorized as a registered client']]);
    expect(f.provider.log).toEqual(['code']);
  });

  it('an expired access token is refreshed with the refresh token and the call goes through', async () => {
    const f = await oauthMcpServer();
    fixtures.push(f);
    const s = session(f);
    await waitStatus(s.q, 'secure', 'needs-auth');
    const answer = await hidden(s.q).mcpAuthenticate('secure', 'myapp://oauth/callback');
    await hidden(s.q).mcpSubmitOAuthCallbackUrl('secure', await f.authorize(String(answer['authUrl'])));
    await waitStatus(s.q, 'secure', 'connected');
    f.provider.expireAll();
    const msgs = await turn(s);
    expect(toolResults(msgs)).toEqual([['w1', false, 'authorized as a registered client']]);
    expect(f.provider.log).toEqual(['code', 'refresh']);
    expect(f.statuses).toContain(401);
  });

  it('fails closed: a denied authorization stays needs-auth with the reason; mcpClearAuth revokes and forgets the grant; a stdio server is refused', async () => {
    const f = await oauthMcpServer({ revocation: 'ok' });
    fixtures.push(f);
    const s = session(f, scriptedRun(callWhoami), { local: { type: 'stdio', command: process.execPath, args: ['-e', ''] } });
    await waitStatus(s.q, 'secure', 'needs-auth');
    await expect(hidden(s.q).mcpAuthenticate('local')).rejects.toThrow('Server type "stdio" does not support OAuth authentication');
    await expect(hidden(s.q).mcpClearAuth('local')).rejects.toThrow('Cannot clear auth for server type "stdio"');
    const denied = await hidden(s.q).mcpAuthenticate('secure', 'myapp://oauth/callback');
    const refusal = `myapp://oauth/callback?error=access_denied&error_description=no&state=${String(denied['state'])}`;
    await expect(hidden(s.q).mcpSubmitOAuthCallbackUrl('secure', refusal)).rejects.toThrow('the authorization server answered access_denied: no');
    expect(await statusOf(s.q, 'secure')).toMatchObject({ status: 'needs-auth', error: 'OAuth failed: the authorization server answered access_denied: no' });
    await expect(hidden(s.q).mcpAuthenticate('nope')).rejects.toThrow('Server not found: nope');

    const ok = await hidden(s.q).mcpAuthenticate('secure', 'myapp://oauth/callback');
    await hidden(s.q).mcpSubmitOAuthCallbackUrl('secure', await f.authorize(String(ok['authUrl'])));
    expect(await statusOf(s.q, 'secure')).toMatchObject({ status: 'connected' });
    const clientId = [...f.provider.clientsStore.clients.keys()].at(-1);
    const [refreshToken] = [...f.provider.refresh.keys()];
    const [accessToken] = [...f.provider.access.keys()];
    const asBefore = f.asRequests.length;
    await expect(hidden(s.q).mcpClearAuth('secure')).resolves.toEqual({});
    // RFC 7009 at the advertised endpoint, refresh token first, as Claude Code; the metadata discovered during the
    // sign-in was kept with the grant, so nothing is discovered again.
    expect(f.revocations).toEqual([
      { form: { token: refreshToken, token_type_hint: 'refresh_token', client_id: clientId }, authorization: undefined },
      { form: { token: accessToken, token_type_hint: 'access_token', client_id: clientId }, authorization: undefined },
    ]);
    expect(f.asRequests.slice(asBefore)).toEqual(['POST /revoke', 'POST /revoke']);
    expect(await statusOf(s.q, 'secure')).toMatchObject({ status: 'needs-auth' });
    expect(() => readFileSync(grantFile(s.run.home), 'utf8')).toThrow();
    s.input.close();
    await collect(s.q);
  });
});
