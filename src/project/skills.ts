// Skills: `<root>/skills/<folder>/SKILL.md` (project `.claude/skills`, user `~/.claude/skills`, a plugin's
// `skills/`). Only the frontmatter is kept at scan time (progressive disclosure): the body is read again when the
// skill is used, and the files beside SKILL.md stay on disk for the model to Read.
import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseFrontmatter, stringList, stringValue } from './frontmatter.js';
import { type Confinement, type ProjectWarning, type ScanRoot, childPath, firstLine, isDir, readText, readTextNoFollow } from './files.js';
import { type InvocableFrontmatter, describeSource } from './commands.js';

/** `name` is the frontmatter's, else the folder's name (as Claude Code does); `plugin:name` for plugins. */
export interface Skill extends InvocableFrontmatter {
  readonly kind: 'skill';
  /** The folder holding SKILL.md ("Base directory for this skill"). */
  readonly dir: string;
  /** A project skill: where its SKILL.md may lead when it is read again (files.ts Confinement). */
  readonly confine?: Confinement;
}

/**
 * A SKILL.md's text; for a project skill, not through a link that leads out of the repository (`outside`, with
 * where it leads). Regular files cost no extra system call (O_NOFOLLOW).
 */
function skillText(file: string, confine: Confinement | undefined): string | { outside: string } | undefined {
  if (!confine) return readText(file);
  const t = readTextNoFollow(file);
  if (t === undefined || 'text' in t) return t?.text;
  const out = confine.escapes(file);
  return out === undefined ? readText(file) : { outside: out };
}

export function loadSkills(roots: readonly ScanRoot[], warnings: ProjectWarning[], confine?: Confinement): Skill[] {
  const out: Skill[] = [];
  for (const root of roots) {
    const base = join(root.dir, 'skills');
    let entries: Dirent[];
    try {
      entries = readdirSync(base, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch {
      continue;
    }
    const confined = root.source === 'project' ? confine : undefined;
    // The skills folder itself, once it holds anything: a link out of the repository takes every skill with it.
    const baseOut = confined && entries.length > 0 ? confined.escapes(base) : undefined;
    if (baseOut !== undefined) {
      warnings.push({ file: base, message: `skills folder skipped: it leads to ${baseOut}, outside the project and your Claude folder` });
      continue;
    }
    for (const entry of entries) {
      const folder = entry.name;
      if (folder.startsWith('.')) continue;
      const dir = childPath(base, folder);
      const file = childPath(dir, 'SKILL.md');
      // A skill folder that is a link: the model is told to read the files beside SKILL.md there.
      const dirOut = confined && entry.isSymbolicLink() ? confined.escapes(dir) : undefined;
      if (dirOut !== undefined) {
        warnings.push({ file: dir, message: `skill skipped: its folder is a link to ${dirOut}, outside the project and your Claude folder` });
        continue;
      }
      const read = skillText(file, confined);
      if (typeof read === 'object') {
        warnings.push({ file, message: `skill skipped: SKILL.md is a link to ${read.outside}, outside the project and your Claude folder` });
        continue;
      }
      const text = read;
      if (text === undefined) {
        if (isDir(dir)) warnings.push({ file, message: 'skill folder without a readable SKILL.md skipped' });
        continue;
      }
      const fm = parseFrontmatter(text);
      if (!fm.ok) {
        warnings.push({ file, message: `skill skipped: broken frontmatter (${fm.error})` });
        continue;
      }
      const declared = stringValue(fm.data['name'])?.trim();
      if (declared !== undefined && !/^[\w.:-]+$/.test(declared)) {
        warnings.push({ file, message: `skill skipped: name ${JSON.stringify(declared)} is not a valid command name` });
        continue;
      }
      if (declared === undefined) warnings.push({ file, message: `skill has no name in its frontmatter; using the folder name "${folder}"` });
      const bare = declared || folder;
      const description = stringValue(fm.data['description']) ?? firstLine(fm.body);
      out.push({
        kind: 'skill',
        name: root.namespace ? `${root.namespace}:${bare}` : bare,
        description: `${description} ${describeSource(root.source, root.namespace)}`.trim(),
        argumentHint: stringValue(fm.data['argument-hint']) ?? '',
        allowedTools: stringList(fm.data['allowed-tools']) ?? [],
        model: stringValue(fm.data['model']),
        disableModelInvocation: fm.data['disable-model-invocation'] === true,
        dir,
        file,
        source: root.source,
        ...(confined ? { confine: confined } : {}),
      });
    }
  }
  return out;
}

/** The body of a skill, read when it is used; undefined when the file went away or broke since the scan. */
export function skillBody(skill: Skill): string | undefined {
  const text = skillText(skill.file, skill.confine);
  if (text === undefined || typeof text === 'object') return undefined;
  const fm = parseFrontmatter(text);
  return fm.ok ? fm.body : undefined;
}

/**
 * The SDK's `skills` option: which skills the main session sees. Matches the exact name or a `:name` suffix of
 * a plugin skill; undefined or 'all' keeps every one.
 */
export function filterSkills(skills: readonly Skill[], allowed: readonly string[] | 'all' | undefined): Skill[] {
  if (allowed === undefined || allowed === 'all') return [...skills];
  const set = new Set(allowed);
  return skills.filter((s) => set.has(s.name) || [...set].some((a) => s.name.endsWith(`:${a.replace(/^:/, '')}`) && a.length > 0));
}
