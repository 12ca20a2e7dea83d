// One MCP server connection on @modelcontextprotocol/sdk's Client: the real handshake (initialize, tools/list),
// then each listed tool adapted into an agentd Tool (tool-adapter.ts). Loaded lazily (dist/agentd-mcp.js): a
// session without MCP servers never pays for the MCP SDK.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { netFetch } from '../net/fetch.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ErrorCode, McpError, type Tool as McpTool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AnyTool } from '../tools/tool.js';
import type { McpServerSpec } from './config.js';
import type { ElicitationAnswer, ElicitationAsk, McpMessagePort } from './port.js';
import { StoredOAuthProvider } from './oauth-provider.js';
import { type McpOAuthStore, oauthKey, oauthSettings } from './oauth-store.js';
import { SdkHostTransport } from './sdk-transport.js';
import { GroupStdioTransport, MAX_STDIO_MESSAGE_BYTES } from './stdio-transport.js';
import { boundedFetch } from './bounded-fetch.js';
import { adaptMcpTool } from './tool-adapter.js';

export interface ConnectDeps {
  cwd: string;
  /** The environment stdio servers start from (agentd's credentials already removed). */
  childEnv: Readonly<Record<string, string>>;
  port: McpMessagePort | undefined;
  trackProcessGroup(pgid: number): () => void;
  killGroup(pgid: number): Promise<void>;
  /**
   * The fetch remote (Streamable HTTP and SSE) servers are reached with: the one place a proxy-aware fetch is
   * plugged in. Default: net/fetch.ts netFetch (the proxy, NO_PROXY and client-certificate settings).
   */
  fetch?: typeof fetch;
  /** Stored OAuth grants: a remote server with one connects with it (refreshed by the MCP SDK on a 401). */
  oauthStore?: McpOAuthStore;
  /** Bounds the handshake (initialize + tools/list). */
  connectTimeoutMs: number;
  /** Default per-call limit (MCP_TOOL_TIMEOUT); a server's own `timeout` (≥ 1000 ms) wins. */
  toolTimeoutMs: number;
  maxOutputChars: number;
  clientVersion: string;
  /** The connection dropped after it was established. */
  onClosed(reason: string): void;
  /** A server's elicitation, for the host to answer; resolves `decline` when no one can (fails closed). */
  elicit(ask: ElicitationAsk, signal: AbortSignal): Promise<ElicitationAnswer>;
  /** The server announced a new toolset (`notifications/tools/list_changed`) and it was listed again. */
  onToolsChanged?(tools: AnyTool[], summaries: ToolSummary[]): void;
  /** SDK servers: receives the function that hands the transport what the host sends on the server's behalf. */
  registerDeliver?(deliver: (message: unknown) => void): void;
}

export interface ToolSummary {
  name: string;
  description?: string;
  annotations?: { readOnly?: boolean; destructive?: boolean; openWorld?: boolean };
}

export interface ResourceInfo {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

export interface ResourceAccess {
  list(signal: AbortSignal): Promise<ResourceInfo[]>;
  read(uri: string, signal: AbortSignal): Promise<Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>>;
}

export interface ConnectedServer {
  serverInfo: { name: string; version: string } | undefined;
  tools: AnyTool[];
  summaries: ToolSummary[];
  /** Present when the server offers resources. */
  resources?: ResourceAccess;
  close(): Promise<void>;
}

export class McpConnectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpConnectError';
  }
}

/**
 * A remote server refused us with 401 (or the MCP SDK's UnauthorizedError): the hub reports it `needs-auth`, as
 * Claude Code does. The host starts an OAuth flow with `mcp_authenticate` (auth.ts); a token in `headers` works too.
 * Recognised by `name` because the hub must not load this module eagerly.
 */
export class McpNeedsAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpNeedsAuthError';
  }
}

/**
 * A remote server that is gone: its session is unknown to it (404: it restarted), it cannot be reached at all,
 * or (SSE) its event stream was lost. The MCP SDK never closes a remote transport on its own, so this is where a
 * drop is seen.
 */
