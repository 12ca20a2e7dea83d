// One OAuth authorization for a remote MCP server (mcp_authenticate), as Claude Code runs it headless: the MCP
// SDK's `auth()` discovers the authorization server (RFC 9728 / RFC 8414), registers agentd as a client
// (RFC 7591) unless the config names a `clientId`, and builds the PKCE authorization URL; the URL goes to the
// host (no browser is opened). The browser comes back either to a loopback listener agentd runs on
// `http://localhost:<port>/callback` (the default, as Claude Code) or to the host's own redirect URI, whose
// full URL the host passes back with `mcp_oauth_callback_url`. The code is exchanged for tokens (stored by the
// provider), and the caller reconnects the server. Every failure rejects `done`: the server stays `needs-auth`.
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { StoredOAuthProvider } from './oauth-provider.js';
import type { McpOAuthStore } from './oauth-store.js';

export interface OAuthStartOptions {
  store: McpOAuthStore;
  key: string;
  serverName: string;
  serverUrl: string;
  fetch: typeof fetch;
  clientVersion: string;
  clientId?: string;
  /** The config's `oauth.authServerMetadataUrl`. */
  authServerMetadataUrl?: string;
  /** The config's `oauth.scopes`: asked for at registration and authorization instead of the server's advertised scopes. */
  scopes?: string;
  /** The loopback port: MCP_OAUTH_CALLBACK_PORT, else the config's `oauth.callbackPort`, else the last one used, else any. */
  callbackPort?: number;
  /** The host receives the redirect itself (a custom scheme or its own page). */
  redirectUri?: string;
  /** With `redirectUri`: fail rather than fall back to the loopback listener when that URI cannot be used. */
  redirectUriOnly?: boolean;
  /** How long the flow waits for the browser to come back. */
  timeoutMs: number;
}

export type SubmitOutcome = 'accepted' | 'state_mismatch' | 'no_code' | 'finished';

export interface OAuthFlow {
  /** Settles once the code was exchanged and the tokens stored (or the flow failed, timed out or was cancelled). */
  done: Promise<void>;
  /** The redirect URL the host received (`mcp_oauth_callback_url`). */
  submit(callbackUrl: string): SubmitOutcome;
  cancel(reason: string): void;
}

export type OAuthStart =
  | { kind: 'authorized' }
  | { kind: 'redirect'; authUrl: string; state: string; redirectScheme: 'localhost' | 'custom'; callbackPort?: number; flow: OAuthFlow };

/** A typed failure of mcp_authenticate with Claude Code's error code. */
export class McpOAuthStartError extends Error {
  constructor(
    message: string,
    readonly code: 'mcp_redirect_uri_unusable' | 'mcp_client_registration_unavailable' | 'oauth_failed',
  ) {
    super(message);
    this.name = 'McpOAuthStartError';
  }
}

const PAGE_OK = '<!doctype html><title>agentd</title><p>Authentication complete. You can close this window.</p>';
const PAGE_ERR = (m: string): string => `<!doctype html><title>agentd</title><p>Authentication failed: ${m.replace(/[<>&"]/g, '')}</p>`;

function listenOn(port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, host, () => resolve(s));
  });
}

/**
 * The loopback listener: 127.0.0.1 on the port asked for (any free one when it is taken or none is asked for),
 * and ::1 on the same port where the machine has IPv6, since `localhost` in the redirect may resolve to either.
 */
async function listen(port: number | undefined): Promise<Server[]> {
  let v4: Server | undefined;
  if (port !== undefined) v4 = await listenOn(port, '127.0.0.1').catch(() => undefined);
  v4 ??= await listenOn(0, '127.0.0.1');
  const v6 = await listenOn((v4.address() as AddressInfo).port, '::1').catch(() => undefined);
  return v6 ? [v4, v6] : [v4];
}

