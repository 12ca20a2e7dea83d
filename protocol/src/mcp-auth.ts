// OAuth for remote MCP servers (the TS SDK's hidden `mcpAuthenticate`, `mcpSubmitOAuthCallbackUrl`,
// `mcpClearAuth`): request payloads and the reply, with Claude Code 2.1.330's field names.
import * as z from 'zod/mini';

/**
 * `mcpAuthenticate(serverName, redirectUri?, {redirectUriOnly?})`: starts an OAuth authorization for a remote
 * server. Without `redirectUri` agentd listens on a loopback port for the browser's redirect; with it, the host
 * receives the redirect and hands it back with `mcp_oauth_callback_url`. `liveReply` is for cloud transports.
 */
export const McpAuthenticateRequest = z.looseObject({
  subtype: z.literal('mcp_authenticate'),
  serverName: z.string(),
  redirectUri: z.optional(z.nullable(z.string())),
  redirectUriOnly: z.optional(z.nullable(z.boolean())),
  liveReply: z.optional(z.nullable(z.boolean())),
});

/**
 * `authUrl` is for the user's browser. `callbackExpected`: the flow waits for the redirect (loopback listener on
 * `callbackPort` for `redirectScheme: "localhost"`, or `mcp_oauth_callback_url`). Neither flag set: the stored
 * authorization was still usable (refreshed) and no user action is needed.
 */
export const McpAuthenticateResponse = z.strictObject({
  authUrl: z.optional(z.string()),
  requiresUserAction: z.boolean(),
  callbackExpected: z.boolean(),
  redirectScheme: z.optional(z.enum(['localhost', 'custom'])),
  state: z.optional(z.string()),
  callbackPort: z.optional(z.number()),
});
export type McpAuthenticateResponse = z.infer<typeof McpAuthenticateResponse>;

/** `mcpSubmitOAuthCallbackUrl(serverName, callbackUrl)`: the full redirect URL (with `code` and `state`). Answered `{}` once the code is exchanged. */
export const McpOAuthCallbackUrlRequest = z.looseObject({
  subtype: z.literal('mcp_oauth_callback_url'),
  serverName: z.string(),
  callbackUrl: z.string(),
});

/** `mcpClearAuth(serverName)`: forgets the server's stored tokens and client registration, then reconnects it. */
export const McpClearAuthRequest = z.looseObject({ subtype: z.literal('mcp_clear_auth'), serverName: z.string() });
