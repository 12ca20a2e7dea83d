// The server config's `oauth` keys that decide what a sign-in asks for: `scopes` is read strictly (a value of
// another shape refuses the sign-in with a typed error and sends nothing, never falling back to the server's wider
// default), and `xaa`, which agentd does not support, is said in the log rather than dropped silently. Through
// McpAuth and a real hub, against the loopback authorization server of test/support/oauth-mcp.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { McpAuthError } from '../../../src/mcp/auth.js';
import { oauthScopes } from '../../../src/mcp/oauth-store.js';
import { type OAuthMcpFixture, oauthMcpServer } from '../../support/oauth-mcp.js';
import { authFor, hubFor, removeGrantDirs, seedGrant } from './oauth-support.js';

const fixtures: OAuthMcpFixture[] = [];
const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.close();
  removeGrantDirs();
});

async function authWith(oauth: Record<string, unknown>) {
  const f = await oauthMcpServer();
  fixtures.push(f);
  const seeded = seedGrant(f);
  const s = { ...seeded, config: { ...seeded.config, oauth } };
  const { hub } = hubFor(s);
  closers.push(() => hub.close());
  await hub.settled(20_000);
  const { auth, logs } = authFor(hub, s);
  closers.push(() => auth.close());
  return { f, hub, auth, logs };
}

describe('oauth.scopes', () => {
  it('is a non-empty space-separated string; anything else is refused, not dropped', () => {
    expect([oauthScopes({}), oauthScopes({ oauth: { scopes: ' read:a read:b ' } }), oauthScopes({ oauth: { scopes: ['x'] } }), oauthScopes({ oauth: { scopes: ' ' } })]).toEqual([
      { ok: true, scopes: undefined },
      { ok: true, scopes: 'read:a read:b' },
      { ok: false, message: 'oauth.scopes must be a non-empty string of space-separated scopes (got ["x"])' },
      { ok: false, message: 'oauth.scopes must be a non-empty string of space-separated scopes (got " ")' },
    ]);
  });

  it('of the wrong shape: mcp_authenticate fails with a typed error naming it, and nothing reaches the authorization server', async () => {
    const { f, hub, auth } = await authWith({ scopes: ['read:a'] });
    const before = f.asRequests.length;
    const err = await auth.authenticate('secure', {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpAuthError);
    expect([(err as McpAuthError).code, (err as McpAuthError).message]).toEqual([
      'request_failed',
      'OAuth for "secure" could not start: oauth.scopes must be a non-empty string of space-separated scopes (got ["read:a"])',
    ]);
    expect(f.asRequests.slice(before)).toEqual([]);
    // The stored grant is untouched and the server stays connected with it.
    expect(hub.initList()).toEqual([{ name: 'secure', status: 'connected', source: 'dynamic' }]);
  });
});

describe('oauth.xaa', () => {
  it('is not supported: the sign-in goes on as the ordinary one, and the log says so', async () => {
    const { auth, logs } = await authWith({ xaa: true });
    await auth.authenticate('secure', {});
    expect(logs.filter(([level]) => level === 'warn')).toEqual([
      ['warn', 'oauth.xaa (cross-app access through an enterprise IdP) is not supported; the ordinary OAuth sign-in is used', { server: 'secure' }],
    ]);
  });
});
