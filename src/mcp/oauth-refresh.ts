// When a stored access token is refreshed before it is sent (the passive provider's `tokens()`, oauth-provider.ts),
// as Claude Code 2.1.330 does it: a token with 300 s or less left is refreshed first with the stored refresh
// token, so a request never carries a token about to lapse and no 401 round trip is spent on it. agentd caps the
// margin at half the token's lifetime: a server issuing 2-minute tokens gets a refresh each minute, not one per
// request (Claude Code's fixed 300 s refreshes such tokens before every request). Concurrent requests for one grant
// share one refresh; a refresh that fails without the authorization server refusing the grant (unreachable, 5xx,
// timed out) is not tried again with the same refresh token for 30 s, so a down server does not get a refresh per
// request. The refresh itself is the MCP SDK's `auth()` (cached discovery, the client authentication the token
// endpoint wants, the new tokens stored by the provider).
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { McpOAuthEntry, McpOAuthStore } from './oauth-store.js';

/** Claude Code's margin: a token with this little left is refreshed before it is sent. */
export const REFRESH_MARGIN_MS = 300_000;
/** The whole refresh (discovery when nothing is cached, and the token request) is given up after this. */
export const REFRESH_TIMEOUT_MS = 30_000;
/** After a failed refresh, the same refresh token is not tried proactively again for this long. */
export const RETRY_AFTER_FAILURE_MS = 30_000;

/** When the stored access token lapses and how long it was issued for; undefined when the server gave no `expires_in`. */
export function tokenExpiry(entry: McpOAuthEntry): { at: number; lifetimeMs: number } | undefined {
  const expiresIn = entry.tokens?.['expires_in'];
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || entry.tokensSavedAt === undefined) return undefined;
  const lifetimeMs = Math.max(0, expiresIn * 1000);
  return { at: entry.tokensSavedAt + lifetimeMs, lifetimeMs };
}

/** The token is expired, or within the margin (300 s, at most half its lifetime) of expiring. */
export function refreshDue(entry: McpOAuthEntry, now: number): boolean {
  const e = tokenExpiry(entry);
  if (!e) return false;
  return e.at - now <= Math.min(REFRESH_MARGIN_MS, e.lifetimeMs / 2);
}

interface Shared {
  inFlight: Map<string, Promise<void>>;
  failed: Map<string, { refreshToken: string; at: number }>;
}
// Per grant file (one store object per session): every connection and provider of a server shares its refresh.
const perStore = new WeakMap<McpOAuthStore, Shared>();

function shared(store: McpOAuthStore): Shared {
  let s = perStore.get(store);
  if (!s) {
    s = { inFlight: new Map(), failed: new Map() };
    perStore.set(store, s);
  }
  return s;
}

/** Runs `refresh` for the grant `key` unless one is already running, in which case that one is awaited. Never rejects. */
export function sharedRefresh(store: McpOAuthStore, key: string, refresh: () => Promise<void>): Promise<void> {
  const s = shared(store);
  const running = s.inFlight.get(key);
  if (running) return running;
  const p = refresh()
    .catch(() => undefined)
    .finally(() => {
      if (s.inFlight.get(key) === p) s.inFlight.delete(key);
    });
  s.inFlight.set(key, p);
  return p;
}

export function recentlyFailed(store: McpOAuthStore, key: string, refreshToken: string, now: number): boolean {
  const f = shared(store).failed.get(key);
  return f !== undefined && f.refreshToken === refreshToken && now - f.at < RETRY_AFTER_FAILURE_MS;
}

export function noteFailure(store: McpOAuthStore, key: string, refreshToken: string, now: number): void {
  shared(store).failed.set(key, { refreshToken, at: now });
}

/** A fetch whose requests are all aborted once `signal` fires (the refresh's overall deadline). */
export function withDeadline(f: typeof fetch, signal: AbortSignal): typeof fetch {
  return (input, init) => f(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}

/**
 * One refresh through the MCP SDK's `auth()` with a provider that does not refresh proactively itself (`raw`):
 * cached discovery, the refresh grant, the new tokens saved. Rejects when no new tokens could be obtained; when the
 * authorization server refused the grant (invalid_grant), `auth()` has already removed the stored tokens.
 */
export async function refreshThroughSdk(raw: OAuthClientProvider, serverUrl: string, fetchFn: typeof fetch, timeoutMs = REFRESH_TIMEOUT_MS): Promise<void> {
  const result = await auth(raw, { serverUrl, fetchFn: withDeadline(fetchFn, AbortSignal.timeout(timeoutMs)) });
  if (result !== 'AUTHORIZED') throw new Error('the refresh was not accepted');
}
