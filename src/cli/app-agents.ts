// Composition of the Agent tool: the subagents an SDK host defines in `initialize.agents` (a minimal reading of
// the definitions; the full loaders — --agents, .claude/agents/*.md — live in src/project/agents.ts) plus the
// built-in general-purpose agent, wired to Session.runNested.
import { randomBytes } from 'node:crypto';
import { createAgentTool } from '../agents/agent-tool.js';
import { BUILTIN_AGENTS } from '../agents/builtin.js';
import type { AgentDefinition } from '../agents/types.js';
import type { Logger } from '../log/logger.js';
import type { Session } from '../session/session.js';
import { buildSystemBlocks } from '../session/system-prompt.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { AnyTool } from '../tools/tool.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x): x is string => typeof x === 'string') ? v : undefined;
}

/** `initialize.agents` ({name: {description, prompt, tools?, disallowedTools?, model?, maxTurns?}}); bad entries are skipped with a warning. */
export function sdkAgentDefinitions(raw: unknown, logger: Logger): AgentDefinition[] {
  if (!isRecord(raw)) return [];
  const out: AgentDefinition[] = [];
  for (const [name, v] of Object.entries(raw)) {
    if (!isRecord(v) || typeof v['description'] !== 'string' || typeof v['prompt'] !== 'string') {
      logger.warn({ agent: name }, 'initialize.agents: an agent needs a description and a prompt; skipped');
      continue;
    }
    out.push({
      name,
      description: v['description'],
      prompt: v['prompt'],
      tools: strings(v['tools']),
      disallowedTools: strings(v['disallowedTools']) ?? [],
      model: typeof v['model'] === 'string' ? v['model'] : undefined,
      maxTurns: typeof v['maxTurns'] === 'number' && Number.isInteger(v['maxTurns']) && v['maxTurns'] > 0 ? v['maxTurns'] : undefined,
      background: v['background'] === true,
      skills: strings(v['skills']) ?? [],
      source: 'sdk',
      file: undefined,
    });
  }
  return out;
}

/** Custom definitions override built-ins of the same name. */
export function mergeAgents(custom: readonly AgentDefinition[]): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  for (const a of [...BUILTIN_AGENTS, ...custom]) byName.set(a.name, a);
  return [...byName.values()];
}

/** Adds the Agent tool when the host defined agents (the wire stays as it was for hosts that define none). */
export function installAgentTool(o: { raw: unknown; tools: ToolRegistry; session: () => Session; logger: Logger; platform: string; now: () => number }): void {
  const custom = sdkAgentDefinitions(o.raw, o.logger);
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
      newAgentId: () => `a${randomBytes(8).toString('hex')}`,
      forwardText: () => false,
      logger: o.logger,
    }),
  );
}
