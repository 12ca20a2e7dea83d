// An MCP client transport to a server the SDK host runs: each JSON-RPC message travels in an `mcp_message` control
// request (McpMessagePort); the reply to a request comes back in that request's `mcp_response`. Messages the
// server sends on its own (notifications, requests to the client) arrive through `deliver`, routed here from the
// host's own `mcp_message` requests.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema, JSONRPCResponseSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpMessagePort } from './port.js';

export class SdkHostTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private readonly abort = new AbortController();
  /** Requests waiting for the host's reply, by JSON-RPC id: a cancelled one withdraws its control request. */
  private readonly inFlight = new Map<string | number, AbortController>();

  constructor(
    private readonly server: string,
    private readonly port: McpMessagePort,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`The SDK MCP server "${this.server}" is closed.`);
    const isRequest = 'method' in message && 'id' in message;
    if ('method' in message && message.method === 'notifications/cancelled') {
      // The MCP client gave up on a request (timeout, interrupt): stop waiting for the host's reply too.
      const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) this.inFlight.get(id)?.abort();
    }
    // Every request is bounded by the MCP client's own timeout, which ends in notifications/cancelled (above)
    // or, for the handshake, in close(); both withdraw the control request.
    const ctl = new AbortController();
    const signal = AbortSignal.any([this.abort.signal, ctl.signal]);
    if (isRequest) this.inFlight.set(message.id, ctl);
    const reply = this.port.send(this.server, message as Record<string, unknown>, { signal });
    if (!isRequest) {
      // Notifications and our replies to the server's requests: the host only acknowledges them.
      reply.catch((e: unknown) => this.onerror?.(e instanceof Error ? e : new Error(String(e))));
      return;
    }
    // The reply is awaited in the background: the MCP client matches it to the request by id, and applies its
    // own timeout and cancellation to the request.
    const id = message.id;
    void reply.finally(() => this.inFlight.delete(id)).then(
      (response) => {
        // The reply to a request is a response (result or error), nothing else: checked against the response
        // schemas only (not the whole message union, which tried request and notification first), and anything
        // else fails the request now. A request-shaped reply would have been taken for the server's own request
        // while this one waited for its timeout.
        const r = JSONRPCResponseSchema.safeParse(response);
        if (r.success) this.onmessage?.(r.data);
        else {
          this.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32603, message: `The SDK host answered "${this.server}" with something that is not a JSON-RPC response.` } });
        }
      },
      (e: unknown) => {
        if (this.closed || ctl.signal.aborted) return;
        this.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32603, message: e instanceof Error ? e.message : String(e) } });
      },
    );
  }

  /** A message the server sent on its own (through the host's `mcp_message` request). */
  deliver(message: unknown): void {
    const r = JSONRPCMessageSchema.safeParse(message);
    if (r.success) this.onmessage?.(r.data);
    else this.onerror?.(new Error(`The SDK MCP server "${this.server}" sent an invalid JSON-RPC message.`));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.onclose?.();
  }
}
