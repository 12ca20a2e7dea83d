// What the MCP hub tests share: a hub with quiet defaults, and a tool-call context.
import { silentLogger } from '../../../src/log/logger.js';
import { McpHub } from '../../../src/mcp/hub.js';
import type { ToolRegistry } from '../../../src/tools/registry.js';
import type { ToolCallContext, ToolProgressUpdate } from '../../../src/tools/tool.js';

export type HubOptions = ConstructorParameters<typeof McpHub>[0];

/** A hub over `tools` that tracks no process groups, with generous limits; `over` replaces any option. */
export function makeHub(tools: ToolRegistry, over: Partial<HubOptions> = {}): McpHub {
  return new McpHub({
    tools,
    isRemoved: () => false,
    logger: silentLogger(),
    cwd: '/',
    childEnv: {},
    trackProcessGroup: () => () => undefined,
    killGroup: async () => undefined,
    connectTimeoutMs: 20_000,
    toolTimeoutMs: 20_000,
    maxOutputChars: 100_000,
    clientVersion: 'test',
    ...over,
  });
}

/** A call context for an MCP tool called directly (no permission layer). */
export function callCtx(signal = new AbortController().signal, progress: ToolProgressUpdate[] = []): ToolCallContext {
  return { toolUseId: 't', shared: { cwd: '/', additionalDirectories: [] }, env: {} as never, signal, progress: (u) => progress.push(u), approval: { by: 'unchecked' } };
}