export async function beginOAuth(o: OAuthStartOptions): Promise<OAuthStart> {
  const state = randomBytes(24).toString('base64url');
  let authUrl: URL | undefined;
  const make = (redirectUrl: string): StoredOAuthProvider =>
    new StoredOAuthProvider({
      store: o.store,
      key: o.key,
      serverName: o.serverName,
      serverUrl: o.serverUrl,
      redirectUrl,
      state,
      clientVersion: o.clientVersion,
      fetch: o.fetch,
      ...(o.clientId ? { clientId: o.clientId } : {}),
      ...(o.authServerMetadataUrl ? { authServerMetadataUrl: o.authServerMetadataUrl } : {}),
      onAuthorizationUrl: (u) => (authUrl = u),
    });

  let provider: StoredOAuthProvider | undefined;
  let servers: Server[] = [];
  let scheme: 'localhost' | 'custom' = 'custom';
  const start = async (p: StoredOAuthProvider): Promise<'AUTHORIZED' | 'REDIRECT'> => auth(p, { serverUrl: o.serverUrl, fetchFn: o.fetch, ...(o.scopes ? { scope: o.scopes } : {}) });

  let result: 'AUTHORIZED' | 'REDIRECT' | undefined;
  if (o.redirectUri) {
    provider = make(o.redirectUri);
    try {
      result = await start(provider);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      if (o.redirectUriOnly) throw new McpOAuthStartError(`the redirect URI ${o.redirectUri} cannot be used with this authorization server: ${why}`, 'mcp_redirect_uri_unusable');
      // As Claude Code: the authorization server rejected the host's URI; agentd's loopback listener instead.
      provider = undefined;
    }
  }
  if (!provider) {
    const previous = o.store.get(o.key)?.redirectUri;
    const previousPort = previous?.startsWith('http://localhost:') ? Number(new URL(previous).port) || undefined : undefined;
    servers = await listen(o.callbackPort ?? previousPort);
    scheme = 'localhost';
    const port = (servers[0]?.address() as AddressInfo).port;
    provider = make(`http://localhost:${port}/callback`);
    try {
      result = await start(provider);
    } catch (e) {
      for (const s of servers) s.close();
      const why = e instanceof Error ? e.message : String(e);
      const registration = /regist/i.test(why);
      throw new McpOAuthStartError(`OAuth for "${o.serverName}" could not start: ${why}`, registration ? 'mcp_client_registration_unavailable' : 'oauth_failed');
    }
  }
  if (result === 'AUTHORIZED' || !authUrl) {
    for (const s of servers) s.close();
    return { kind: 'authorized' };
  }

  const p = provider;
  let settle!: { resolve: () => void; reject: (e: Error) => void };
  let finished = false;
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  done.catch(() => undefined);
  const timer = setTimeout(() => finish(new Error(`no authorization came back within ${Math.round(o.timeoutMs / 1000)} s`)), o.timeoutMs);
  timer.unref?.();

  function finish(err?: Error): void {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    if (err) settle.reject(err);
    else settle.resolve();
    // The page answering the browser's redirect is written by `done`'s callbacks (microtasks): stop accepting
    // after them, and cut what is still open a little later.
    setImmediate(() => {
      for (const s of servers) {
        s.close();
        s.closeIdleConnections();
      }
    });
    setTimeout(() => {
      for (const s of servers) s.closeAllConnections();
    }, 2000).unref();
  }

  /** Checks a redirect's parameters; starts the exchange when they carry our state and a code. */
  const accept = (params: URLSearchParams): SubmitOutcome => {
    if (finished) return 'finished';
    if (params.get('state') !== state) return 'state_mismatch';
    const error = params.get('error');
    if (error) {
      const desc = params.get('error_description');
      finish(new Error(`the authorization server answered ${error}${desc ? `: ${desc}` : ''}`));
      return 'accepted';
    }
    const code = params.get('code');
    if (!code) return 'no_code';
    clearTimeout(timer);
    auth(p, { serverUrl: o.serverUrl, authorizationCode: code, fetchFn: o.fetch }).then(
      (r) => finish(r === 'AUTHORIZED' ? undefined : new Error('the authorization code was not accepted')),
      (e: unknown) => finish(new Error(`the code exchange failed: ${e instanceof Error ? e.message : String(e)}`)),
    );
    return 'accepted';
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const outcome = accept(url.searchParams);
    if (outcome === 'accepted') {
      // The page waits for the exchange so the user sees whether it worked.
      done.then(
        () => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE_OK),
        (e: unknown) => res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE_ERR(e instanceof Error ? e.message : String(e))),
      );
    } else {
      res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE_ERR(outcome === 'state_mismatch' ? 'this redirect belongs to another sign-in attempt' : 'no authorization code'));
    }
  };
  for (const s of servers) s.on('request', onRequest);

  const port = servers[0] ? (servers[0].address() as AddressInfo).port : undefined;
  return {
    kind: 'redirect',
    authUrl: authUrl.toString(),
    state,
    redirectScheme: scheme,
    ...(port !== undefined ? { callbackPort: port } : {}),
    flow: {
      done,
      submit: (callbackUrl) => {
        let url: URL;
        try {
          url = new URL(callbackUrl);
        } catch {
          return 'no_code';
        }
        return accept(url.searchParams);
      },
      cancel: (reason) => finish(new Error(reason)),
    },
  };
}
