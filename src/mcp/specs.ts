// Comparing and reporting server definitions (McpServerSpec): pure helpers of the hub.
import type { McpServerSpec } from './config.js';

/**
 * Whether a definition `mcp_set_servers` sends can keep the connection made for `before`: the same but for the
 * per-tool policies and, for an SDK server, the timeout (which, as the SDK documents, applies only when the
 * server is first registered).
 */
export function sameConnection(next: McpServerSpec, before: McpServerSpec): boolean {
  // An SDK server is the host's instance of that name, whatever settings come with it.
  if (next.kind === 'sdk' || before.kind === 'sdk') return next.kind === before.kind && next.name === before.name;
  const strip = (s: McpServerSpec): unknown => {
    if (s.kind === 'invalid' || s.kind === 'withheld') return s;
    const { tools: _tools, ...config } = s.config;
    return { ...s, config };
  };
  return JSON.stringify(strip(next)) === JSON.stringify(strip(before));
}

/** `before` with the per-tool policies of `next` (same server, same kind). */
export function withPolicies(before: McpServerSpec, next: McpServerSpec): McpServerSpec {
  if (before.kind === 'invalid' || before.kind === 'withheld' || next.kind === 'invalid' || next.kind === 'withheld') return before;
  const tools = next.config.tools;
  switch (before.kind) {
    case 'stdio':
      return { ...before, config: { ...before.config, tools } };
    case 'remote':
      return { ...before, config: { ...before.config, tools } };
    case 'sdk':
      return { ...before, config: { ...before.config, tools } };
    default: {
      const never: never = before;
      return never;
    }
  }
}

export function publicConfig(spec: McpServerSpec): Record<string, unknown> {
  switch (spec.kind) {
    case 'stdio':
      return { type: 'stdio', command: spec.config.command, args: spec.config.args ?? [] };
    case 'remote':
      return { type: spec.config.type, url: spec.config.url };
    case 'sdk':
      return { type: 'sdk', name: spec.name };
    case 'invalid':
      return {};
    case 'withheld':
      return withheldConfig(spec.config);
    default: {
      const never: never = spec;
      return never;
    }
  }
}

/** A withheld server's config as written, for mcp_status: its type and command or URL, never env or headers. */
function withheldConfig(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  const c = new Map<string, unknown>(Object.entries(raw));
  const text = (k: string): string => {
    const v = c.get(k);
    return typeof v === 'string' ? v : '';
  };
  const type = c.get('type');
  if (type === 'http' || type === 'sse') return { type, url: text('url') };
  const args = c.get('args');
  return { type: 'stdio', command: text('command'), args: Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [] };
}

/**
 * What the host's request to start a withheld server is told (Claude Code's words for a project server that is not
 * approved, with agentd's ways to approve it).
 */
export function notApproved(name: string, reason: string): string {
  return `"${name}" is a project-scope MCP server (.mcp.json) that is not approved for this project. ${reason}`;
}
