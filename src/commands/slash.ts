// The one seam where typed slash commands are recognised: a user message whose text starts with `/name` gets a
// local run attached (QueuedInput.command) and is handled in the session's queue, in order. Built-ins answer
// locally; custom commands and skills expand into the turn the model receives; an unknown `/word` reaches the
// model as typed with a reminder that no such command exists (as Claude Code does).
import type { UserBlock } from '../model/types.js';
import type { CustomCommand, Skill } from '../project/index.js';
import { skillBody } from '../project/index.js';
import type { LocalCommandContext, LocalCommandOutcome, QueuedInput } from '../session/config.js';
import type { BuiltinCommand } from './builtins.js';
import { type ShellRun, expandCommand } from './expand.js';

export interface SlashCommandInfo {
  name: string;
  description: string;
  argumentHint: string;
  aliases?: string[];
  builtin?: boolean;
}

export interface SlashDeps {
  builtins: readonly BuiltinCommand[];
  /** Custom commands and skills as they are now (rescanned on reload). */
  commands(): readonly CustomCommand[];
  skills(): readonly Skill[];
  cwd(): string;
  /** What a Read call of a path would get with nobody asked: a command's `@file` obeys it. */
  readAccess(path: string): Promise<'allow' | 'ask' | 'deny'>;
  runShell: ShellRun;
  /**
   * A command's `model` frontmatter resolved (model/model-allowlist.ts forTask): undefined keeps the session's
   * model (no model, `inherit`, or one availableModels leaves out).
   */
  resolveModel(name: string | undefined): string | undefined;
}

const NAME_RE = /^[A-Za-z0-9][\w.:-]*$/;

/** `/name args` → name and args; undefined when the text is not a command (`/tmp/x is a path`). */
export function parseSlash(text: string): { name: string; args: string } | undefined {
  const t = text.trimStart();
  if (!t.startsWith('/')) return undefined;
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(t.trimEnd());
  if (!m || !NAME_RE.test(m[1] as string)) return undefined;
  return { name: m[1] as string, args: (m[2] ?? '').trim() };
}

/** Every command the host can offer, in Claude Code's order: skills, custom commands, then built-ins. */
export function listCommands(d: Pick<SlashDeps, 'builtins' | 'commands' | 'skills'>): SlashCommandInfo[] {
  // One row per name; a later definition (project over user over plugin) replaces an earlier one in place.
  const byName = new Map<string, SlashCommandInfo>();
  for (const s of d.skills()) byName.set(s.name, { name: s.name, description: s.description, argumentHint: s.argumentHint });
  for (const c of d.commands()) byName.set(c.name, { name: c.name, description: c.description, argumentHint: c.argumentHint });
  const out = [...byName.values()];
  // Built-ins are listed too when a custom command shares the name (marked builtin, as Claude Code does).
  for (const b of d.builtins) out.push({ name: b.name, description: b.description, argumentHint: b.argumentHint, ...(b.aliases ? { aliases: b.aliases } : {}), builtin: true });
  return out;
}

/** The text a message starts with, and the blocks after it (images an editor attached). */
function leadingText(content: string | UserBlock[]): { text: string; rest: UserBlock[] } | undefined {
  if (typeof content === 'string') return { text: content, rest: [] };
  const first = content[0];
  if (first && first.type === 'text' && typeof first.text === 'string') return { text: first.text, rest: content.slice(1) };
  return undefined;
}

/** Attaches the command run to a queued input when its text is a slash command; others pass unchanged. */
export function routeSlashCommand(input: QueuedInput, d: SlashDeps): QueuedInput {
  if (!input.shouldQuery || input.isSynthetic || input.local) return input;
  const lead = leadingText(input.content);
  const parsed = lead && parseSlash(lead.text);
  if (!lead || !parsed) return input;
  const { name, args } = parsed;
  const builtin = d.builtins.find((b) => b.name === name) ?? d.builtins.find((b) => b.aliases?.includes(name));
  const custom = findLast(d.commands(), (c) => c.name === name);
  const skill = findLast(d.skills(), (s) => s.name === name);
  // A user's own command or skill is never shadowed by a built-in of the same name (Claude Code's rule).
  if (custom || skill) {
    return {
      ...input,
      command: async (ctx) => {
        const expanded = await expandCommand({
          name,
          args,
          body: custom ? custom.body : (skillBody(skill as Skill) ?? ''),
          ...(custom ? {} : { baseDir: (skill as Skill).dir }),
          cwd: d.cwd(),
          readAccess: (path) => d.readAccess(path),
          runShell: d.runShell,
          signal: ctx.signal,
        });
        if (!expanded.ok) return { kind: 'error', command: name, message: expanded.message };
        // The file's `model` runs this turn only (Claude Code 2.1.330; the next turn is on the session's model).
        const model = d.resolveModel((custom ?? (skill as Skill)).model);
        return { kind: 'turn', content: [...expanded.content, ...lead.rest], ...(model ? { model } : {}) };
      },
    };
  }
  // /compact is the session's own compaction turn (src/compaction), in queue order like a turn.
  if (builtin?.name === 'compact') return { ...input, local: { kind: 'compact', instructions: args || undefined } };
  if (builtin) return { ...input, command: (ctx: LocalCommandContext): Promise<LocalCommandOutcome> => builtin.run(args, ctx, name) };
  const reminder = unknownCommandReminder(name, listCommands(d).map((c) => c.name));
  const content: UserBlock[] = typeof input.content === 'string' ? [{ type: 'text', text: input.content }] : [...input.content];
  return { ...input, content: [{ type: 'text', text: reminder }, ...content] };
}

function findLast<T>(xs: readonly T[], p: (x: T) => boolean): T | undefined {
  for (let i = xs.length - 1; i >= 0; i--) if (p(xs[i] as T)) return xs[i];
  return undefined;
}

export function unknownCommandReminder(name: string, available: readonly string[]): string {
  const shown = available.slice(0, 20).map((n) => `/${n}`);
  const more = available.length > shown.length ? `, and ${available.length - shown.length} more` : '';
  return `<system-reminder>\nThe message starts with /${name}, but this session has no command of that name, so nothing ran. Commands here: ${shown.join(', ') || 'none'}${more}. Handle the message as an ordinary request with the tools you have; if it needs that command, say that it is not installed here. Do not claim the command ran.\n</system-reminder>\n`;
}
