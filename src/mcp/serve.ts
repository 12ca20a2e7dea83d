// `agentd mcp serve`: agentd's built-in tools offered as an MCP server over stdio (as `claude mcp serve` offers
// Claude Code's). This file is only the MCP side (the MCP SDK's Server and stdio transport); which tools exist
// and how a call is judged and run is the caller's (cli/mcp-serve.ts runs each call through the executor's
// pipeline, permission layer included). Loaded lazily (dist/agentd-mcp.js).
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface ServedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

/** A call's answer: the tool_result's text and images, and whether it is an error. */
export interface ServedResult {
  content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>;
  isError: boolean;
}

export interface ServeOptions {
  tools: readonly ServedTool[];
  call(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ServedResult>;
  version: string;
  stdin: Readable;
  stdout: Writable;
}

function toMcp(r: ServedResult): CallToolResult {
  return { content: r.content, ...(r.isError ? { isError: true } : {}) };
}

/** Serves until the client closes stdin; resolves then. */
export async function serveTools(o: ServeOptions): Promise<void> {
  const server = new Server({ name: 'agentd', version: o.version }, { capabilities: { tools: {} } });
  const byName = new Map(o.tools.map((t) => [t.name, t]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: o.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: { type: 'object' as const, ...t.inputSchema },
      annotations: { readOnlyHint: t.readOnly },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    if (!byName.has(req.params.name)) return { content: [{ type: 'text', text: `No such tool available: ${req.params.name}` }], isError: true };
    return toMcp(await o.call(req.params.name, req.params.arguments ?? {}, extra.signal));
  });
  const transport = new StdioServerTransport(o.stdin, o.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    o.stdin.once('end', () => resolve());
    o.stdin.once('close', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}
