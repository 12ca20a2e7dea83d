// Claude Code's model aliases where a file or a tool names a model (an agent definition, the Agent tool's
// `model`, a custom command's `model` frontmatter), and the ids agentd maps them to. `inherit` (or nothing)
// keeps the model in use.
export const MODEL_ALIASES: Readonly<Record<string, string>> = { sonnet: 'claude-sonnet-4-5', opus: 'claude-opus-5-5', haiku: 'claude-haiku-4-5', fable: 'claude-fable-5-2' };

/** The model id `name` stands for; undefined for nothing or `inherit` (the caller keeps its model). */
export function resolveModelName(name: string | undefined): string | undefined {
  if (name === undefined || name === '' || name === 'inherit') return undefined;
  return MODEL_ALIASES[name] ?? name;
}
