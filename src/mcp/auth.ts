// OAuth for the session's remote MCP servers, behind the control requests the TS SDK sends (`mcp_authenticate`,
// `mcp_oauth_callback_url`, `mcp_clear_auth`). One flow per server at a time (a new mcp_authenticate replaces
// the one in progress); a flow that completes reconnects the server with its new grant; one that fails leaves it
// `needs-auth` with the reason (fails closed: no token, no connection). The flow code and the MCP SDK load lazily.
import type { RemoteServerConfig } from './config.js';
import type { McpHub } from './hub.js';
import { notApproved } from './specs.js';
import type { Logger } from '../log/logger.js';
import type { OAuthFlow, OAuthStart, OAuthStartOptions } from './oauth-flow.js';
import type { RevokeOptions, RevokeOutcome } from './oauth-revoke.js';
import { type McpOAuthStore, oauthKey, oauthScopes, oauthSettings } from './oauth-store.js';

export interface McpAuthDeps {
  hub: McpHub;
  store: McpOAuthStore;
  fetch: typeof fetch;
  clientVersion: string;
  /** MCP_OAUTH_CALLBACK_PORT. */
  callbackPort?: number;
  /** How long a flow waits for the browser (default 10 minutes). */
  timeoutMs?: number;
  /** How long mcp_clear_auth waits for the authorization server to revoke the tokens (default 10 s). */
  revokeTimeoutMs?: number;
  /** Where a revocation's outcome is reported (never a token). */
  logger?: Pick<Logger, 'info' | 'warn'>;
  load: () => Promise<{ beginOAuth(o: OAuthStartOptions): Promise<OAuthStart>; revokeGrant(o: RevokeOptions): Promise<RevokeOutcome> }>;
}

/** The answer to `mcp_authenticate` (Claude Code's fields). */
export type AuthenticateAnswer =
  | { requiresUserAction: false; callbackExpected: false }
  | { authUrl: string; requiresUserAction: true; callbackExpected: true; redirectScheme: 'localhost' | 'custom'; state: string; callbackPort?: number };

/** A refusal with Claude Code's `error_code` where it has one. */
export class McpAuthError extends Error {
  constructor(
    message: string,
    readonly code: 'invalid_request' | 'request_failed' | 'mcp_redirect_uri_unusable' | 'mcp_client_registration_unavailable' = 'request_failed',
  ) {
    super(message);
    this.name = 'McpAuthError';
  }
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_REVOKE_TIMEOUT_MS = 10_000;

export class McpAuth {
  private readonly flows = new Map<string, OAuthFlow>();
  /** Per flow: settles after its completion's reconnect (what mcp_oauth_callback_url waits for). */
  private readonly settledBy = new WeakMap<OAuthFlow, Promise<void>>();

  constructor(private readonly d: McpAuthDeps) {}

  private remote(name: string, verb: string): { name: string; config: RemoteServerConfig } {
    const spec = this.d.hub.specOf(name);
    if (!spec) throw new McpAuthError(`Server not found: ${name}`, 'invalid_request');
    if (spec.kind === 'withheld') throw new McpAuthError(notApproved(name, spec.reason), 'invalid_request');
    if (spec.kind !== 'remote') {
      const type = spec.kind;
      throw new McpAuthError(verb === 'clear' ? `Cannot clear auth for server type "${type}"` : `Server type "${type}" does not support OAuth authentication`, 'invalid_request');
    }
    return { name, config: spec.config };
  }

