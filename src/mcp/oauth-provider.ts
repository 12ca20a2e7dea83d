// The MCP SDK's OAuthClientProvider over agentd's grant file (oauth-store.ts). Two uses:
//  - passive (every connection of a remote server that has a stored grant): the SDK's transport asks `tokens()`
//    before each request; a token at or near expiry is refreshed first (oauth-refresh.ts), and on a 401 the SDK
//    refreshes and retries. When a new authorization would be needed it fails with UnauthorizedError (the server
//    is `needs-auth`), never starting one on its own.
//  - interactive (mcp_authenticate): the SDK's `auth()` runs discovery, dynamic client registration and PKCE;
//    the authorization URL it produces is handed to the host instead of a browser.
// Discovery's result (RFC 9728 / RFC 8414) is kept with the grant, so refreshes and revocation need no discovery;
// the config's `oauth.authServerMetadataUrl` replaces discovery of the authorization server, as in Claude Code.
import { UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthClientInformationFullSchema,
  OAuthClientInformationSchema,
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  OAuthTokensSchema,
  OpenIdProviderDiscoveryMetadataSchema,
  type AuthorizationServerMetadata,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { noteFailure, recentlyFailed, refreshDue, refreshThroughSdk, sharedRefresh, tokenExpiry } from './oauth-refresh.js';
import type { McpOAuthEntry, McpOAuthStore } from './oauth-store.js';

export interface ProviderOptions {
  store: McpOAuthStore;
  key: string;
  serverName: string;
  serverUrl: string;
  /** Where the authorization server sends the browser back (the loopback listener, or the host's own URI). */
  redirectUrl: string;
  /** A pre-registered client (the config's `oauth.clientId`): no dynamic registration. */
  clientId?: string;
  /** Interactive only: receives the authorization URL. Absent: a new authorization fails with UnauthorizedError. */
  onAuthorizationUrl?: (url: URL) => void;
  state?: string;
  clientVersion: string;
  /** How the authorization server is reached (discovery, refresh). Default: the global fetch. */
  fetch?: typeof fetch;
  /** The config's `oauth.authServerMetadataUrl`: the authorization server's metadata is read there (https:// only). */
  authServerMetadataUrl?: string;
  /** Internal: the provider `auth()` refreshes through; its `tokens()` never refreshes on its own. */
  raw?: boolean;
}

function parseTokens(e: McpOAuthEntry | undefined): OAuthTokens | undefined {
  if (!e?.tokens) return undefined;
  const parsed = OAuthTokensSchema.safeParse(e.tokens);
  return parsed.success ? parsed.data : undefined;
}

/** RFC 8414 or OpenID Connect discovery metadata, or undefined. */
export function parseMetadata(v: unknown): AuthorizationServerMetadata | undefined {
  const oauth = OAuthMetadataSchema.safeParse(v);
  if (oauth.success) return oauth.data;
  const oidc = OpenIdProviderDiscoveryMetadataSchema.safeParse(v);
  return oidc.success ? oidc.data : undefined;
}

/** The stored discovery result, or undefined when it is unreadable or was made for another configured metadata URL. */
function storedDiscovery(e: McpOAuthEntry | undefined, configured: string | undefined): OAuthDiscoveryState | undefined {
  const d = e?.discovery;
  if (!d || typeof d['authorizationServerUrl'] !== 'string') return undefined;
  if ((typeof d['configuredMetadataUrl'] === 'string' ? d['configuredMetadataUrl'] : undefined) !== configured) return undefined;
  const metadata = d['authorizationServerMetadata'] === undefined ? undefined : parseMetadata(d['authorizationServerMetadata']);
  const resource = OAuthProtectedResourceMetadataSchema.safeParse(d['resourceMetadata']);
  return {
    authorizationServerUrl: d['authorizationServerUrl'],
    ...(typeof d['resourceMetadataUrl'] === 'string' ? { resourceMetadataUrl: d['resourceMetadataUrl'] } : {}),
    ...(metadata ? { authorizationServerMetadata: metadata } : {}),
    ...(resource.success ? { resourceMetadata: resource.data } : {}),
  };
}

/** Claude Code's `oauth.authServerMetadataUrl`: fetched as is (https:// only, its checks and messages). */
export async function configuredMetadata(url: string, f: typeof fetch): Promise<AuthorizationServerMetadata> {
  if (!url.startsWith('https://')) throw new Error(`authServerMetadataUrl must use https:// (got: ${url})`);
  const res = await f(url, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`HTTP ${res.status} fetching configured auth server metadata from ${url}`);
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new Error(`Configured auth server metadata at ${url} is not valid JSON`);
  }
  const m = parseMetadata(body);
  if (!m) throw new Error(`Configured auth server metadata at ${url} is not RFC 8414 authorization server metadata`);
  return m;
}

