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
    if (s.kind === 'invalid') return s;
    const { tools: _tools, ...config } = s.config;
    return { ...s, config };
  };
  return JSON.stringify(strip(next)) === JSON.stringify(strip(before));
}

/** `before` with the per-tool policies of `next` (same server, same kind). */
export function withPolicies(before: McpServerSpec, next: McpServerSpec): McpServerSpec {
  if (before.kind === 'invalid' || next.kind === 'invalid') return before;
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
    default: {
      const never: never = spec;
      return never;
    }
  }
}
