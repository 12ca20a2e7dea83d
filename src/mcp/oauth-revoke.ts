// Token revocation (RFC 7009) when the host clears a server's authentication (mcp_clear_auth), as Claude Code
// 2.1.330 does it: the authorization server's metadata (kept with the grant since discovery, else the config's
// `oauth.authServerMetadataUrl`, else discovered again) must advertise an http(s) `revocation_endpoint`; the
// refresh token is revoked first, then the access token, each a form POST of `token` and `token_type_hint` with
// the client's authentication — `client_id` and `client_secret` by HTTP Basic unless the server lists only
// client_secret_post (revocation_endpoint_auth_methods_supported, else token_endpoint_auth_methods_supported),
// only `client_id` for a public client — and, when the server answers 401, once more with the access token as a
// Bearer credential instead. The MCP server's configured headers (never Authorization) go along when the endpoint
// is on the MCP server's own origin. Every failure is collected, never thrown: the caller deletes the grant
// regardless. Redirects are not followed (a revocation is never sent somewhere the metadata did not name).
import { discoverAuthorizationServerMetadata, discoverOAuthServerInfo } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { configuredMetadata, parseMetadata } from './oauth-provider.js';
import { withDeadline } from './oauth-refresh.js';
import type { McpOAuthEntry } from './oauth-store.js';

export interface RevokeOptions {
  /** The grant as it was stored (already deleted locally by the caller). */
  entry: McpOAuthEntry;
  serverUrl: string;
  /** The server config's headers: sent to a revocation endpoint on the MCP server's own origin. */
  headers?: Readonly<Record<string, string>>;
  authServerMetadataUrl?: string;
  /** The config's `oauth.clientId` (a pre-registered client). */
  clientId?: string;
  fetch: typeof fetch;
  /** Bounds the whole revocation (metadata and both requests). */
  timeoutMs: number;
}

/** What happened at the authorization server; only logged (Claude Code's mcp_clear_auth answer has no room for it). */
export type RevokeOutcome =
  | { kind: 'revoked'; revoked: Array<'refresh_token' | 'access_token'> }
  | { kind: 'skipped'; reason: 'no_tokens' | 'no_metadata' | 'no_revocation_endpoint' | 'revocation_endpoint_not_web' }
  | { kind: 'failed'; revoked: Array<'refresh_token' | 'access_token'>; errors: string[] };

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

async function metadataFor(o: RevokeOptions, fetchFn: typeof fetch): Promise<AuthorizationServerMetadata | undefined> {
  const d = o.entry.discovery;
  const cached = d?.['authorizationServerMetadata'] !== undefined ? parseMetadata(d['authorizationServerMetadata']) : undefined;
  if (cached) return cached;
  if (o.authServerMetadataUrl) return configuredMetadata(o.authServerMetadataUrl, fetchFn);
  const asUrl = str(d?.['authorizationServerUrl']);
  if (asUrl) return discoverAuthorizationServerMetadata(asUrl, { fetchFn });
  return (await discoverOAuthServerInfo(o.serverUrl, { fetchFn })).authorizationServerMetadata;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

export async function revokeGrant(o: RevokeOptions): Promise<RevokeOutcome> {
  const refreshToken = str(o.entry.tokens?.['refresh_token']);
  const accessToken = str(o.entry.tokens?.['access_token']);
  if (!refreshToken && !accessToken) return { kind: 'skipped', reason: 'no_tokens' };
  const fetchFn = withDeadline(o.fetch, AbortSignal.timeout(o.timeoutMs));
  const errors: string[] = [];
  let metadata: AuthorizationServerMetadata | undefined;
  try {
    metadata = await metadataFor(o, fetchFn);
  } catch (e) {
    return { kind: 'failed', revoked: [], errors: [`metadata: ${e instanceof Error ? e.message : String(e)}`] };
  }
  if (!metadata) return { kind: 'skipped', reason: 'no_metadata' };
  const endpoint = str('revocation_endpoint' in metadata ? metadata.revocation_endpoint : undefined);
  if (!endpoint) return { kind: 'skipped', reason: 'no_revocation_endpoint' };
  if (!/^https?:\/\//i.test(endpoint)) return { kind: 'skipped', reason: 'revocation_endpoint_not_web' };

  const info = o.entry.clientInformation;
  const clientId = str(info?.['client_id']) ?? o.clientId;
  const clientSecret = str(info?.['client_secret']);
  const methods = ('revocation_endpoint_auth_methods_supported' in metadata ? metadata.revocation_endpoint_auth_methods_supported : undefined) ?? metadata.token_endpoint_auth_methods_supported;
  const method = methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
  const configured: Record<string, string> = {};
  if (o.headers && sameOrigin(endpoint, o.serverUrl)) {
    for (const [k, v] of Object.entries(o.headers)) if (k.toLowerCase() !== 'authorization') configured[k] = v;
  }

  const post = async (form: URLSearchParams, headers: Record<string, string>): Promise<Response> =>
    fetchFn(endpoint, { method: 'POST', headers: { ...configured, ...headers, 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString(), redirect: 'manual' });

  const revokeOne = async (token: string, hint: 'refresh_token' | 'access_token'): Promise<void> => {
    const form = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = {};
    if (clientId && clientSecret) {
      if (method === 'client_secret_post') {
        form.set('client_id', clientId);
        form.set('client_secret', clientSecret);
      } else {
        headers['Authorization'] = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
      }
    } else if (clientId) {
      form.set('client_id', clientId);
    }
    let res = await post(form, headers);
    if (res.status === 401 && accessToken) {
      await res.body?.cancel();
      form.delete('client_id');
      form.delete('client_secret');
      res = await post(form, { Authorization: `Bearer ${accessToken}` });
    }
    await res.body?.cancel();
    if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
  };

  const revoked: Array<'refresh_token' | 'access_token'> = [];
  for (const [token, hint] of [
    [refreshToken, 'refresh_token'],
    [accessToken, 'access_token'],
  ] as const) {
    if (!token) continue;
    try {
      await revokeOne(token, hint);
      revoked.push(hint);
    } catch (e) {
      // Never the token itself: the message is the status or the network error.
      errors.push(`${hint}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return errors.length ? { kind: 'failed', revoked, errors } : { kind: 'revoked', revoked };
}
