// How the first-party model client authenticates, resolved at the edge (cli/credentials.ts) into one of these.
// The core never reads the environment or runs the helper itself: the helper is a port.

/** The beta Claude Code adds to every request made with a Claude subscription (OAuth) token (2.1.330, measured). */
export const OAUTH_BETA = 'oauth-2025-04-20';

/** A source of API keys that may change (apiKeyHelper): cached, re-run when the endpoint refuses the key. */
export interface ApiKeySource {
  /** The current key (cached until its TTL passes). Rejects with a typed error when the helper fails. */
  get(signal: AbortSignal): Promise<string>;
  /** Forgets the cached key: the next `get` runs the helper again (after a 401). */
  invalidate(): void;
}

export type ModelAuth =
  /** ANTHROPIC_API_KEY (x-api-key) and/or ANTHROPIC_AUTH_TOKEN (Authorization: Bearer), as Claude Code sends both when both are set. */
  | { kind: 'env'; apiKey: string | undefined; authToken: string | undefined }
  /** CLAUDE_CODE_OAUTH_TOKEN: Authorization: Bearer plus the oauth beta. */
  | { kind: 'oauth'; token: string }
  /** apiKeyHelper: its output sent as x-api-key and as Authorization: Bearer (as Claude Code 2.1.330 does). */
  | { kind: 'helper'; source: ApiKeySource }
  | { kind: 'none' };

/** The auth headers for one request (`key` is the helper's current key for kind 'helper'). */
export function authHeaders(auth: ModelAuth, key?: string): Record<string, string> {
  switch (auth.kind) {
    case 'env': {
      const h: Record<string, string> = {};
      if (auth.apiKey !== undefined) h['x-api-key'] = auth.apiKey;
      if (auth.authToken !== undefined) h['authorization'] = `Bearer ${auth.authToken}`;
      return h;
    }
    case 'oauth':
      return { authorization: `Bearer ${auth.token}` };
    case 'helper':
      return key === undefined ? {} : { 'x-api-key': key, authorization: `Bearer ${key}` };
    case 'none':
      return {};
  }
}

/** Betas the credential itself needs, merged with the request's. */
export function authBetas(auth: ModelAuth): string[] {
  return auth.kind === 'oauth' ? [OAUTH_BETA] : [];
}
