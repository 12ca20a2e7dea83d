// Proactive refresh of a stored MCP OAuth grant (oauth-refresh.ts, the passive provider's tokens()): against the
// loopback authorization server and MCP server (Streamable HTTP; SSE once) of test/support/oauth-mcp.ts, with the
// clock faked (Date only: the sockets are real). A token within the margin of its expiry is refreshed before the request that
// would carry it, without a 401; concurrent requests share one refresh; a refresh that fails leaves the server
// needs-auth after exactly one attempt, never sending the expired token again and again.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REFRESH_MARGIN_MS, refreshDue } from '../../../src/mcp/oauth-refresh.js';
import type { AnyTool } from '../../../src/tools/tool.js';
import { type OAuthMcpFixture, oauthMcpServer } from '../../support/oauth-mcp.js';
import { until } from '../../support/wait.js';
import { type Seeded, hubFor, removeGrantDirs, seedGrant } from './oauth-support.js';
import { callCtx } from './support.js';

const fixtures: OAuthMcpFixture[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.close();
  removeGrantDirs();
});

async function fixture(): Promise<OAuthMcpFixture> {
  const f = await oauthMcpServer();
  fixtures.push(f);
  return f;
}

/**
 * A hub connected to the fixture with a seeded grant, the clock faked (Date only) and moved `laterMs` past the
 * grant's storing before the hub starts; `before` adjusts the fixture first (answers, clients).
 */
async function connected(o: { laterMs?: number; transport?: 'sse'; before?: (f: OAuthMcpFixture, s: Seeded) => void } = {}) {
  vi.useFakeTimers({ toFake: ['Date'] });
  const f = await fixture();
  const s = seedGrant(f, o.transport ? { transport: o.transport } : {});
  o.before?.(f, s);
  if (o.laterMs !== undefined) vi.setSystemTime(Date.now() + o.laterMs);
  const { hub, tools } = hubFor(s);
  closers.push(() => hub.close());
  await hub.settled(20_000);
  return { f, s, hub, tools };
}

