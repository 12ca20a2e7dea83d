// The Agent tool (Claude Code 2.1.330's name and input schema, captured from what the native binary offers the
// model): starts a subagent, a nested agent loop with its own thread (a sidechain transcript), system prompt,
// model and tool list, and answers with the subagent's final text. The subagent runs through the same
// permission gate and hooks as its parent, so it can never do more than the parent may.
import * as z from 'zod/mini';
import type { SystemBlock } from '../model/types.js';
import type { Toolset } from '../session/loop.js';
import { resolveModelName } from '../model/aliases.js';
import type { NestedLoopOutcome, NestedLoopSpec } from '../session/nested.js';
import type { AnyTool, Tool } from '../tools/tool.js';
import type { AgentDefinition } from './types.js';

export const AGENT_TOOL_NAME = 'Agent';
/** Tools a subagent never gets: no recursion (Claude Code's depth cap for foreground agents is one level). */
const NEVER_FOR_SUBAGENTS: ReadonlySet<string> = new Set([AGENT_TOOL_NAME, 'StructuredOutput']);

export const AgentInput = z.strictObject({
  description: z.string(),
  prompt: z.string(),
  subagent_type: z.optional(z.string()),
  model: z.optional(z.string()),
  effort: z.optional(z.string()),
  run_in_background: z.optional(z.boolean()),
  isolation: z.optional(z.string()),
});
export type AgentInput = z.infer<typeof AgentInput>;

/** The input schema as Claude Code 2.1.330 sends it (minus the "fork"/"remote" variants agentd lacks). */
const AGENT_INPUT_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    description: { description: 'A short (3-5 word) description of the task', type: 'string' },
    prompt: { description: 'The task for the agent to perform', type: 'string' },
    subagent_type: { description: 'The type of specialized agent to use for this task', type: 'string' },
    model: {
      description: "Optional model override for this agent. Takes precedence over the agent definition's model. If omitted, uses the agent definition's model, else inherits the parent's.",
      type: 'string',
      enum: ['sonnet', 'opus', 'haiku', 'fable'],
    },
    run_in_background: { description: 'Not supported by agentd yet: leave it unset (the agent runs in the foreground and its report is the result).', type: 'boolean' },
  },
  required: ['description', 'prompt'],
  additionalProperties: false,
};

export interface AgentToolOptions {
  /** The definitions the model may choose from (custom ones override built-ins of the same name). */
  agents: () => readonly AgentDefinition[];
  /** Runs the nested loop (Session.runNested). */
  run: (spec: NestedLoopSpec) => Promise<NestedLoopOutcome>;
  /** Every tool the parent has (a subagent's list is picked from these). */
  parentTools: () => readonly AnyTool[];
  parentModel: () => string;
  /** The subagent's system prompt around its definition's prompt (environment etc.). */
  system: (agentPrompt: string, model: string) => SystemBlock[];
  newAgentId: () => string;
  /** Forward the subagent's text and thinking blocks (initialize.forwardSubagentText). */
  forwardText: () => boolean;
  logger?: { warn(obj: object, msg: string): void };
}

function describeAgents(agents: readonly AgentDefinition[]): string {
  return agents.map((a) => `- ${a.name}: ${a.description} (Tools: ${a.tools ? a.tools.join(', ') : 'All tools'})`).join('\n');
}

/** The subagent's toolset: its definition's list (or all of the parent's), minus disallowed and never-given tools. */
export function subagentTools(def: AgentDefinition, parent: readonly AnyTool[], warn?: (name: string) => void): AnyTool[] {
  const byName = new Map(parent.map((t) => [t.name, t]));
  const names = def.tools ?? parent.map((t) => t.name);
  const out: AnyTool[] = [];
  for (const n of names) {
    if (NEVER_FOR_SUBAGENTS.has(n) || def.disallowedTools.includes(n)) continue;
    const t = byName.get(n);
    if (t) out.push(t);
    else warn?.(n);
  }
  return out;
}

function toolset(tools: readonly AnyTool[]): Toolset {
  const byName = new Map(tools.map((t) => [t.name, t]));
  let defs: ReturnType<Toolset['definitions']> | undefined;
  return {
    get: (name) => byName.get(name),
    definitions: () =>
      (defs ??= tools.map((t) => ({ name: t.name, description: t.description, input_schema: structuredClone(t.inputJsonSchema ?? (z.toJSONSchema(t.inputSchema, { target: 'draft-07', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>)) }))),
  };
}

function modelFor(input: AgentInput, def: AgentDefinition, parent: string): string {
  return resolveModelName(input.model ?? def.model) ?? parent;
}

export function createAgentTool(o: AgentToolOptions): Tool<AgentInput, string> {
  return {
    name: AGENT_TOOL_NAME,
    get description(): string {
      return `Launch a new agent to handle complex, multi-step tasks autonomously. Each agent type has specific capabilities and tools available to it.\n\nAvailable agent types and the tools they have access to:\n${describeAgents(o.agents())}\n\nWhen using the Agent tool, specify a subagent_type to select which agent type to use (general-purpose if omitted). The agent's final message is returned to you as the tool result; the user does not see it, so summarise what matters.`;
    },
    inputSchema: AgentInput,
    inputJsonSchema: AGENT_INPUT_JSON_SCHEMA,
    // Several agents in one message run side by side (under the executor's concurrency cap).
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    permissionSubject: () => ({ kind: 'session' }),
    validateInput(input) {
      if (input.run_in_background === true) return { ok: false, message: 'Background agents (run_in_background: true) are not supported by agentd yet; call Agent again without it.' };
      if (input.isolation !== undefined) return { ok: false, message: `Isolation "${input.isolation}" is not supported by agentd; call Agent again without it.` };
      const type = input.subagent_type ?? 'general-purpose';
      const agents = o.agents();
      if (!agents.some((a) => a.name === type)) {
        return { ok: false, message: `Agent type '${type}' not found. Available agents: ${agents.map((a) => a.name).join(', ')}` };
      }
      return { ok: true };
    },
    async call(input, ctx) {
      const type = input.subagent_type ?? 'general-purpose';
      const def = o.agents().find((a) => a.name === type);
      if (!def) throw new Error(`Agent type '${type}' not found.`);
      const model = modelFor(input, def, o.parentModel());
      const tools = subagentTools(def, o.parentTools(), (n) => o.logger?.warn({ agent: def.name, tool: n }, 'agent definition names an unknown tool; dropped'));
      const out = await o.run({
        parentToolUseId: ctx.toolUseId,
        agentId: o.newAgentId(),
        prompt: input.prompt,
        system: (m) => o.system(def.prompt, m),
        tools: toolset(tools),
        settings: { model, fallbackModel: undefined, maxThinkingTokens: null, thinking: undefined, maxTurns: def.maxTurns, maxBudgetUsd: undefined, maxOutputTokens: undefined, jsonSchema: undefined },
        signal: ctx.signal,
        forwardText: o.forwardText(),
      });
      const r = out.result;
      if (r.isError) {
        const why = r.errors.join('; ') || 'the subagent failed';
        return { data: `Error: ${why}`, content: `Agent "${def.name}" failed: ${why}`, isError: true };
      }
      const text = r.resultText || '(the agent finished without a final message)';
      return { data: text, content: text };
    },
  };
}
