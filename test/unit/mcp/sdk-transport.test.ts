// The transport to an SDK host's server (src/mcp/sdk-transport.ts): the host's reply to a request reaches the MCP
// client only when it is a JSON-RPC response; anything else fails that request at once, naming the server.
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SdkHostTransport } from '../../../src/mcp/sdk-transport.js';
import type { McpMessagePort } from '../../../src/mcp/port.js';

async function replyTo(reply: unknown): Promise<JSONRPCMessage[]> {
  const port: McpMessagePort = { send: async () => reply };
  const t = new SdkHostTransport('hosted', port);
  const got: JSONRPCMessage[] = [];
  t.onmessage = (m) => got.push(m);
  await t.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', arguments: {} } });
  // The reply is handled in the background, a few promise settlements later.
  for (let i = 0; i < 10 && got.length === 0; i++) await new Promise((r) => setImmediate(r));
  await t.close();
  return got;
}

const notAResponse = { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'The SDK host answered "hosted" with something that is not a JSON-RPC response.' } };

describe('SdkHostTransport replies', () => {
  it('passes a result or an error response on as it came', async () => {
    const result = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'pong' }] } };
    const error = { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } };
    expect(await replyTo(result)).toEqual([result]);
    expect(await replyTo(error)).toEqual([error]);
  });

  it('fails the request when the reply is a request, a notification or not JSON-RPC at all', async () => {
    expect(await replyTo({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} })).toEqual([notAResponse]);
    expect(await replyTo({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })).toEqual([notAResponse]);
    expect(await replyTo('pong')).toEqual([notAResponse]);
  });
});