export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  /** The access token `tokens()` last handed out: a refused grant removes the stored tokens only if they are still these. */
  private served: string | undefined;
  /** This provider has stored a discovery result of its own. */
  private discovered = false;

  constructor(private readonly o: ProviderOptions) {}

  get redirectUrl(): string {
    return this.o.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'agentd',
      software_id: 'agentd',
      software_version: this.o.clientVersion,
      redirect_uris: [this.o.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client: PKCE protects the code, there is no secret a local program could keep.
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.o.state ?? '';
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const info = this.storedClient();
    // `auth()` would register a new client when there is none (e.g. after the authorization server forgot this
    // one, invalid_client): only an interactive flow may; a connection or a refresh ends needs-auth instead.
    if (!info && !this.o.onAuthorizationUrl) {
      throw new UnauthorizedError(`the stored authorization of "${this.o.serverName}" has no usable client registration; authenticate again (mcp_authenticate)`);
    }
    return info;
  }

  private storedClient(): OAuthClientInformationMixed | undefined {
    if (this.o.clientId) return { client_id: this.o.clientId };
    const e = this.o.store.get(this.o.key);
    if (!e?.clientInformation) return undefined;
    // Registered for another redirect URI (another loopback port): an interactive flow registers again.
    if (this.o.onAuthorizationUrl && e.redirectUri !== this.o.redirectUrl) return undefined;
    const full = OAuthClientInformationFullSchema.safeParse(e.clientInformation);
    if (full.success) return full.data;
    const basic = OAuthClientInformationSchema.safeParse(e.clientInformation);
    return basic.success ? basic.data : undefined;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.o.store.update(this.o.key, (old) => ({ ...this.base(old), clientInformation: { ...info }, redirectUri: this.o.redirectUrl }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const entry = this.o.store.get(this.o.key);
    const current = parseTokens(entry);
    this.served = current?.access_token;
    // Interactive flows and the refresh's own provider: `auth()` decides; only the passive one refreshes early.
    if (!entry || !current || this.o.onAuthorizationUrl || this.o.raw) return current;
    if (!refreshDue(entry, Date.now())) return current;
    const expired = (): boolean => (tokenExpiry(entry)?.at ?? Infinity) <= Date.now();
    const refreshToken = current.refresh_token;
    // Expired with nothing to refresh it with: not sent (the server's 401 makes it needs-auth), as Claude Code.
    if (!refreshToken) return this.serve(expired() ? undefined : current);
    if (!recentlyFailed(this.o.store, this.o.key, refreshToken, Date.now())) {
      await sharedRefresh(this.o.store, this.o.key, () => this.refreshNow(refreshToken));
    }
    const after = parseTokens(this.o.store.get(this.o.key));
    // Refused (the SDK removed the tokens): nothing is sent; the 401 that follows makes the server needs-auth.
    if (!after) return this.serve(undefined);
    // Refreshed here, by a concurrent request, or by another process sharing the grant file.
    if (after.access_token !== current.access_token) return this.serve(after);
    // The refresh failed for now (unreachable, 5xx, timed out): a token still valid is sent, an expired one never.
    return this.serve(expired() ? undefined : current);
  }

  private serve(t: OAuthTokens | undefined): OAuthTokens | undefined {
    this.served = t?.access_token;
    return t;
  }

  /** One proactive refresh (shared by concurrent requests); a failure that kept the grant is remembered for a while. */
  private async refreshNow(refreshToken: string): Promise<void> {
    const raw = new StoredOAuthProvider({ ...this.o, raw: true });
    // Without a client registration, `auth()` would register one: never done outside mcp_authenticate.
    if (raw.storedClient()) {
      try {
        await refreshThroughSdk(raw, this.o.serverUrl, this.o.fetch ?? fetch);
        return;
      } catch {
        // Below: told apart by what is stored now.
      }
    }
    const now = parseTokens(this.o.store.get(this.o.key));
    if (now?.refresh_token === refreshToken) noteFailure(this.o.store, this.o.key, refreshToken, Date.now());
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const configured = this.o.authServerMetadataUrl;
    // A sign-in (mcp_authenticate) discovers afresh, in case the authorization server moved; its own result is
    // then reused for the code exchange.
    const cached = this.o.onAuthorizationUrl && !this.discovered ? undefined : storedDiscovery(this.o.store.get(this.o.key), configured);
    if (cached) return cached;
    if (!configured) return undefined;
    const metadata = await configuredMetadata(configured, this.o.fetch ?? fetch);
    return { authorizationServerUrl: metadata.issuer, authorizationServerMetadata: metadata };
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = true;
    // With the configured metadata URL it came from, so a changed config discovers again.
    const discovery: Record<string, unknown> = {
      authorizationServerUrl: String(state.authorizationServerUrl),
      ...(state.resourceMetadataUrl ? { resourceMetadataUrl: state.resourceMetadataUrl } : {}),
      ...(state.resourceMetadata ? { resourceMetadata: { ...state.resourceMetadata } } : {}),
      ...(state.authorizationServerMetadata ? { authorizationServerMetadata: { ...state.authorizationServerMetadata } } : {}),
      ...(this.o.authServerMetadataUrl ? { configuredMetadataUrl: this.o.authServerMetadataUrl } : {}),
    };
    this.o.store.update(this.o.key, (old) => ({ ...this.base(old), discovery }));
  }

  saveTokens(tokens: OAuthTokens): void {
    this.o.store.update(this.o.key, (old) => ({ ...this.base(old), tokens: { ...tokens }, tokensSavedAt: Date.now() }));
  }

  redirectToAuthorization(url: URL): void {
    if (!this.o.onAuthorizationUrl) {
      throw new UnauthorizedError(`the stored authorization of "${this.o.serverName}" can no longer be used (expired or revoked, and it could not be refreshed); authenticate again (mcp_authenticate)`);
    }
    this.o.onAuthorizationUrl(url);
  }

  // The PKCE verifier lives in memory only, for the one flow that made it.
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no authorization is in progress (no PKCE code verifier)');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    this.o.store.update(this.o.key, (old) => {
      if (!old) return undefined;
      const { tokens, tokensSavedAt, clientInformation, redirectUri, discovery, ...rest } = old;
      const keepTokens = tokens ? { tokens, ...(tokensSavedAt !== undefined ? { tokensSavedAt } : {}) } : {};
      const keepClient = clientInformation ? { clientInformation, ...(redirectUri ? { redirectUri } : {}) } : {};
      const keepDiscovery = discovery ? { discovery } : {};
      switch (scope) {
        case 'discovery':
          return { ...rest, ...keepTokens, ...keepClient };
        case 'client':
          return { ...rest, ...keepTokens, ...keepDiscovery };
        case 'tokens': {
          // Another request or process stored new tokens since these were handed out: those stay.
          const stored = parseTokens(old)?.access_token;
          if (this.served !== undefined && stored !== undefined && stored !== this.served) return old;
          return { ...rest, ...keepClient, ...keepDiscovery };
        }
        default:
          return rest;
      }
    });
  }

  private base(old: ReturnType<McpOAuthStore['get']>): NonNullable<ReturnType<McpOAuthStore['get']>> {
    return old ?? { serverName: this.o.serverName, serverUrl: this.o.serverUrl };
  }
}
