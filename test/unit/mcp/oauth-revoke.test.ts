// mcp_clear_auth revokes the grant's tokens at the authorization server (RFC 7009, oauth-revoke.ts) as Claude Code
// 2.1.330 does — refresh token first, then access token, a form of `token` + `token_type_hint` + the client's
// authentication, a Bearer retry on 401 — and deletes the local grant whatever the authorization server answers:
// an error, nothing within the time limit, or no revocation endpoint at all (then nothing is sent). Against the
// loopback authorization server of test/support/oauth-mcp.ts, through McpAuth and a real hub.
import { afterEach, describe, expect, it } from 'vitest';
import type { McpAuth } from '../../../src/mcp/auth.js';
import type { McpHub } from '../../../src/mcp/hub.js';
import { type OAuthMcpFixture, type OAuthMcpOptions, oauthMcpServer } from '../../support/oauth-mcp.js';
import { type LogLine, type Seeded, authFor, hubFor, removeGrantDirs, seedGrant } from './oauth-support.js';

const fixtures: OAuthMcpFixture[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.close();
  removeGrantDirs();
});

async function fixture(o: OAuthMcpOptions = {}): Promise<OAuthMcpFixture> {
  const f = await oauthMcpServer(o);
  fixtures.push(f);
  return f;
}

/** RFC 8414 metadata for the fixture's authorization server, as discovery would have kept it with a grant. */
function metadataOf(f: OAuthMcpFixture, extra: Record<string, unknown>): Record<string, unknown> {
  return { issuer: f.issuer, authorization_endpoint: `${f.issuer}authorize`, token_endpoint: `${f.issuer}token`, response_types_supported: ['code'], revocation_endpoint: `${f.issuer}revoke`, ...extra };
}

async function connected(s: Seeded, revokeTimeoutMs = 5_000): Promise<{ hub: McpHub; auth: McpAuth; logs: LogLine[] }> {
  const { hub } = hubFor(s);
  closers.push(() => hub.close());
  await hub.settled(20_000);
  expect(hub.initList()).toEqual([{ name: 'secure', status: 'connected', source: 'dynamic' }]);
  const { auth, logs } = authFor(hub, s, { revokeTimeoutMs });
  return { hub, auth, logs };
}

/** The fixture's two revocation requests for the seeded grant, with `client` as the client authentication. */
function expectedForms(s: Seeded, client: Record<string, string>): Array<Record<string, string>> {
  return [
    { token: String(s.tokens.refresh_token), token_type_hint: 'refresh_token', ...client },
    { token: s.tokens.access_token, token_type_hint: 'access_token', ...client },
  ];
}

