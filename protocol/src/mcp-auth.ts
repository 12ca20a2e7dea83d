// OAuth for remote MCP servers (the TS SDK's hidden `mcpAuthenticate`, `mcpSubmitOAuthCallbackUrl`,
// `mcpClearAuth`): request payloads, with Claude Code 2.1.330's field names (the reply, McpAuthenticateResponse, is
// in control-responses.ts: the daemon evaluates this file at run time, runtime.ts).
import * as z from 'zod/mini';

/**
 * `mcpAuthenticate(serverName, redirectUri?, {redirectUriOnly?})`: starts an OAuth authorization for a remote
 * server. Without `redirectUri` agentd listens on a loopback port for the browser's redirect; with it, the host
 * receives the redirect and hands it back with `mcp_oauth_callback_url`. `liveReply` is for cloud transports.
 */
export const McpAuthenticateRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('mcp_authenticate'),
  serverName: z.string(),
  redirectUri: z.optional(z.nullable(z.string())),
  redirectUriOnly: z.optional(z.nullable(z.boolean())),
  liveReply: z.optional(z.nullable(z.boolean())),
}));

/** `mcpSubmitOAuthCallbackUrl(serverName, callbackUrl)`: the full redirect URL (with `code` and `state`). Answered `{}` once the code is exchanged. */
export const McpOAuthCallbackUrlRequest = z.lazy(() => z.looseObject({
  subtype: z.literal('mcp_oauth_callback_url'),
  serverName: z.string(),
  callbackUrl: z.string(),
}));

/** `mcpClearAuth(serverName)`: forgets the server's stored tokens and client registration, then reconnects it. */
export const McpClearAuthRequest = z.lazy(() => z.looseObject({ subtype: z.literal('mcp_clear_auth'), serverName: z.string() }));
