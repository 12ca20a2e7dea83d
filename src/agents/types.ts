// Subagent definitions: what the Agent tool can start. Loaded from initialize.agents, --agents, .claude/agents/*.md
// (project, user, plugins) and the built-in ones; consumed by the Agent tool. Shared by the loaders (cli side)
// and the tool (core side), so it lives below both and imports nothing.

/** Where a definition came from; later sources override earlier ones with the same name (as Claude Code does). */
export type AgentSource = 'built-in' | 'plugin' | 'user' | 'project' | 'flag' | 'sdk';

export interface AgentDefinition {
  /** The name the model passes as `subagent_type`. */
  readonly name: string;
  /** When to use it: shown to the model in the Agent tool's description. */
  readonly description: string;
  /** The subagent's system prompt. */
  readonly prompt: string;
  /** Allowed tool names; undefined: the parent's tools (minus those never given to subagents). */
  readonly tools: readonly string[] | undefined;
  readonly disallowedTools: readonly string[];
  /** 'inherit', an alias or a model id; undefined: the main model. */
  readonly model: string | undefined;
  readonly maxTurns: number | undefined;
  /** Run as a background task when invoked. */
  readonly background: boolean;
  /** Skill names to preload. */
  readonly skills: readonly string[];
  readonly source: AgentSource;
  /** The file it was read from, for warnings; undefined for definitions given as data. */
  readonly file: string | undefined;
}