function remoteDropped(e: unknown, type: 'http' | 'sse'): string | undefined {
  // An answer over the byte cap (bounded-fetch.ts), as a JSON body or inside an event stream: the connection is
  // given up (the calls waiting on it fail with the reason) and redialled, as for stdio.
  const oversized = e instanceof Error ? /sent a message over the \d+-byte limit/.exec(e.message) : null;
  if (oversized) return `the server ${oversized[0]}`;
  if (e instanceof StreamableHTTPError && e.code === 404) return `the server no longer knows the session (${e.message})`;
  if (type === 'sse') {
    // The event stream carries every answer: once it is lost, answers to requests in flight are lost with it,
    // and the EventSource's own reconnect would open a session the server never saw initialised. Redialled.
    if (e instanceof SseError) return `the event stream was lost (${sseDetail(e)})`;
    if (e instanceof Error && e.message.startsWith('Error POSTing to endpoint (HTTP 404)')) return `the server no longer knows the session (${e.message})`;
  }
  if (e instanceof TypeError && e.message === 'fetch failed') {
    const cause = e.cause instanceof Error ? e.cause.message : '';
    return `the server cannot be reached${cause ? ` (${cause})` : ''}`;
  }
  return undefined;
}

/** What the EventSource said about a lost stream; it says nothing when the server simply ended the response. */
function sseDetail(e: SseError): string {
  const m = e.message.replace(/^SSE error: /, '');
  if (m && m !== 'undefined') return m;
  return e.code !== undefined ? `HTTP ${e.code}` : 'the server ended it';
}

function isUnauthorized(e: unknown): boolean {
  if (e instanceof UnauthorizedError) return true;
  return (e instanceof StreamableHTTPError || e instanceof SseError) && e.code === 401;
}

function clientIdOf(config: Readonly<Record<string, unknown>>): { clientId?: string } {
  const id = oauthSettings(config).clientId;
  return id ? { clientId: id } : {};
}

type ConnectableSpec = Exclude<McpServerSpec, { kind: 'invalid' | 'withheld' }>;

function transportFor(spec: ConnectableSpec, d: ConnectDeps): Transport {
  switch (spec.kind) {
    case 'stdio':
      return new GroupStdioTransport({
        command: spec.config.command,
        args: spec.config.args ?? [],
        env: { ...d.childEnv, ...(spec.config.env ?? {}) },
        cwd: d.cwd,
        trackProcessGroup: d.trackProcessGroup,
        killGroup: d.killGroup,
      });
    case 'remote': {
      const url = new URL(spec.config.url);
      const requestInit = { headers: { ...(spec.config.headers ?? {}) } };
      // netFetch: the proxy, NO_PROXY and client-certificate settings (net/fetch.ts).
      const key = oauthKey(spec.name, spec.config);
      const stored = d.oauthStore?.get(key);
      // Each message is bounded as a stdio server's are (bounded-fetch.ts).
      const fetch = boundedFetch(d.fetch ?? netFetch, { limit: MAX_STDIO_MESSAGE_BYTES, server: spec.name });
      // Passive: sends the stored token, refreshed before it expires or on a 401; a new authorization is left to
      // mcp_authenticate.
      const metadataUrl = oauthSettings(spec.config).authServerMetadataUrl;
      const authProvider =
        d.oauthStore && stored?.tokens
          ? new StoredOAuthProvider({
              store: d.oauthStore,
              key,
              serverName: spec.name,
              serverUrl: spec.config.url,
              redirectUrl: stored.redirectUri ?? 'http://localhost/callback',
              clientVersion: d.clientVersion,
              fetch,
              ...clientIdOf(spec.config),
              ...(metadataUrl ? { authServerMetadataUrl: metadataUrl } : {}),
            })
          : undefined;
      const opts = { requestInit, fetch, ...(authProvider ? { authProvider } : {}) };
      return spec.config.type === 'sse' ? new SSEClientTransport(url, opts) : new StreamableHTTPClientTransport(url, opts);
    }
    case 'sdk':
    {
      if (!d.port) throw new McpConnectError('no SDK host is connected to serve it');
      const t = new SdkHostTransport(spec.name, d.port);
      d.registerDeliver?.((m) => t.deliver(m));
      return t;
    }
    default: {
      const never: never = spec;
      throw new Error(`unknown MCP server kind ${JSON.stringify(never)}`);
    }
  }
}

