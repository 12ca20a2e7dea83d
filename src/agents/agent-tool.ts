// The Agent tool (Claude Code 2.1.330's name and input schema, captured from what the native binary offers the
// model): starts a subagent, a nested agent loop with its own thread (a sidechain transcript), system prompt,
// model and tool list, and answers with the subagent's final text. The subagent runs through the same
// permission gate and hooks as its parent, so it can never do more than the parent may.
import * as z from 'zod/mini';
import type { SystemBlock, UserBlock } from '../model/types.js';
import type { Toolset } from '../session/loop.js';
import type { NestedLoopOutcome, NestedLoopSpec } from '../session/nested.js';
import type { AnyTool, Tool } from '../tools/tool.js';
import type { TurnHooks } from '../hooks/turn-hooks.js';
import type { AgentDefinition } from './types.js';
import type { TaskEnd, TaskHandle, TaskRegistry } from './tasks.js';

export const AGENT_TOOL_NAME = 'Agent';
/** Tools a subagent never gets: no recursion (Claude Code's depth cap for foreground agents is one level). */
const NEVER_FOR_SUBAGENTS: ReadonlySet<string> = new Set([AGENT_TOOL_NAME, 'StructuredOutput']);

export const AgentInput = z.lazy(() => z.strictObject({
  description: z.string(),
  prompt: z.string(),
  subagent_type: z.optional(z.string()),
  model: z.optional(z.string()),
  effort: z.optional(z.string()),
  run_in_background: z.optional(z.boolean()),
  isolation: z.optional(z.string()),
}));
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
    run_in_background: {
      description: 'Set to true to run this agent in the background: the call returns at once and you are notified when the agent completes. Leave it unset when your next step depends on the result (the agent runs in the foreground and its report is the result).',
      type: 'boolean',
    },
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
  /** Tools a deny rule keeps out of the session: a subagent's call of one is told so, as the parent's is. */
  withheld?: (name: string) => boolean;
  parentModel: () => string;
  /**
   * The call's or the definition's `model`, resolved as every model name is (model/names.ts, availableModels):
   * undefined keeps the parent's (nothing, `inherit`, or a model the settings leave out).
   */
  resolveModel: (name: string | undefined) => string | undefined;
  /** The subagent's system prompt around its definition's prompt (environment etc.). */
  system: (agentPrompt: string, model: string) => SystemBlock[];
  newAgentId: () => string;
  /** Forward the subagent's text and thinking blocks (initialize.forwardSubagentText). */
  forwardText: () => boolean;
  /** The session's tasks: every call is one (task_started … task_notification), background ones outlive the call. */
  tasks: TaskRegistry;
  /** SubagentStart / SubagentStop. */
  hooks: Pick<TurnHooks, 'subagentStart' | 'subagentStop'>;
  /** The subagent's transcript file ('' when transcripts are off): a task's output_file. */
  outputFile: (agentId: string) => string;
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
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

function toolset(tools: readonly AnyTool[], withheld: ((name: string) => boolean) | undefined): Toolset {
  const byName = new Map(tools.map((t) => [t.name, t]));
  let defs: ReturnType<Toolset['definitions']> | undefined;
  return {
    get: (name) => byName.get(name),
    ...(withheld ? { withheld } : {}),
    definitions: () =>
      (defs ??= tools.map((t) => ({ name: t.name, description: t.description, input_schema: structuredClone(t.inputJsonSchema ?? (z.toJSONSchema(t.inputSchema, { target: 'draft-07', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>)) }))),
  };
}

function modelFor(o: AgentToolOptions, input: AgentInput, def: AgentDefinition): string {
  return o.resolveModel(input.model ?? def.model) ?? o.parentModel();
}

export function createAgentTool(o: AgentToolOptions): Tool<AgentInput, string | Record<string, unknown>> {
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
      const model = modelFor(o, input, def);
      const tools = subagentTools(def, o.parentTools(), (n) => o.logger?.warn({ agent: def.name, tool: n }, 'agent definition names an unknown tool; dropped'));
      const agentId = o.newAgentId();
      const background = input.run_in_background ?? def.background;
      const outputFile = o.outputFile(agentId);
      const task = await o.tasks.start(
        { id: agentId, toolUseId: ctx.toolUseId, description: input.description, subagentType: def.name, taskType: 'local_agent', background, outputFile },
        input.prompt,
        background ? undefined : ctx.signal,
      );
      const run = runTask(o, task, { input, def, model, tools, agentId, outputFile, parentToolUseId: ctx.toolUseId });
      if (background) {
        // The call answers now; the agent's end is reported by its task (notification frame and a turn for the model).
        run.catch((err: unknown) => o.logger?.error({ err, agentId }, 'background agent crashed'));
        const data = { isAsync: true, status: 'async_launched', agentId, description: input.description, resolvedModel: model, prompt: input.prompt, outputFile, canReadOutputFile: outputFile !== '' };
        return { data, content: launchedText(agentId, outputFile) };
      }
      const r = await run;
      if (r.status === 'failed') return { data: `Error: ${r.text}`, content: `Agent "${def.name}" failed: ${r.text}`, isError: true };
      if (r.status === 'stopped') return { data: 'Error: the agent was stopped', content: `Agent "${def.name}" was stopped before it finished.`, isError: true };
      return { data: r.text, content: r.text };
    },
  };
}

