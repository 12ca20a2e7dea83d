// Claude Code's built-in slash commands that make sense without a terminal, answered locally (no model call):
// the text each shows is agentd's own, in the frames Claude Code uses (a synthetic assistant message and a
// result with `local_command`). `/compact` is listed here and run by the session's compaction (src/compaction).
import type { LocalCommandContext, LocalCommandOutcome } from '../session/config.js';
import type { ModelUsageTotals } from '../session/events.js';

export interface BuiltinDeps {
  newUuid(): string;
  /** The `/context` table (markdown), from what the next request would carry. */
  contextMarkdown(): Promise<string>;
  costSummary(): { totalCostUsd: number; modelUsage: Record<string, ModelUsageTotals>; wallMs: number };
  currentModel(): string;
  /** Resolves and switches (model/model-allowlist.ts choose); a refusal leaves the model as it was. */
  setModel(model: string): { ok: true } | { ok: false; message: string };
  mcpStatus(): Array<{ name: string; status: string }>;
  /** Re-reads commands and skills from disk; returns how many of each. */
  reloadSkills(): { commands: number; skills: number };
}

export interface BuiltinCommand {
  name: string;
  description: string;
  argumentHint: string;
  aliases?: string[];
  /** `kind: 'prompt'` commands become a model turn with this text (/init); `local` ones answer themselves. */
  run(args: string, ctx: LocalCommandContext, typed: string): Promise<LocalCommandOutcome>;
}

const INIT_PROMPT = `Look through this codebase and write a CLAUDE.md file at its root for future agent sessions working here. Keep it short and specific:
1. The commands to build, lint and test (including how to run a single test).
2. The architecture a newcomer cannot see from one file: how the main parts fit together.
Do not list every file or repeat what the code already says plainly, and do not invent sections without content. If a CLAUDE.md exists, improve it instead of replacing it. Fold in the important parts of a README, .cursorrules, .cursor/rules/ or .github/copilot-instructions.md if there are any.`;

export function builtinCommands(d: BuiltinDeps): BuiltinCommand[] {
  return [
    {
      name: 'clear',
      description: 'Clear the conversation: the next prompt starts with an empty context',
      argumentHint: '',
      aliases: ['reset', 'new'],
      run: async (_args, ctx, typed) => {
        ctx.clearConversation();
        const id = d.newUuid();
        await ctx.emit({ type: 'conversation_reset', newConversationId: id, userMessageUuid: id });
        return { kind: 'output', command: typed, text: '' };
      },
    },
    {
      name: 'compact',
      description: 'Summarize the conversation so far to free context',
      argumentHint: '<optional custom summarization instructions>',
      // Listed here; slash.ts routes it to the session's compaction turn (QueuedInput.local), so this never runs.
      run: async (_args, _ctx, typed) => ({ kind: 'error', command: typed, message: '/compact is run by the session.' }),
    },
    {
      name: 'context',
      description: 'Show how the context window is used',
      argumentHint: '',
      run: async (_args, _ctx, typed) => ({ kind: 'output', command: typed, text: await d.contextMarkdown() }),
    },
    {
      name: 'usage',
      description: 'Show the cost and token usage of this session',
      argumentHint: '',
      aliases: ['cost', 'stats'],
      run: async (_args, _ctx, typed) => ({ kind: 'output', command: typed, text: costText(d.costSummary()) }),
    },
    {
      name: 'model',
      description: 'Show or set the model for the next turns',
      argumentHint: '<model>',
      run: async (args, _ctx, typed) => {
        const id = args.trim();
        if (!id) return { kind: 'output', command: typed, text: `Current model: ${d.currentModel()}` };
        if (!/^[\w.:@/[\]-]+$/.test(id)) return { kind: 'error', command: typed, message: `Not a model id: ${id}` };
        const r = d.setModel(id);
        if (!r.ok) return { kind: 'error', command: typed, message: r.message };
        return { kind: 'output', command: typed, text: `Set model to ${id}` };
      },
    },
    {
      name: 'mcp',
      description: 'Show the MCP servers and their status',
      argumentHint: '',
      run: async (_args, _ctx, typed) => {
        const rows = d.mcpStatus();
        const text = rows.length === 0 ? 'No MCP servers configured.' : ['MCP servers:', ...rows.map((r) => `- ${r.name}: ${r.status}`)].join('\n');
        return { kind: 'output', command: typed, text };
      },
    },
    {
      name: 'reload-skills',
      description: 'Pick up commands and skills added or changed on disk',
      argumentHint: '',
      run: async (_args, _ctx, typed) => {
        const n = d.reloadSkills();
        return { kind: 'output', command: typed, text: `Reloaded ${n.commands} commands and ${n.skills} skills.` };
      },
    },
    {
      name: 'init',
      description: 'Write a CLAUDE.md file describing this codebase',
      argumentHint: '',
      run: async () => ({ kind: 'turn', content: INIT_PROMPT }),
    },
  ];
}

function money(n: number): string {
  return `$${n.toFixed(4)}`;
}

function compact(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

export function costText(c: { totalCostUsd: number; modelUsage: Record<string, ModelUsageTotals>; wallMs: number }): string {
  const lines = [`Total cost:            ${money(c.totalCostUsd)}`, `Total duration (wall): ${Math.round(c.wallMs / 1000)}s`];
  const models = Object.entries(c.modelUsage);
  if (models.length === 0) lines.push('Usage by model:       none yet');
  else {
    lines.push('Usage by model:');
    for (const [m, u] of models) {
      lines.push(
        `  ${m}: ${compact(u.inputTokens)} input, ${compact(u.outputTokens)} output, ${compact(u.cacheReadInputTokens)} cache read, ${compact(u.cacheCreationInputTokens)} cache write (${money(u.costUSD)})`,
      );
    }
  }
  return lines.join('\n');
}
