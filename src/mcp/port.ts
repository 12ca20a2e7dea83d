// The McpMessagePort: how MCP JSON-RPC reaches a server the SDK host runs in its own process ("SDK" servers:
// `createSdkMcpServer` in TypeScript, `create_sdk_mcp_server` in Python). Owned here, implemented by the protocol
// adapter (src/control/mcp-port.ts) over `mcp_message` control requests.

export interface McpPortSendOptions {
  signal?: AbortSignal;
  /** The host must answer within this long, else the send rejects (an SDK server that never answers is bounded). */
  timeoutMs?: number;
}

/** An MCP server's `elicitation/create`, as the host's `elicitation` control request carries it. */
export interface ElicitationAsk {
  serverName: string;
  message: string;
  mode?: 'form' | 'url';
  url?: string;
  elicitationId?: string;
  requestedSchema?: Record<string, unknown>;
}

export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export interface McpMessagePort {
  /**
   * Sends one JSON-RPC message to the host's server `server`. Resolves with the host's `mcp_response` (the
   * server's JSON-RPC reply for a request; an ignorable acknowledgement for anything else). Rejects when the host
   * refuses it, does not answer in time, or the channel closes.
   */
  send(server: string, message: Record<string, unknown>, opts?: McpPortSendOptions): Promise<unknown>;
  /**
   * Asks the host to answer a server's elicitation (`elicitation` control request). Rejects when there is no
   * answer (error, closed channel, malformed reply); the caller then declines: elicitation fails closed.
   */
  elicit?(ask: ElicitationAsk, signal: AbortSignal): Promise<ElicitationAnswer>;
}
