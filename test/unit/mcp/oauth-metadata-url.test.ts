// The server config's `oauth.authServerMetadataUrl` (Claude Code 2.1.330's key): the authorization server's RFC
// 8414 metadata is read from that address instead of being discovered, https:// only, and what was read is kept
// with the grant. The https address is answered by a fetch stub in this process (no network); everything else goes
// to the loopback fixture of test/support/oauth-mcp.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { beginOAuth } from '../../../src/mcp/oauth-flow.js';
import { McpOAuthStore, oauthKey, oauthSettings } from '../../../src/mcp/oauth-store.js';
import { type OAuthMcpFixture, oauthMcpServer } from '../../support/oauth-mcp.js';

const META_URL = 'https://auth.example/custom/metadata.json';
const fixtures: OAuthMcpFixture[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storeIn(): McpOAuthStore {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-oauth-meta-'));
  dirs.push(dir);
  return new McpOAuthStore(join(dir, 'mcp-oauth.json'));
}

describe('oauth.authServerMetadataUrl', () => {
  it('is read from the config', () => {
    expect(oauthSettings({ oauth: { clientId: 'abc', authServerMetadataUrl: META_URL } })).toEqual({ clientId: 'abc', authServerMetadataUrl: META_URL });
  });

  it('replaces discovery of the authorization server: the sign-in uses its endpoints, and the metadata is kept with the grant', async () => {
    const f = await oauthMcpServer();
    fixtures.push(f);
    const metadata = {
      issuer: f.issuer,
      authorization_endpoint: `${f.issuer}authorize`,
      token_endpoint: `${f.issuer}token`,
      registration_endpoint: `${f.issuer}register`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    };
    const served: string[] = [];
    const stub: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url !== META_URL) return fetch(input, init);
      served.push(url);
      return new Response(JSON.stringify(metadata), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const store = storeIn();
    const key = oauthKey('secure', { type: 'http', url: f.mcpUrl });
    const start = await beginOAuth({ store, key, serverName: 'secure', serverUrl: f.mcpUrl, fetch: stub, clientVersion: 'test', timeoutMs: 60_000, redirectUri: 'myapp://cb', authServerMetadataUrl: META_URL });
    if (start.kind !== 'redirect') throw new Error('expected a redirect');
    expect(served).toEqual([META_URL]);
    // The authorization server's own metadata document was never asked for.
    expect(f.asRequests).toEqual(['POST /register']);
    expect(start.authUrl.startsWith(`${f.issuer}authorize?`)).toBe(true);
    expect(start.flow.submit(await f.authorize(start.authUrl))).toBe('accepted');
    await start.flow.done;
    expect(f.provider.log).toEqual(['code']);
    const discovery = store.get(key)?.discovery;
    expect(discovery?.['configuredMetadataUrl']).toBe(META_URL);
    expect(discovery?.['authorizationServerMetadata']).toEqual(metadata);
    expect(served).toEqual([META_URL]);
  });

  it('an address that is not https:// is refused, as Claude Code refuses it', async () => {
    const f = await oauthMcpServer();
    fixtures.push(f);
    const store = storeIn();
    const key = oauthKey('secure', { type: 'http', url: f.mcpUrl });
    const plain = `${f.issuer}.well-known/oauth-authorization-server`;
    await expect(
      beginOAuth({ store, key, serverName: 'secure', serverUrl: f.mcpUrl, fetch, clientVersion: 'test', timeoutMs: 60_000, authServerMetadataUrl: plain }),
    ).rejects.toThrow(`OAuth for "secure" could not start: authServerMetadataUrl must use https:// (got: ${plain})`);
    expect(f.asRequests).toEqual([]);
  });
});

describe('oauth.scopes', () => {
  it('is what the sign-in asks for; without it the authorization request names no scope the server did not advertise', async () => {
    const f = await oauthMcpServer();
    fixtures.push(f);
    const scopeOf = async (scopes: string | undefined): Promise<string | null> => {
      const store = storeIn();
      const key = oauthKey('secure', { type: 'http', url: f.mcpUrl });
      const start = await beginOAuth({ store, key, serverName: 'secure', serverUrl: f.mcpUrl, fetch, clientVersion: 'test', timeoutMs: 60_000, redirectUri: 'myapp://cb', ...(scopes ? { scopes } : {}) });
      if (start.kind !== 'redirect') throw new Error('expected a redirect');
      start.flow.cancel('test over');
      return new URL(start.authUrl).searchParams.get('scope');
    };
    expect([await scopeOf('read:a read:b'), await scopeOf(undefined)]).toEqual(['read:a read:b', null]);
  });
});
