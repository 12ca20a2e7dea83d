// Skill: Claude Code's tool for using a skill (input `{skill, args?}`). The description lists each skill's name
// and description only; the body of SKILL.md is read when the model calls the tool (progressive disclosure), and
// the files beside it stay on disk for Read. `Skill(name)` permission rules match the skill's name.
import * as z from 'zod/mini';
import type { Tool } from '../tool.js';

export const SkillInput = z.lazy(() => z.strictObject({
  skill: z.string().check(z.minLength(1), z.describe('The skill name, e.g. "pdf" or "my-plugin:review"')),
  args: z.optional(z.string().check(z.describe('Optional arguments for the skill'))),
}));
export type SkillInput = z.infer<typeof SkillInput>;

export interface SkillOutput {
  success: boolean;
  commandName: string;
}

/** What the tool needs from the project's skill catalog (src/project), as a port so tools import nothing above. */
export interface SkillCatalogPort {
  /** The skills the model may use, with their descriptions. */
  list(): ReadonlyArray<{ name: string; description: string }>;
  /** The body and folder of a skill, read now; an error text when it is unknown or unreadable. */
  load(name: string): { ok: true; dir: string; body: string } | { ok: false; message: string };
}

export function createSkillTool(catalog: SkillCatalogPort): Tool<SkillInput, SkillOutput> {
  // A getter: a reload (reload_skills, /reload-skills) changes the listing the next request carries.
  const listing = (): string =>
    catalog
      .list()
      .map((s) => `- ${s.name}: ${s.description}`)
      .join('\n');
  return {
    name: 'Skill',
    get description() {
      return `Use a skill: a folder of instructions (SKILL.md) and files for a kind of task. When a request matches a skill's description, call this tool with its name before doing the task; the skill's instructions then arrive as the tool's result. Do not call it for a skill that is already running.

Available skills:
${listing()}`;
    },
    inputSchema: SkillInput,
    isConcurrencySafe: () => false,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    permissionSubject: (input) => ({ kind: 'session', content: input.skill }),
    async call(input) {
      const name = input.skill.replace(/^\//, '');
      const loaded = catalog.load(name);
      if (!loaded.ok) return { data: { success: false, commandName: name }, content: loaded.message, isError: true };
      const args = input.args?.trim() ? `\n\nARGUMENTS: ${input.args.trim()}` : '';
      return {
        data: { success: true, commandName: name },
        content: [
          { type: 'text', text: `Launching skill: ${name}` },
          { type: 'text', text: `Base directory for this skill: ${loaded.dir}\n\n${loaded.body}${args}` },
        ],
      };
    },
  };
}
