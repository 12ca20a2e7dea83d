// Composition of the Agent tool: the subagents the loaders found (src/project/agents.ts: initialize.agents,
// --agents, .claude/agents/*.md, plugins) plus the built-in general-purpose agent, wired to Session.runNested.
import { createRequire } from 'node:module';
import { createAgentTool } from '../agents/agent-tool.js';
import type { ModelNames } from '../model/model-allowlist.js';
import { TaskRegistry } from '../agents/tasks.js';
import type { TurnHooks } from '../hooks/turn-hooks.js';
import { BUILTIN_AGENTS } from '../agents/builtin.js';
import type { AgentDefinition } from '../agents/types.js';
import type { Logger } from '../log/logger.js';
import type { Session } from '../session/session.js';
import type { SessionSettings } from '../session/config.js';
import { buildSystemBlocks } from '../session/system-prompt.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { AnyTool } from '../tools/tool.js';

/** Custom definitions override built-ins of the same name. */
export function mergeAgents(custom: readonly AgentDefinition[]): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  for (const a of [...BUILTIN_AGENTS, ...custom]) byName.set(a.name, a);
  return [...byName.values()];
}

/**
 * The session's subagent tasks: their events go out through the session, a background agent's end becomes a turn
 * of its own (a synthetic prompt the model answers), and the session's input ends only once they are done.
 */
export function createSessionTasks(session: Session, newUuid: () => string): TaskRegistry {
  const tasks = new TaskRegistry({
    emit: (ev) => session.notify(ev),
    now: Date.now,
    deliver: (text) => session.submit({ uuid: newUuid(), content: text, shouldQuery: true, isSynthetic: true }),
    onIdle: () => session.closeWhenSettled(),
  });
  session.attachBackground(tasks);
  return tasks;
}

/** A subagent's transcript (`<session>/subagents/agent-<id>.jsonl` beside the session's): its task's output file. */
export function sidechainPath(transcriptPath: string, agentId: string): string {
  return transcriptPath ? `${transcriptPath.replace(/\.jsonl$/, '')}/subagents/agent-${agentId}.jsonl` : '';
}

/** Adds the Agent tool when the host defined agents (the wire stays as it was for hosts that define none). */
export function installAgentTool(o: {
  definitions: readonly AgentDefinition[];
  tools: ToolRegistry;
  session: () => Session;
  logger: Logger;
  platform: string;
  now: () => number;
  tasks: TaskRegistry;
  hooks: Pick<TurnHooks, 'subagentStart' | 'subagentStop'>;
  transcriptPath: () => string;
  forwardText: boolean;
  models: ModelNames;
}): void {
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
      withheld: (name) => o.tools.withheld(name),
      parentModel: () => o.session().settings.model,
      resolveModel: (name) => o.models.forTask(name, (n) => o.logger.warn({ model: n }, 'agent model not in availableModels; the subagent runs on the parent model')),
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
      forwardText: () => o.forwardText,
      tasks: o.tasks,
      hooks: o.hooks,
      outputFile: (id) => sidechainPath(o.transcriptPath(), id),
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

/**
 * `--agent <name>` (the SDK's `agent`): the main thread runs as that custom agent — its prompt replaces the system
 * prompt (an append stays), its `tools` and `disallowedTools` limit the session's tools (applied once the built-in
 * tools have loaded, before the first turn; MCP tools connected later are not filtered), and its model is used
 * unless `--model` named one. An unknown name is an error message (the session runs as usual; the caller reports it).
 */
export function applyMainAgent(o: {
  name: string;
  definitions: readonly AgentDefinition[];
  settings: SessionSettings;
  tools: ToolRegistry;
  toolsReady: Promise<unknown>;
  modelGiven: boolean;
  models: ModelNames;
}): string | undefined {
  const custom = o.definitions.filter((a) => a.source !== 'built-in');
  const def = custom.find((a) => a.name === o.name);
  if (!def) return `--agent ${o.name}: no agent with that name is defined (known: ${custom.map((a) => a.name).join(', ') || 'none'}); the session runs without one.`;
  const append = o.settings.systemPrompt.append;
  o.settings.systemPrompt = { kind: 'custom', parts: [def.prompt], ...(append ? { append } : {}) };
  if (!o.modelGiven) {
    const model = o.models.forTask(def.model, () => undefined);
    if (model !== undefined) {
      o.settings.model = model;
      o.settings.planModel = undefined;
    }
  }
  const restrict = (): void => {
    for (const n of o.tools.names()) if ((def.tools !== undefined && !def.tools.includes(n)) || def.disallowedTools.includes(n)) o.tools.remove(n);
  };
  restrict();
  void o.toolsReady.then(restrict);
  return undefined;
}
