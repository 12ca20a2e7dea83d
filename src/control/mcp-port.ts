// The McpMessagePort (src/mcp/port.ts) over the control channel: each JSON-RPC message for a host-run ("SDK") MCP
// server goes out as an `mcp_message` control request; the server's reply is the success response's
// `mcp_response`. The MCP client above applies its own request timeouts; the deadline here bounds a host that
// never answers at all.
import { ElicitationResult } from '../../protocol/src/runtime.js';
import type { McpMessagePort } from '../mcp/port.js';
import type { ControlClient } from './outbound.js';

export function createMcpMessagePort(client: ControlClient): McpMessagePort {
  return {
    async send(server, message, opts = {}) {
      const response = await client.request(
        { subtype: 'mcp_message', server_name: server, message },
        { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) },
      );
      return response['mcp_response'];
    },
    async elicit(ask, signal) {
      const raw = await client.request(
        {
          subtype: 'elicitation',
          mcp_server_name: ask.serverName,
          message: ask.message,
          ...(ask.mode !== undefined ? { mode: ask.mode } : {}),
          ...(ask.url !== undefined ? { url: ask.url } : {}),
          ...(ask.elicitationId !== undefined ? { elicitation_id: ask.elicitationId } : {}),
          ...(ask.requestedSchema !== undefined ? { requested_schema: ask.requestedSchema } : {}),
        },
        { signal },
      );
      const r = ElicitationResult.safeParse(raw);
      // A malformed answer is no answer: the server is told "decline".
      if (!r.success) return { action: 'decline' };
      return r.data.action === 'accept' && r.data.content ? { action: 'accept', content: r.data.content } : { action: r.data.action };
    },
  };
}