describe('mcp_clear_auth revokes at the authorization server', () => {
  it('a public client: refresh token, then access token, each with client_id; the grant is deleted; the server is needs-auth', async () => {
    const f = await fixture({ revocation: 'ok' });
    const s = seedGrant(f);
    const { hub, auth, logs } = await connected(s);
    await auth.clearAuth('secure');
    expect(f.revocations).toEqual(expectedForms(s, { client_id: s.clientId }).map((form) => ({ form, authorization: undefined })));
    expect(s.store.get(s.key)).toBeUndefined();
    expect(hub.initList()).toEqual([{ name: 'secure', status: 'needs-auth', source: 'dynamic', error: expect.stringContaining('401') }]);
    expect(logs).toEqual([['info', 'MCP OAuth tokens revoked', { server: 'secure', revoked: ['refresh_token', 'access_token'] }]]);
  });

  it('a client with a secret: client_secret_post when the server lists only that, HTTP Basic when it lists client_secret_basic', async () => {
    const f = await fixture({ revocation: 'ok' });
    const s = seedGrant(f, { clientSecret: 's3cr:et' });
    const { auth } = await connected(s);
    await auth.clearAuth('secure');
    // The fixture's metadata: revocation_endpoint_auth_methods_supported ['client_secret_post'].
    expect(f.revocations).toEqual(expectedForms(s, { client_id: s.clientId, client_secret: 's3cr:et' }).map((form) => ({ form, authorization: undefined })));

    const g = await fixture({ revocation: 'ok' });
    const metadata = metadataOf(g, { token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'] });
    const t = seedGrant(g, { clientSecret: 's3cr:et', discovery: { authorizationServerUrl: g.issuer, authorizationServerMetadata: metadata } });
    const second = await connected(t);
    const requestsBefore = g.asRequests.length;
    await second.auth.clearAuth('secure');
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(t.clientId)}:${encodeURIComponent('s3cr:et')}`).toString('base64')}`;
    expect(g.revocations).toEqual(expectedForms(t, {}).map((form) => ({ form, authorization: basic })));
    // The metadata kept with the grant was used: no discovery before the revocations.
    expect(g.asRequests.slice(requestsBefore)).toEqual(['POST /revoke', 'POST /revoke']);
  });

  it('answered 401: retried with the access token as a Bearer credential and no client credentials', async () => {
    const f = await fixture({ revocation: 'bearer-only' });
    const s = seedGrant(f);
    const { auth, logs } = await connected(s);
    await auth.clearAuth('secure');
    const [refreshForm, accessForm] = expectedForms(s, { client_id: s.clientId });
    const bearer = `Bearer ${s.tokens.access_token}`;
    const { client_id: _r, ...refreshBare } = refreshForm ?? {};
    const { client_id: _a, ...accessBare } = accessForm ?? {};
    expect(f.revocations).toEqual([
      { form: refreshForm, authorization: undefined },
      { form: refreshBare, authorization: bearer },
      { form: accessForm, authorization: undefined },
      { form: accessBare, authorization: bearer },
    ]);
    expect(logs).toEqual([['info', 'MCP OAuth tokens revoked', { server: 'secure', revoked: ['refresh_token', 'access_token'] }]]);
  });

  it('the revocation endpoint fails: both tokens tried, the failure logged, the grant deleted all the same', async () => {
    const f = await fixture({ revocation: 'fail' });
    const s = seedGrant(f);
    const { hub, auth, logs } = await connected(s);
    await auth.clearAuth('secure');
    expect(f.revocations).toEqual(expectedForms(s, { client_id: s.clientId }).map((form) => ({ form, authorization: undefined })));
    expect(s.store.get(s.key)).toBeUndefined();
    expect(hub.initList()[0]?.status).toBe('needs-auth');
    expect(logs).toEqual([
      ['warn', 'MCP OAuth token revocation failed; the local grant is deleted regardless', { server: 'secure', revoked: [], errors: ['refresh_token: HTTP 503', 'access_token: HTTP 503'] }],
    ]);
    // Never a token in the log.
    expect(JSON.stringify(logs)).not.toContain(s.tokens.access_token);
  });

  it('the revocation endpoint never answers: clear-auth returns after the time limit and the grant is deleted', async () => {
    const f = await fixture({ revocation: 'hang' });
    // The metadata kept with the grant: the time limit is spent waiting on the revocation endpoint alone.
    const s = seedGrant(f, { discovery: { authorizationServerUrl: f.issuer, authorizationServerMetadata: metadataOf(f, {}) } });
    const { auth, logs } = await connected(s, 1_500);
    const t0 = Date.now();
    await auth.clearAuth('secure');
    const took = Date.now() - t0;
    // The limit is 1.5 s here; the reconnect that follows is quick on loopback.
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(10_000);
    expect(s.store.get(s.key)).toBeUndefined();
    // The refresh token's request was sent and cut off; the deadline had passed before the access token's.
    expect(f.revocations).toEqual(expectedForms(s, { client_id: s.clientId }).slice(0, 1).map((form) => ({ form, authorization: undefined })));
    expect(logs).toEqual([
      [
        'warn',
        'MCP OAuth token revocation failed; the local grant is deleted regardless',
        { server: 'secure', revoked: [], errors: [expect.stringMatching(/^refresh_token: .*(abort|timeout)/i), expect.stringMatching(/^access_token: .*(abort|timeout)/i)] },
      ],
    ]);
  });

  it('no revocation_endpoint in the metadata: nothing is sent to revoke, the grant is deleted', async () => {
    const f = await fixture();
    const s = seedGrant(f);
    const { auth, logs } = await connected(s);
    const requestsBefore = f.asRequests.length;
    await auth.clearAuth('secure');
    // Only the metadata was read (nothing was kept with this grant).
    expect(f.asRequests.slice(requestsBefore)).toEqual(['GET /.well-known/oauth-authorization-server']);
    expect(f.revocations).toEqual([]);
    expect(s.store.get(s.key)).toBeUndefined();
    expect(logs).toEqual([['info', 'MCP OAuth tokens not revoked at the authorization server', { server: 'secure', reason: 'no_revocation_endpoint' }]]);
  });
});
