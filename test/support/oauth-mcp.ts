// A loopback OAuth 2.1 authorization server and an MCP server (Streamable HTTP, and legacy SSE) that requires
// its bearer tokens, both built on the MCP SDK's server-side auth helpers (mcpAuthRouter: metadata, dynamic
// registration, PKCE, token, refresh and, on request, revocation endpoints; mcpAuthMetadataRouter +
// requireBearerAuth on the resource server). The "browser" is `authorize()`: it follows the authorization URL
// like a user who consents at once.
import { randomUUID } from 'node:crypto';
import { type Server as HttpServer, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { InvalidGrantError, InvalidTokenError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { createOAuthMetadata, mcpAuthMetadataRouter, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

class Clients implements OAuthRegisteredClientsStore {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  getClient(id: string): OAuthClientInformationFull | undefined {
    return this.clients.get(id);
  }
  registerClient(c: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>): OAuthClientInformationFull {
    const full = { ...c, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
    this.clients.set(full.client_id, full);
    return full;
  }
}

/** An in-memory authorization server: codes, access tokens with an expiry the test controls, refresh tokens. */
class TestAuthProvider implements OAuthServerProvider {
  readonly clientsStore = new Clients();
  readonly codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  readonly access = new Map<string, { clientId: string; expiresAt: number }>();
  readonly refresh = new Map<string, string>();
  /** Lifetime of new access tokens, in seconds. */
  accessLifetime = 3600;
  /** Each grant and refresh, in order (a refused refresh as `refresh:<how>`). */
  readonly log: string[] = [];
  /** How the next refreshes are answered; `delayMs` holds each answer back (to overlap concurrent requests). */
  refreshAnswer: 'ok' | 'invalid_grant' | 'server_error' = 'ok';
  refreshDelayMs = 0;
  /** Set by the fixture when it advertises revocation (the router adds the endpoint only for a provider with it). */
  revokeToken?: OAuthServerProvider['revokeToken'];

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const code = randomUUID();
    this.codes.set(code, { clientId: client.client_id, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.toString());
  }

  async challengeForAuthorizationCode(_c: OAuthClientInformationFull, code: string): Promise<string> {
    const c = this.codes.get(code);
    if (!c) throw new Error('Invalid authorization code');
    return c.params.codeChallenge;
  }

  /** A new access and refresh token for a client (as the code exchange would answer). */
  issue(clientId: string): OAuthTokens {
    const token = randomUUID();
    const refresh = randomUUID();
    this.access.set(token, { clientId, expiresAt: Math.floor(Date.now() / 1000) + this.accessLifetime });
    this.refresh.set(refresh, clientId);
    return { access_token: token, token_type: 'bearer', expires_in: this.accessLifetime, refresh_token: refresh };
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const c = this.codes.get(code);
    if (!c || c.clientId !== client.client_id) throw new Error('Invalid authorization code');
    this.codes.delete(code);
    this.log.push('code');
    return this.issue(client.client_id);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    if (this.refreshDelayMs) await new Promise((r) => setTimeout(r, this.refreshDelayMs));
    if (this.refreshAnswer !== 'ok') {
      this.log.push(`refresh:${this.refreshAnswer}`);
      throw this.refreshAnswer === 'invalid_grant' ? new InvalidGrantError('refresh token revoked') : new ServerError('down for maintenance');
    }
    if (this.refresh.get(refreshToken) !== client.client_id) {
      this.log.push('refresh:unknown_token');
      throw new InvalidGrantError('Invalid refresh token');
    }
    this.refresh.delete(refreshToken);
    this.log.push('refresh');
    return this.issue(client.client_id);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const t = this.access.get(token);
    if (!t || t.expiresAt <= Math.floor(Date.now() / 1000)) throw new InvalidTokenError('Invalid or expired token');
    return { token, clientId: t.clientId, scopes: [], expiresAt: t.expiresAt };
  }

  /** Expires every access token now (the next MCP request gets a 401 and must refresh). */
  expireAll(): void {
    for (const t of this.access.values()) t.expiresAt = 0;
  }
}

async function listen(): Promise<{ http: HttpServer; base: string }> {
  const http = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return { http, base: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

/** One request to the revocation endpoint: its form fields and Authorization header. */
export interface RevocationRequest {
  form: Record<string, string>;
  authorization: string | undefined;
}

export interface OAuthMcpOptions {
  /**
   * Advertise a revocation endpoint (RFC 7009) answering 200, 503, never, or 401 unless the request carries a
   * Bearer token. Absent: none in the metadata.
   */
  revocation?: 'ok' | 'fail' | 'hang' | 'bearer-only';
}

export interface OAuthMcpFixture {
  mcpUrl: string;
  /** The same server over the legacy SSE transport (GET opens the event stream, POSTs go to /mcp/messages). */
  sseUrl: string;
  /** The authorization server's issuer URL. */
  issuer: string;
  /** Every request to the revocation endpoint, in order. */
  revocations: RevocationRequest[];
  /** Every request to the authorization server: method and path, in order. */
  asRequests: string[];
  provider: TestAuthProvider;
  /** Each tool call: its arguments and the client id of the token it carried. */
  calls: Array<[unknown, string]>;
  /** Every request to the MCP endpoint: its status, in order. */
  statuses: number[];
  /** Follows an authorization URL as a consenting user's browser would; resolves with the redirect's target. */
  authorize(authUrl: string): Promise<string>;
  close(): Promise<void>;
}

export async function oauthMcpServer(options: OAuthMcpOptions = {}): Promise<OAuthMcpFixture> {
  const provider = new TestAuthProvider();
  const as = await listen();
  const rs = await listen();
  const mcpUrl = `${rs.base}/mcp`;
  const issuerUrl = new URL(`${as.base}/`);
  const asApp = express();
  const revocations: RevocationRequest[] = [];
  const asRequests: string[] = [];
  asApp.use((req, _res, next) => {
    asRequests.push(`${req.method} ${req.path}`);
    next();
  });
  const revocation = options.revocation;
  if (revocation) {
    // The router advertises `/revoke` only for a provider that can revoke; the requests are answered here.
    provider.revokeToken = async () => undefined;
    asApp.post('/revoke', express.urlencoded({ extended: false }), (req, res) => {
      const body: unknown = req.body;
      const form = typeof body === 'object' && body !== null ? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)])) : {};
      revocations.push({ form, authorization: req.headers.authorization });
      if (revocation === 'ok' || (revocation === 'bearer-only' && req.headers.authorization?.startsWith('Bearer '))) res.status(200).end();
      else if (revocation === 'bearer-only') res.status(401).json({ error: 'invalid_client' });
      else if (revocation === 'fail') res.status(503).json({ error: 'temporarily_unavailable' });
      // 'hang': never answered (the connection is cut when the fixture closes).
    });
  }
  asApp.use(mcpAuthRouter({ provider, issuerUrl, resourceServerUrl: new URL(mcpUrl) }));
  as.http.on('request', asApp);

  const calls: Array<[unknown, string]> = [];
  const statuses: number[] = [];
  const mcp = (): Server => {
    const s = new Server({ name: 'oauth-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
    s.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'whoami', description: 'Says who you are', inputSchema: { type: 'object', properties: { note: { type: 'string' } } } }],
    }));
    s.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      calls.push([req.params.arguments, extra.authInfo?.clientId ?? '']);
      return { content: [{ type: 'text', text: `authorized as ${extra.authInfo?.clientId ? 'a registered client' : 'nobody'}` }] };
    });
    return s;
  };
  const rsApp = express();
  rsApp.use(mcpAuthMetadataRouter({ oauthMetadata: createOAuthMetadata({ provider, issuerUrl }), resourceServerUrl: new URL(mcpUrl) }));
  rsApp.use('/mcp', (_req, res, next) => {
    res.on('finish', () => statuses.push(res.statusCode));
    next();
  });
  rsApp.use('/mcp', requireBearerAuth({ verifier: provider, resourceMetadataUrl: `${rs.base}/.well-known/oauth-protected-resource/mcp` }));
  // The legacy SSE transport, behind the same bearer check; its own protected-resource metadata.
  const sseUrl = `${rs.base}/mcp/sse`;
  rsApp.use(mcpAuthMetadataRouter({ oauthMetadata: createOAuthMetadata({ provider, issuerUrl }), resourceServerUrl: new URL(sseUrl) }));
  const sseSessions = new Map<string, SSEServerTransport>();
  rsApp.get('/mcp/sse', (_req, res) => {
    const transport = new SSEServerTransport('/mcp/messages', res);
    sseSessions.set(transport.sessionId, transport);
    res.on('close', () => sseSessions.delete(transport.sessionId));
    void mcp().connect(transport);
  });
  rsApp.post('/mcp/messages', (req, res) => {
    const transport = sseSessions.get(String(req.query['sessionId']));
    if (!transport) return void res.status(404).end();
    void transport.handlePostMessage(req, res);
  });
  rsApp.use('/mcp', (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void mcp()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  rs.http.on('request', rsApp);

  return {
    mcpUrl,
    sseUrl,
    issuer: issuerUrl.href,
    revocations,
    asRequests,
    provider,
    calls,
    statuses,
    authorize: async (authUrl) => {
      const r = await fetch(authUrl, { redirect: 'manual' });
      const location = r.headers.get('location');
      if (r.status !== 302 || !location) throw new Error(`authorization answered ${r.status}: ${await r.text()}`);
      return location;
    },
    close: async () => {
      for (const s of [as.http, rs.http]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}
