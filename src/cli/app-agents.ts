// Composition of the Agent tool: the subagents the loaders found (src/project/agents.ts: initialize.agents,
// --agents, .claude/agents/*.md, plugins) plus the built-in general-purpose agent, wired to Session.runNested.
import { createRequire } from 'node:module';
import { createAgentTool } from '../agents/agent-tool.js';
import { BUILTIN_AGENTS } from '../agents/builtin.js';
import type { AgentDefinition } from '../agents/types.js';
import type { Logger } from '../log/logger.js';
import type { Session } from '../session/session.js';
import { buildSystemBlocks } from '../session/system-prompt.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { AnyTool } from '../tools/tool.js';

/** Custom definitions override built-ins of the same name. */
export function mergeAgents(custom: readonly AgentDefinition[]): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  for (const a of [...BUILTIN_AGENTS, ...custom]) byName.set(a.name, a);
  return [...byName.values()];
}

/** Adds the Agent tool when the host defined agents (the wire stays as it was for hosts that define none). */
export function installAgentTool(o: { definitions: readonly AgentDefinition[]; tools: ToolRegistry; session: () => Session; logger: Logger; platform: string; now: () => number }): void {
  const custom = o.definitions.filter((a) => a.source !== 'built-in');
  if (custom.length === 0) return;
  const agents = mergeAgents(custom);
  o.tools.add(
    createAgentTool({
      agents: () => agents,
      run: (spec) => o.session().runNested(spec),
      parentTools: () => o.tools.names().flatMap((n): AnyTool[] => {
        const t = o.tools.get(n);
        return t ? [t] : [];
      }),
      parentModel: () => o.session().settings.model,
      system: (prompt, model) => {
        const s = o.session().shared.current;
        const env = [
          'Notes:',
          '- The agent that launched you reads only your final message: make it a complete, concise report, with absolute file paths.',
          '',
          '# Environment',
          `- Working directory: ${s.cwd}`,
          ...(s.additionalDirectories.length ? [`- Additional directories: ${s.additionalDirectories.join(', ')}`] : []),
          `- Platform: ${o.platform}`,
          `- Date: ${new Date(o.now()).toISOString().slice(0, 10)}`,
          `- Model: ${model}`,
        ].join('\n');
        return buildSystemBlocks({ kind: 'custom', parts: [prompt, env] }, { cwd: s.cwd, platform: o.platform, date: '', model, additionalDirectories: s.additionalDirectories });
      },
      newAgentId: () => `a${agentIdBytes()}`,
      forwardText: () => false,
      logger: o.logger,
    }),
  );
}

// node:crypto required on the first Agent call, not at start-up (it costs a few ms of every start: BENCHMARKS.md).
const lazyRequire = createRequire(import.meta.url);
function agentIdBytes(): string {
  const { randomBytes } = lazyRequire('node:crypto') as typeof import('node:crypto');
  return randomBytes(8).toString('hex');
}
