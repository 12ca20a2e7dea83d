// What the MCP OAuth unit tests share: a grant file in a temporary directory holding a grant for the loopback
// fixture's server (a registered client and tokens issued by its authorization server, as mcp_authenticate
// would have stored them), a hub connecting to that server with it, and McpAuth over the two.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RemoteServerConfig } from '../../../src/mcp/config.js';
import { McpAuth } from '../../../src/mcp/auth.js';
import type { McpHub } from '../../../src/mcp/hub.js';
import { McpOAuthStore, oauthKey } from '../../../src/mcp/oauth-store.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import type { OAuthMcpFixture } from '../../support/oauth-mcp.js';
import { makeHub } from './support.js';

const dirs: string[] = [];
export function removeGrantDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface Seeded {
  store: McpOAuthStore;
  key: string;
  config: RemoteServerConfig;
  clientId: string;
  /** The tokens stored, as the authorization server issued them. */
  tokens: { access_token: string; refresh_token?: string };
}

/** A grant for the fixture's server stored as agentd stores one; `lifetime` is the access token's `expires_in`. */
export function seedGrant(f: OAuthMcpFixture, o: { lifetime?: number; clientSecret?: string; discovery?: Record<string, unknown>; transport?: 'http' | 'sse' } = {}): Seeded {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-oauth-'));
  dirs.push(dir);
  const store = new McpOAuthStore(join(dir, 'agentd', 'mcp-oauth.json'));
  const client = f.provider.clientsStore.registerClient({
    client_name: 'agentd',
    redirect_uris: ['http://localhost:1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: o.clientSecret ? 'client_secret_post' : 'none',
    ...(o.clientSecret ? { client_secret: o.clientSecret } : {}),
  });
  f.provider.accessLifetime = o.lifetime ?? 3600;
  const tokens = f.provider.issue(client.client_id);
  const config: RemoteServerConfig = o.transport === 'sse' ? { type: 'sse', url: f.sseUrl } : { type: 'http', url: f.mcpUrl };
  const key = oauthKey('secure', config);
  store.update(key, () => ({
    serverName: 'secure',
    serverUrl: config.url,
    clientInformation: { ...client, issuer: f.issuer },
    redirectUri: 'http://localhost:1/callback',
    tokens: { ...tokens, issuer: f.issuer },
    tokensSavedAt: Date.now(),
    ...(o.discovery ? { discovery: o.discovery } : {}),
  }));
  return { store, key, config, clientId: client.client_id, tokens };
}

/** A hub with the fixture's server configured as `secure`, connecting with the grant in `store`. */
export function hubFor(s: Seeded, tools = new ToolRegistry([])): { hub: McpHub; tools: ToolRegistry } {
  const hub = makeHub(tools, { oauthStore: s.store, redialDelaysMs: [10] });
  hub.start();
  hub.add([{ kind: 'remote', name: 'secure', source: 'dynamic', config: s.config }]);
  return { hub, tools };
}

export type LogLine = [level: 'info' | 'warn', message: string | undefined, fields: object];

/** McpAuth over `hub` and the grant file in `s`, its log lines collected. */
export function authFor(hub: McpHub, s: Seeded, o: { revokeTimeoutMs?: number } = {}): { auth: McpAuth; logs: LogLine[] } {
  const logs: LogLine[] = [];
  const auth = new McpAuth({
    hub,
    store: s.store,
    fetch: globalThis.fetch,
    clientVersion: 'test',
    ...(o.revokeTimeoutMs !== undefined ? { revokeTimeoutMs: o.revokeTimeoutMs } : {}),
    logger: { info: (fields, message) => logs.push(['info', message, fields]), warn: (fields, message) => logs.push(['warn', message, fields]) },
    load: () => import('../../../src/mcp/lazy-entry.js'),
  });
  return { auth, logs };
}