/** Claude Code 2.1.330's answer to a background Agent call, minus SendMessage (agentd cannot continue an agent). */
function launchedText(agentId: string, outputFile: string): string {
  return [
    'Async agent launched successfully. (This tool result is internal metadata — never quote or paste any part of it, including the agentId below, into a user-facing reply.)',
    `agentId: ${agentId} (internal ID - do not mention to user.)`,
    'The agent is working in the background. You will be notified automatically when it completes. You know nothing about its results until that notification arrives — do not report, assume, or predict them; continue other work or respond to the user in the meantime.',
    "Do not duplicate this agent's work — avoid working with the same files or topics it is using.",
    ...(outputFile ? [`output_file: ${outputFile}`, "Do NOT Read or tail this file via the shell tool — it is the full subagent JSONL transcript and reading it will overflow your context. If the user asks for progress, say the agent is still running; you'll get a completion notification."] : []),
  ].join('\n');
}

interface RunPlan {
  input: AgentInput;
  def: AgentDefinition;
  model: string;
  tools: AnyTool[];
  agentId: string;
  outputFile: string;
  parentToolUseId: string;
}

/** Runs the subagent of a task: SubagentStart, the nested loop (SubagentStop as its stop hook), the task's end. */
async function runTask(o: AgentToolOptions, task: TaskHandle, p: RunPlan): Promise<TaskEnd> {
  let end: TaskEnd;
  try {
    const start = await o.hooks.subagentStart({ agentId: p.agentId, agentType: p.def.name }, task.signal);
    const prompt: string | UserBlock[] = start.additionalContext.length
      ? [...start.additionalContext.map((c): UserBlock => ({ type: 'text', text: `<system-reminder>\nSubagentStart hook additional context: ${c}\n</system-reminder>` })), { type: 'text', text: p.input.prompt }]
      : p.input.prompt;
    const out = await o.run({
      parentToolUseId: p.parentToolUseId,
      agentId: p.agentId,
      prompt,
      system: (m) => o.system(p.def.prompt, m),
      tools: toolset(p.tools, o.withheld),
      settings: { model: p.model, fallbackModel: undefined, maxTurns: p.def.maxTurns, maxBudgetUsd: undefined, jsonSchema: undefined },
      signal: task.signal,
      forwardText: o.forwardText(),
      // Claude Code forwards a foreground subagent's prompt as a user frame under the Agent call (observed).
      ...(task.info.background ? {} : { reportPrompt: p.input.prompt }),
      observe: (ev) => task.observe(ev),
      stopHook: (i, signal) => o.hooks.subagentStop({ agentId: p.agentId, agentType: p.def.name, transcriptPath: p.outputFile, stopHookActive: i.stopHookActive, lastAssistantMessage: i.lastAssistantMessage }, signal),
    });
    const r = out.result;
    if (task.signal.aborted) end = { status: 'stopped', text: '' };
    else if (r.isError) end = { status: 'failed', text: r.errors.join('; ') || 'the subagent failed' };
    else end = { status: 'completed', text: r.resultText || '(the agent finished without a final message)' };
  } catch (err) {
    end = task.signal.aborted ? { status: 'stopped', text: '' } : { status: 'failed', text: err instanceof Error ? err.message : String(err) };
  }
  await task.finish(end);
  return end;
}