  async authenticate(name: string, opts: { redirectUri?: string; redirectUriOnly?: boolean }): Promise<AuthenticateAnswer> {
    const { config } = this.remote(name, 'authenticate');
    this.flows.get(name)?.cancel('replaced by a newer mcp_authenticate');
    this.flows.delete(name);
    const settings = oauthSettings(config);
    const scopes = oauthScopes(config);
    if (!scopes.ok) {
      this.d.hub.authFailed(name, `OAuth failed: ${scopes.message}`);
      throw new McpAuthError(`OAuth for "${name}" could not start: ${scopes.message}`, 'request_failed');
    }
    if (typeof config.oauth === 'object' && config.oauth !== null && (config.oauth as Record<string, unknown>)['xaa'] === true) {
      // Claude Code uses it only with its XAA feature on; otherwise, as here, the ordinary sign-in. Said, not silent.
      this.d.logger?.warn({ server: name }, 'oauth.xaa (cross-app access through an enterprise IdP) is not supported; the ordinary OAuth sign-in is used');
    }
    const callbackPort = this.d.callbackPort ?? settings.callbackPort;
    const runtime = await this.d.load();
    let start: OAuthStart;
    try {
      start = await runtime.beginOAuth({
        store: this.d.store,
        key: oauthKey(name, config),
        serverName: name,
        serverUrl: config.url,
        fetch: this.d.fetch,
        clientVersion: this.d.clientVersion,
        timeoutMs: this.d.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        ...(settings.clientId ? { clientId: settings.clientId } : {}),
        ...(settings.authServerMetadataUrl ? { authServerMetadataUrl: settings.authServerMetadataUrl } : {}),
        ...(scopes.scopes ? { scopes: scopes.scopes } : {}),
        ...(callbackPort !== undefined ? { callbackPort } : {}),
        ...(opts.redirectUri ? { redirectUri: opts.redirectUri } : {}),
        ...(opts.redirectUriOnly ? { redirectUriOnly: true } : {}),
      });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.d.hub.authFailed(name, `OAuth failed: ${message}`);
      const code = e instanceof Error && 'code' in e && (e.code === 'mcp_redirect_uri_unusable' || e.code === 'mcp_client_registration_unavailable') ? e.code : 'request_failed';
      throw new McpAuthError(message, code);
    }
    if (start.kind === 'authorized') {
      // The stored grant was refreshed: no user action; the server connects with it.
      void this.d.hub.reconnect(name).catch(() => undefined);
      return { requiresUserAction: false, callbackExpected: false };
    }
    const flow = start.flow;
    this.flows.set(name, flow);
    flow.done.then(
      () => undefined,
      (e: unknown) => {
        if (this.flows.get(name) === flow) this.d.hub.authFailed(name, `OAuth failed: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
    // Reconnected once the tokens are stored; `settled` lets mcp_oauth_callback_url answer after the reconnect.
    this.settledBy.set(
      flow,
      flow.done.then(
        () => this.d.hub.reconnect(name).then(() => undefined, () => undefined),
        () => undefined,
      ).finally(() => {
        if (this.flows.get(name) === flow) this.flows.delete(name);
      }),
    );
    return {
      authUrl: start.authUrl,
      requiresUserAction: true,
      callbackExpected: true,
      redirectScheme: start.redirectScheme,
      state: start.state,
      ...(start.callbackPort !== undefined ? { callbackPort: start.callbackPort } : {}),
    };
  }

  /** `mcp_oauth_callback_url`: resolves once the code is exchanged and the server reconnected; rejects with why not. */
  async submitCallback(name: string, callbackUrl: string): Promise<void> {
    const flow = this.flows.get(name);
    if (!flow) throw new McpAuthError(`No active OAuth flow for server: ${name}`, 'invalid_request');
    let hasCode = false;
    try {
      const u = new URL(callbackUrl);
      hasCode = u.searchParams.has('code') || u.searchParams.has('error');
    } catch {
      hasCode = false;
    }
    if (!hasCode) throw new McpAuthError('Invalid callback URL: missing authorization code. Please paste the full redirect URL including the code parameter.', 'invalid_request');
    const outcome = flow.submit(callbackUrl);
    if (outcome === 'state_mismatch' || outcome === 'no_code') {
      throw new McpAuthError(
        'Callback URL not accepted: it belongs to a different sign-in attempt (OAuth state mismatch) or carries no authorization code. The sign-in in progress is still waiting; submit the redirect URL from its own browser page.',
        'invalid_request',
      );
    }
    try {
      await flow.done;
    } catch (e) {
      throw new McpAuthError(e instanceof Error ? e.message : String(e));
    }
    await this.settledBy.get(flow);
  }

  /**
   * `mcp_clear_auth`: the stored grant and client registration are forgotten, the tokens revoked at the
   * authorization server where it offers revocation (RFC 7009, oauth-revoke.ts), the server reconnected (now
   * without). The grant is deleted first, so a revocation that fails, hangs or is cut off never leaves it in
   * place; the revocation is bounded (revokeTimeoutMs) and its failure only logged: Claude Code answers `{}`
   * whatever the authorization server said.
   */
  async clearAuth(name: string): Promise<void> {
    const { config } = this.remote(name, 'clear');
    this.flows.get(name)?.cancel('cancelled by mcp_clear_auth');
    this.flows.delete(name);
    const key = oauthKey(name, config);
    const entry = this.d.store.get(key);
    this.d.store.delete(key);
    if (entry?.tokens) await this.revoke(name, config, entry);
    await this.d.hub.reconnect(name).catch(() => undefined);
  }

  private async revoke(name: string, config: RemoteServerConfig, entry: NonNullable<ReturnType<McpOAuthStore['get']>>): Promise<void> {
    const timeoutMs = this.d.revokeTimeoutMs ?? DEFAULT_REVOKE_TIMEOUT_MS;
    const settings = oauthSettings(config);
    let outcome: RevokeOutcome;
    let timer: NodeJS.Timeout | undefined;
    try {
      const runtime = await this.d.load();
      // The fetches are aborted at the deadline; the race is the backstop for anything that ignores the signal.
      outcome = await Promise.race([
        runtime.revokeGrant({
          entry,
          serverUrl: config.url,
          ...(config.headers ? { headers: config.headers } : {}),
          ...(settings.authServerMetadataUrl ? { authServerMetadataUrl: settings.authServerMetadataUrl } : {}),
          ...(settings.clientId ? { clientId: settings.clientId } : {}),
          fetch: this.d.fetch,
          timeoutMs,
        }),
        new Promise<RevokeOutcome>((resolve) => {
          timer = setTimeout(() => resolve({ kind: 'failed', revoked: [], errors: [`no answer within ${timeoutMs} ms`] }), timeoutMs + 1000);
        }),
      ]);
    } catch (e) {
      outcome = { kind: 'failed', revoked: [], errors: [e instanceof Error ? e.message : String(e)] };
    } finally {
      clearTimeout(timer);
    }
    if (outcome.kind === 'failed') this.d.logger?.warn({ server: name, revoked: outcome.revoked, errors: outcome.errors }, 'MCP OAuth token revocation failed; the local grant is deleted regardless');
    else if (outcome.kind === 'skipped') this.d.logger?.info({ server: name, reason: outcome.reason }, 'MCP OAuth tokens not revoked at the authorization server');
    else this.d.logger?.info({ server: name, revoked: outcome.revoked }, 'MCP OAuth tokens revoked');
  }

  /** The session ends: flows in progress stop (their loopback listeners close). */
  close(): void {
    for (const f of this.flows.values()) f.cancel('the session ended');
    this.flows.clear();
  }
}
