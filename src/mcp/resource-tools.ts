// Claude Code's ListMcpResourcesTool and ReadMcpResourceTool, offered while a connected server has resources.
// Concurrency-safe, and allowed like reads (Claude Code runs them unasked), except that a `file:` resource is a
// file: its read is judged by the Read rules and the working directories exactly as the Read tool's would be (a
// server serving files must not become a way around a Read deny rule or out of the project). A `file:` URI that
// names no local path, or a URI that does not parse (a server may take it for a path), asks.
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import type { AnyTool, ToolOutcome } from '../tools/tool.js';
import type { ResourceAccess, ResourceInfo } from './client.js';

export const LIST_RESOURCES_TOOL = 'ListMcpResourcesTool';
export const READ_RESOURCE_TOOL = 'ReadMcpResourceTool';

export interface ResourceServers {
  /** Connected servers that offer resources, by name. */
  withResources(): Map<string, ResourceAccess>;
}

const ListInput = z.lazy(() => z.object({ server: z.optional(z.string()) }));
const ReadInput = z.lazy(() => z.object({ server: z.string(), uri: z.string() }));

/** The local path a resource URI names: a path for `file:` URIs, undefined for other schemes, null when unknowable. */
export function fileUriPath(uri: string): string | null | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'file:') return undefined;
  try {
    return fileURLToPath(url);
  } catch {
    return null;
  }
}

export function resourceTools(servers: ResourceServers, maxOutputChars: number): AnyTool[] {
  const list: AnyTool = {
    name: LIST_RESOURCES_TOOL,
    description: 'Lists the resources MCP servers offer (all servers, or the one named by `server`). Each item has its uri, name, mimeType, description and server.',
    inputSchema: ListInput,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    permissionSubject: () => ({ kind: 'none' }),
    call: async (input: z.infer<typeof ListInput>, ctx): Promise<ToolOutcome> => {
      const all = servers.withResources();
      if (input.server !== undefined && !all.has(input.server)) {
        return { data: [], content: `No connected MCP server named "${input.server}" offers resources. Servers with resources: ${[...all.keys()].join(', ') || 'none'}.`, isError: true };
      }
      const out: Array<ResourceInfo & { server: string }> = [];
      for (const [name, access] of all) {
        if (input.server !== undefined && name !== input.server) continue;
        for (const r of await access.list(ctx.signal)) out.push({ ...r, server: name });
      }
      const text = out.length ? JSON.stringify(out) : 'No resources found. MCP servers may still provide tools even if they have no resources.';
      return { data: out, content: text.length > maxOutputChars ? `${text.slice(0, maxOutputChars)}\n[agentd: output cut (MAX_MCP_OUTPUT_TOKENS)]` : text };
    },
  };
  const read: AnyTool = {
    name: READ_RESOURCE_TOOL,
    description: 'Reads one resource (by `uri`) from the MCP server named by `server`.',
    inputSchema: ReadInput,
    isConcurrencySafe: () => true,
    isReadOnly: (input: z.infer<typeof ReadInput>) => fileUriPath(input.uri) !== null,
    interruptBehavior: 'cancel',
    permissionSubject: (input: z.infer<typeof ReadInput>) => {
      const path = fileUriPath(input.uri);
      return typeof path === 'string' ? { kind: 'read', path } : { kind: 'none' };
    },
    call: async (input: z.infer<typeof ReadInput>, ctx): Promise<ToolOutcome> => {
      const access = servers.withResources().get(input.server);
      if (!access) return { data: { contents: [] }, content: `No connected MCP server named "${input.server}" offers resources.`, isError: true };
      const contents = (await access.read(input.uri, ctx.signal)).map((c) => ({
        uri: c.uri,
        ...(c.mimeType !== undefined ? { mimeType: c.mimeType } : {}),
        ...(c.text !== undefined ? { text: c.text } : c.blob !== undefined ? { text: `(binary ${c.mimeType ?? 'data'}, ${c.blob.length} base64 characters, not shown)` } : {}),
      }));
      const text = JSON.stringify({ contents });
      return { data: { contents }, content: text.length > maxOutputChars ? `${text.slice(0, maxOutputChars)}\n[agentd: output cut (MAX_MCP_OUTPUT_TOKENS)]` : text };
    },
  };
  return [list, read];
}
