// MCP tool names as the model sees them: `mcp__<server>__<tool>`, each part normalised as Claude Code does
// (every character outside [a-zA-Z0-9_-] becomes `_`; the API accepts no others in tool names).

export const MCP_TOOL_PREFIX = 'mcp__';

export function normalizeMcpName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${normalizeMcpName(server)}__${normalizeMcpName(tool)}`;
}