/** Why a stdio server failed, from what it left behind: how it exited and its last stderr line. */
function stdioReason(t: Transport, base: string): string {
  if (!(t instanceof GroupStdioTransport)) return base;
  const tail = t.stderrTail();
  const exit = t.exitDescription();
  const parts = [base];
  if (exit && !base.includes(exit)) parts.push(`the process ${exit}`);
  if (tail.length) parts.push(`stderr: ${tail.slice(-3).join(' | ')}`);
  return parts.join('; ');
}

function summarize(t: McpTool): ToolSummary {
  return {
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    ...(t.annotations
      ? {
          annotations: {
            ...(t.annotations.readOnlyHint !== undefined ? { readOnly: t.annotations.readOnlyHint } : {}),
            ...(t.annotations.destructiveHint !== undefined ? { destructive: t.annotations.destructiveHint } : {}),
            ...(t.annotations.openWorldHint !== undefined ? { openWorld: t.annotations.openWorldHint } : {}),
          },
        }
      : {}),
  };
}

async function listAllTools(client: Client, timeout: number): Promise<McpTool[]> {
  const out: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
    out.push(...r.tools);
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return out;
}

export async function connectServer(spec: ConnectableSpec, d: ConnectDeps): Promise<ConnectedServer> {
  const transport = transportFor(spec, d);
  const client = new Client({ name: 'agentd', version: d.clientVersion }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
    const p = req.params as Record<string, unknown>;
    const ask: ElicitationAsk = {
      serverName: spec.name,
      message: String(p['message'] ?? ''),
      ...(p['mode'] === 'url' || p['mode'] === 'form' ? { mode: p['mode'] } : {}),
      ...(typeof p['url'] === 'string' ? { url: p['url'] } : {}),
      ...(typeof p['elicitationId'] === 'string' ? { elicitationId: p['elicitationId'] } : {}),
      ...(typeof p['requestedSchema'] === 'object' && p['requestedSchema'] !== null ? { requestedSchema: p['requestedSchema'] as Record<string, unknown> } : {}),
    };
    try {
      const a = await d.elicit(ask, extra.signal);
      return a.action === 'accept' && a.content ? { action: 'accept', content: a.content as Record<string, string | number | boolean | string[]> } : { action: a.action };
    } catch {
      return { action: 'decline' };
    }
  });
  let established = false;
  let closing = false;
  let lastError: string | undefined;
  // Why an SSE connection was given up during the handshake (its stream was lost before tools/list answered).
  let lostInHandshake: string | undefined;
  client.onerror = (e) => {
    lastError = e.message;
    if (closing || spec.kind !== 'remote') return;
    // Every SseError after the stream opened is the EventSource reporting a lost stream, from inside the callback
    // after which it arms its own reconnect (3 s, or the server's `retry:`). That reconnect would GET a new
    // session the server never saw initialised and swap the endpoint POSTs go to, silently. Closing the
    // transport right here, synchronously, sets the EventSource CLOSED before the timer is armed, so the timer
    // does nothing. Calls in flight fail at once (their answers were on the stream); the hub redials with a fresh
    // handshake, and a stream lost during the handshake fails it now rather than at its timeout.
    const streamLost = spec.config.type === 'sse' && e instanceof SseError;
    const dropped = established || streamLost ? remoteDropped(e, spec.config.type) : undefined;
    if (dropped === undefined) return;
    closing = true;
    if (streamLost) {
      if (established) d.onClosed(dropped);
      else lostInHandshake = dropped;
      void client.close().catch(() => undefined);
      return;
    }
    // Reported once, as a closed connection: the hub redials it. This connection is finished; it is closed on the
    // next turn of the event loop so the failing call gets its own error rather than "Connection closed".
    d.onClosed(dropped);
    setImmediate(() => void client.close().catch(() => undefined));
  };
  client.onclose = () => {
    if (established && !closing) d.onClosed(stdioReason(transport, lastError ?? 'the connection closed'));
  };
  const deadline = Date.now() + d.connectTimeoutMs;
  try {
    await client.connect(transport, { timeout: d.connectTimeoutMs });
    const tools = client.getServerCapabilities()?.tools ? await listAllTools(client, Math.max(1, deadline - Date.now())) : [];
    established = true;
    const serverInfo = client.getServerVersion();
    const perServer = spec.config.timeout !== undefined && spec.config.timeout >= 1000 ? spec.config.timeout : undefined;
    const adapt = (list: McpTool[]): AnyTool[] =>
      list.map((t) =>
        adaptMcpTool(t, {
          server: spec.name,
          source: spec.source,
          timeoutMs: perServer ?? d.toolTimeoutMs,
          maxOutputChars: d.maxOutputChars,
          call: async (params, opts) => {
            try {
              return await client.callTool(params, undefined, opts);
            } catch (e) {
              // "Connection closed" alone does not say why: the transport's last error does (e.g. an oversized answer).
              if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed && lastError && !e.message.includes(lastError)) {
                throw new Error(`${e.message}: ${lastError}`);
              }
              throw e;
            }
          },
        }),
      );
    if (client.getServerCapabilities()?.tools?.listChanged && d.onToolsChanged) {
      const onChanged = d.onToolsChanged;
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        try {
          const list = await listAllTools(client, d.connectTimeoutMs);
          onChanged(adapt(list), list.map(summarize));
        } catch (e) {
          lastError = `tools/list after tools/list_changed failed: ${e instanceof Error ? e.message : String(e)}`;
        }
      });
    }
    return {
      serverInfo: serverInfo ? { name: serverInfo.name, version: serverInfo.version } : undefined,
      tools: adapt(tools),
      summaries: tools.map(summarize),
      ...(client.getServerCapabilities()?.resources
        ? {
            resources: {
              list: async (signal: AbortSignal) => {
                const out: ResourceInfo[] = [];
                let cursor: string | undefined;
                for (let page = 0; page < 100; page++) {
                  const r = await client.listResources(cursor === undefined ? undefined : { cursor }, { signal, timeout: d.toolTimeoutMs });
                  for (const x of r.resources) {
                    out.push({ uri: x.uri, name: x.name, ...(x.mimeType !== undefined ? { mimeType: x.mimeType } : {}), ...(x.description !== undefined ? { description: x.description } : {}) });
                  }
                  cursor = r.nextCursor;
                  if (!cursor) break;
                }
                return out;
              },
              read: async (uri: string, signal: AbortSignal) => (await client.readResource({ uri }, { signal, timeout: d.toolTimeoutMs })).contents,
            },
          }
        : {}),
      close: async () => {
        closing = true;
        await client.close().catch(() => undefined);
        await transport.close().catch(() => undefined);
      },
    };
  } catch (e) {
    closing = true;
    // The SseError `start` rejected with (the stream never opened) says more than "stream lost" would.
    const base = lostInHandshake !== undefined && !(e instanceof SseError) ? `${lostInHandshake} during the handshake` : e instanceof Error ? e.message : String(e);
    // Let a stdio server that died at once finish writing stderr and report its exit before we read them.
    if (transport instanceof GroupStdioTransport) await transport.exited(500);
    const reason = stdioReason(transport, base);
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    if (isUnauthorized(e)) {
      throw new McpNeedsAuthError(`the server answered 401 Unauthorized (${reason}); authenticate with mcp_authenticate (the SDK's mcpAuthenticate) or put a token in the server's "headers"`);
    }
    throw new McpConnectError(reason);
  }
}
