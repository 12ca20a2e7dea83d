// The MCP SDK's OAuthClientProvider over agentd's grant file (oauth-store.ts). Two uses:
//  - passive (every connection of a remote server that has a stored grant): the SDK's transport sends the
//    access token and, on a 401, refreshes it with the refresh token; when a new authorization would be
//    needed it fails with UnauthorizedError (the server is `needs-auth`), never starting one on its own.
//  - interactive (mcp_authenticate): the SDK's `auth()` runs discovery, dynamic client registration and PKCE;
//    the authorization URL it produces is handed to the host instead of a browser.
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthClientInformationFullSchema,
  OAuthClientInformationSchema,
  OAuthTokensSchema,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthStore } from './oauth-store.js';

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
}

export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;

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

  tokens(): OAuthTokens | undefined {
    const t = this.o.store.get(this.o.key)?.tokens;
    if (!t) return undefined;
    const parsed = OAuthTokensSchema.safeParse(t);
    return parsed.success ? parsed.data : undefined;
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
    if (scope === 'discovery') return;
    this.o.store.update(this.o.key, (old) => {
      if (!old) return undefined;
      const { tokens: _t, tokensSavedAt: _s, clientInformation: _c, redirectUri: _r, ...rest } = old;
      if (scope === 'tokens') return { ...rest, ...(old.clientInformation ? { clientInformation: old.clientInformation } : {}), ...(old.redirectUri ? { redirectUri: old.redirectUri } : {}) };
      if (scope === 'client') return { ...rest, ...(old.tokens ? { tokens: old.tokens } : {}), ...(old.tokensSavedAt ? { tokensSavedAt: old.tokensSavedAt } : {}) };
      return rest;
    });
  }

  private base(old: ReturnType<McpOAuthStore['get']>): NonNullable<ReturnType<McpOAuthStore['get']>> {
    return old ?? { serverName: this.o.serverName, serverUrl: this.o.serverUrl };
  }
}
