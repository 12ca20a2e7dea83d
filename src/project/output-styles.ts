// Output styles: how the agent answers. Built in (agentd's own wording; the names are Claude Code 2.1.330's, in
// its order: default, Proactive, Concise, Explanatory, Learning) and custom ones from Markdown files with
// frontmatter in <config dir>/output-styles/ (settingSources 'user') and .claude/output-styles/ (project);
// a project style overrides a user style of the same name, and a custom one a built-in one. The style is chosen
// by the settings' `outputStyle`; an unknown name is reported and the default is used.
import { type Dirent, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseFrontmatter, stringValue } from './frontmatter.js';
import { Confinement, childPath } from './files.js';
import type { SettingSource } from './memory.js';
import type { ProjectProblem } from './problems.js';

export interface OutputStyle {
  name: string;
  description: string;
  prompt: string;
  /** Whether the agent's software-engineering guidance stays in the system prompt. */
  keepCodingInstructions: boolean;
  source: 'built-in' | 'user' | 'project';
}

export const DEFAULT_OUTPUT_STYLE = 'default';

export const BUILT_IN_STYLES: readonly OutputStyle[] = [
  { name: DEFAULT_OUTPUT_STYLE, description: 'Plain, task-focused answers', prompt: '', keepCodingInstructions: true, source: 'built-in' },
  {
    name: 'Proactive',
    description: 'Takes the obvious next steps without waiting to be asked',
    prompt:
      'When the next step of a task is clear and safe (running the tests after a change, fixing a lint error you caused, updating a caller you broke), take it without asking first, then say what you did. Ask before anything destructive, costly or outside the task.',
    keepCodingInstructions: true,
    source: 'built-in',
  },
  {
    name: 'Concise',
    description: 'Short answers: the result, not the process',
    prompt: 'Keep every answer as short as it can be while still complete: lead with the result, skip preamble and recaps, use lists only when they shorten the text.',
    keepCodingInstructions: true,
    source: 'built-in',
  },
  {
    name: 'Explanatory',
    description: 'Explains the choices made and the codebase along the way',
    prompt:
      'While you work, help the user understand the code and your choices. Before and after a notable step, add a short "Insight" note (two or three points) on why the code is shaped as it is, what the trade-off of your change is, or which convention of this codebase you followed. Keep the notes specific to this code, not general programming advice, and keep doing the task itself.',
    keepCodingInstructions: true,
    source: 'built-in',
  },
  {
    name: 'Learning',
    description: 'Works with the user and leaves small, meaningful parts for them to write',
    prompt:
      'Treat the session as pair programming with a learner. Do the routine parts yourself, but where a small piece of code carries a real decision (a condition, an error-handling choice, a data-structure pick), leave it to the user: put a clearly marked TODO(human) at that spot, explain what it must do and what to consider, and wait for them. Add short "Insight" notes on why things are done as they are.',
    keepCodingInstructions: true,
    source: 'built-in',
  },
];

const MAX_STYLE_BYTES = 64 * 1024;

// Synchronous: the initialize response lists the styles, and the two directories are usually absent (one failed
// readdir each) or hold a few small files.
// A project's style that leads out of the repository (a link, or the folder) is skipped (files.ts Confinement).
function loadDir(dir: string, source: 'user' | 'project', problems: ProjectProblem[], confine?: Confinement): OutputStyle[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.name.endsWith('.md'))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
  const folderOut = confine && entries.length > 0 ? confine.escapes(dir) : undefined;
  if (folderOut !== undefined) {
    problems.push({ kind: 'outside_link', file: dir, message: `output styles folder ${dir} leads to ${folderOut}, outside the project and your Claude folder; skipped` });
    return [];
  }
  const out: OutputStyle[] = [];
  for (const e of entries) {
    const n = e.name;
    const path = childPath(dir, n);
    const linkOut = confine && e.isSymbolicLink() ? confine.escapes(path) : undefined;
    if (linkOut !== undefined) {
      problems.push({ kind: 'outside_link', file: path, message: `output style ${path} is a link to ${linkOut}, outside the project and your Claude folder; skipped` });
      continue;
    }
    let text: string;
    try {
      if (!statSync(path).isFile()) continue;
      const buf = readFileSync(path);
      if (buf.includes(0)) {
        problems.push({ kind: 'binary', file: path, message: `output style ${path} is binary; skipped` });
        continue;
      }
      if (buf.length > MAX_STYLE_BYTES) problems.push({ kind: 'too_large', file: path, message: `output style ${path} is ${buf.length} bytes; only its first ${MAX_STYLE_BYTES} are used` });
      text = buf.subarray(0, MAX_STYLE_BYTES).toString('utf8');
    } catch (e) {
      problems.push({ kind: 'unreadable', file: path, message: `output style ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}); skipped` });
      continue;
    }
    const fm = parseFrontmatter(text);
    if (!fm.ok) {
      problems.push({ kind: 'invalid_frontmatter', file: path, message: `output style ${path}: ${fm.error}; skipped` });
      continue;
    }
    out.push({
      name: stringValue(fm.data['name']) || basename(n, '.md'),
      description: stringValue(fm.data['description']) ?? '',
      prompt: fm.body.trim(),
      // `true` or `"true"`: the key is a boolean in Claude Code's files, sometimes written quoted.
      keepCodingInstructions: stringValue(fm.data['keep-coding-instructions']) === 'true',
      source,
    });
  }
  return out;
}

/** Every style the session can use, in the order the initialize response lists them. */
export function loadOutputStyles(o: { cwd: string; configDir: string; sources: readonly SettingSource[] }): { styles: OutputStyle[]; problems: ProjectProblem[] } {
  const problems: ProjectProblem[] = [];
  const user = o.sources.includes('user') ? loadDir(join(o.configDir, 'output-styles'), 'user', problems) : [];
  const project = o.sources.includes('project') ? loadDir(join(o.cwd, '.claude', 'output-styles'), 'project', problems, new Confinement({ cwd: o.cwd, configDir: o.configDir })) : [];
  const byName = new Map<string, OutputStyle>();
  for (const s of [...BUILT_IN_STYLES, ...user, ...project]) byName.set(s.name, s);
  return { styles: [...byName.values()], problems };
}

/** The style a settings name selects: matched exactly, then case-insensitively; undefined when unknown. */
export function findStyle(styles: readonly OutputStyle[], name: string): OutputStyle | undefined {
  return styles.find((s) => s.name === name) ?? styles.find((s) => s.name.toLowerCase() === name.toLowerCase());
}