describe('when a token is due', () => {
  it("Claude Code's 300 s margin, at most half the token's lifetime; no expires_in: never due", () => {
    const entry = (expiresIn: number | undefined) => ({ serverName: 's', serverUrl: 'u', tokens: { access_token: 'a', ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}) }, tokensSavedAt: 1_000_000 });
    const hour = entry(3600);
    expect(REFRESH_MARGIN_MS).toBe(300_000);
    expect([refreshDue(hour, 1_000_000 + 3_299_999), refreshDue(hour, 1_000_000 + 3_300_000), refreshDue(hour, 1_000_000 + 9_999_999)]).toEqual([false, true, true]);
    const twoMinutes = entry(120);
    expect([refreshDue(twoMinutes, 1_000_000 + 59_999), refreshDue(twoMinutes, 1_000_000 + 60_000)]).toEqual([false, true]);
    expect(refreshDue(entry(undefined), Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('proactive refresh of a stored MCP OAuth grant', () => {
  it('a token 200 s from expiry is refreshed before the call, with no 401; the call carries the new token', async () => {
    const { f, s, hub, tools } = await connected();
    expect(hub.initList()).toEqual([{ name: 'secure', status: 'connected', source: 'dynamic' }]);
    expect(f.provider.log).toEqual([]);

    vi.setSystemTime(Date.now() + 3400_000);
    // Still valid at the authorization server: nothing but the margin can have caused the refresh.
    expect((await f.provider.verifyAccessToken(s.tokens.access_token)).token).toBe(s.tokens.access_token);
    const r = await (tools.get('mcp__secure__whoami') as AnyTool).call({ note: 'late' }, callCtx());
    expect(r.content).toBe('authorized as a registered client');
    expect(f.provider.log).toEqual(['refresh']);
    expect(f.statuses.includes(401)).toBe(false);
    const stored = s.store.get(s.key)?.tokens;
    expect(stored?.['access_token']).not.toBe(s.tokens.access_token);
    expect(f.provider.access.has(String(stored?.['access_token']))).toBe(true);
    expect(f.calls).toEqual([[{ note: 'late' }, s.clientId]]);
  });

  it('an already expired token is refreshed before the connection, not after a 401', async () => {
    const { f, hub } = await connected({ laterMs: 7200_000 });
    expect(hub.initList()).toEqual([{ name: 'secure', status: 'connected', source: 'dynamic' }]);
    expect(f.provider.log).toEqual(['refresh']);
    expect(f.statuses.includes(401)).toBe(false);
  });

  it('over the legacy SSE transport too: the event stream is opened with the refreshed token, no 401', async () => {
    const { f, s, hub, tools } = await connected({ laterMs: 3500_000, transport: 'sse' });
    expect(hub.initList()).toEqual([{ name: 'secure', status: 'connected', source: 'dynamic' }]);
    expect(f.provider.log).toEqual(['refresh']);
    const r = await (tools.get('mcp__secure__whoami') as AnyTool).call({ note: 'sse' }, callCtx());
    expect(r.content).toBe('authorized as a registered client');
    expect(f.calls).toEqual([[{ note: 'sse' }, s.clientId]]);
    expect(f.statuses.includes(401)).toBe(false);
  });

  it('two concurrent calls share one refresh', async () => {
    const { f, tools } = await connected();
    vi.setSystemTime(Date.now() + 3500_000);
    f.provider.refreshDelayMs = 300;
    const tool = tools.get('mcp__secure__whoami') as AnyTool;
    const [a, b] = await Promise.all([tool.call({ note: 'a' }, callCtx()), tool.call({ note: 'b' }, callCtx())]);
    expect([a.content, b.content]).toEqual(['authorized as a registered client', 'authorized as a registered client']);
    expect(f.provider.log).toEqual(['refresh']);
    expect(f.statuses.includes(401)).toBe(false);
    expect(f.calls.map(([args]) => args).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual([{ note: 'a' }, { note: 'b' }]);
  });

  it('a refused refresh (invalid_grant) of an expired token: one attempt, the tokens are dropped, the server is needs-auth', async () => {
    const { f, s, hub } = await connected({ laterMs: 7200_000, before: (fx) => (fx.provider.refreshAnswer = 'invalid_grant') });
    expect(hub.initList()).toEqual([{ name: 'secure', status: 'needs-auth', source: 'dynamic', error: expect.stringContaining('mcp_authenticate') }]);
    expect(f.provider.log).toEqual(['refresh:invalid_grant']);
    // The request went out without the expired token (none was sent), and the client registration is kept.
    const entry = s.store.get(s.key);
    expect(entry?.tokens).toBeUndefined();
    expect(entry?.clientInformation?.['client_id']).toBe(s.clientId);
  });

  it('the authorization server no longer knows the client (invalid_client): needs-auth, and no new client is registered behind the host\'s back', async () => {
    const { f, s, hub } = await connected({ laterMs: 7200_000, before: (fx, seeded) => fx.provider.clientsStore.clients.delete(seeded.clientId) });
    expect(hub.initList()).toEqual([{ name: 'secure', status: 'needs-auth', source: 'dynamic', error: expect.stringContaining('mcp_authenticate') }]);
    expect(f.asRequests.filter((r) => r.startsWith('POST '))).toEqual(['POST /token']);
    expect(f.provider.clientsStore.clients.size).toBe(0);
    // Tokens and the dead registration are gone (the metadata, discovered again on the way, stays).
    expect(Object.keys(s.store.get(s.key) ?? {}).sort()).toEqual(['discovery', 'serverName', 'serverUrl']);
  });

  it('a refresh that fails for now (server error) of an expired token: one attempt, the expired token is not sent, needs-auth, the grant kept for a later retry', async () => {
    // Every token presented to the MCP server.
    const seen: string[] = [];
    const { f, s, hub } = await connected({
      laterMs: 7200_000,
      before: (fx) => {
        fx.provider.refreshAnswer = 'server_error';
        const verify = fx.provider.verifyAccessToken.bind(fx.provider);
        fx.provider.verifyAccessToken = async (token) => {
          seen.push(token);
          return verify(token);
        };
      },
    });
    expect(hub.initList()).toEqual([{ name: 'secure', status: 'needs-auth', source: 'dynamic', error: expect.stringContaining('mcp_authenticate') }]);
    expect(f.provider.log).toEqual(['refresh:server_error']);
    expect(seen).toEqual([]);
    expect(s.store.get(s.key)?.tokens?.['refresh_token']).toBe(s.tokens.refresh_token);

    // Once the authorization server is back (and the retry pause is over), a reconnect refreshes and connects.
    f.provider.refreshAnswer = 'ok';
    vi.setSystemTime(Date.now() + 31_000);
    await hub.reconnect('secure');
    await until(() => hub.initList()[0]?.status === 'connected', 'the reconnect');
    expect(f.provider.log).toEqual(['refresh:server_error', 'refresh']);
    // Only the new token was ever presented (each request of the handshake carries it).
    expect([...new Set(seen)]).toEqual([s.store.get(s.key)?.tokens?.['access_token']]);
  });
});
