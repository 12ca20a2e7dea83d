// Memory files (CLAUDE.md), found and ordered as Claude Code 2.1.330 does (measured against its native binary,
// README "Memory files"):
//  - user:    <config dir>/CLAUDE.md                                  (settingSources 'user')
//  - project: CLAUDE.md and .claude/CLAUDE.md in every directory from the filesystem root down to the working
//             directory, outermost first                              (settingSources 'project')
//  - local:   CLAUDE.local.md in the same directories, after the two  (settingSources 'local')
//  - rules:   <config dir>/rules and each directory's .claude/rules (rules.ts): a rule without `paths` right
//             after that place's CLAUDE.md files; a rule with `paths` is kept for the files it names
// Each file is followed by the files it imports (`@path`, see imports.ts), depth first, up to four levels below
// it; a file already included is not included again; a cycle is reported. An import is judged as a Read call of
// its path is, by the permission engine (`readAccess`): a project or local file imports only what such a call
// would read without asking, the host's allow rules aside (inside the working directories, no deny or ask rule;
// Claude Code skips the others too, without a word; agentd says so); a user file may import any file a deny rule
// does not cover. A project or local
// file that leads out of the repository (a link to `~/.ssh/id_rsa`, `../outside`) is skipped (files.ts
// Confinement). A file over the byte cap is cut and reported; a binary or unreadable one is reported and skipped.
// A missing import target is skipped silently: `@name` in prose is common.
import { realpath as realpathCb } from 'node:fs';
import { promisify } from 'node:util';
import { dirname, isAbsolute, join, parse, resolve } from 'node:path';
import { Confinement } from './files.js';
import { importTargets } from './imports.js';
import type { ProjectProblem } from './problems.js';
import { readTextCapped } from './read-text.js';
import { type ScopedRule, listRuleFiles, parseRule } from './rules.js';

// Not node:fs/promises: see read-text.ts.
const realpath = promisify(realpathCb);

export type SettingSource = 'user' | 'project' | 'local';
export type MemoryKind = 'user' | 'project' | 'local';

export interface MemoryFile {
  path: string;
  kind: MemoryKind;
  text: string;
  /** 0 for a file found by its name, n for a file imported n levels below one. */
  depth: number;
  /** The importing file, for an imported one. */
  parent?: string;
  /** The file's size when it was cut at the cap. */
  truncatedFrom?: number;
}

export interface MemoryOptions {
  cwd: string;
  /** Claude Code's config directory (CLAUDE_CONFIG_DIR or ~/.claude): the user's CLAUDE.md is there. */
  configDir: string;
  homeDir: string;
  sources: readonly SettingSource[];
  additionalDirectories: readonly string[];
  maxFileBytes?: number;
  /**
   * What a Read call of `path` would get with nobody asked (the permission engine's decision): imports obey it. For
   * a repository's file without the host's allow rules (readAccess in permissions/layer.ts).
   */
  readAccess: (path: string, importer: 'user' | 'repository') => Promise<'allow' | 'ask' | 'deny'>;
}

/** A CLAUDE.md over this is cut (Claude Code warns at 40k characters and sends it all). */
export const MAX_MEMORY_FILE_BYTES = 128 * 1024;
/** Imports nest at most this deep below a file found by name (Claude Code: depth 5 exclusive, measured). */
export const MAX_IMPORT_DEPTH = 4;

/** The directories from the filesystem root down to `cwd`, outermost first. */
export function ancestors(cwd: string): string[] {
  const out: string[] = [];
  let d = resolve(cwd);
  const root = parse(d).root;
  for (;;) {
    out.unshift(d);
    if (d === root) break;
    d = dirname(d);
  }
  return out;
}

async function real(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

type Candidate = { path: string; kind: MemoryKind; rule?: { base: string } };

/** The files to read, in Claude Code's order; a rules folder is listed (all at once) where its files go. */
async function memoryCandidates(o: MemoryOptions): Promise<Candidate[]> {
  const dirs = ancestors(o.cwd);
  const ruleDirs = [o.sources.includes('user') ? join(o.configDir, 'rules') : undefined, ...dirs.map((d) => (o.sources.includes('project') ? join(d, '.claude', 'rules') : undefined))];
  const [userRules = [], ...dirRules] = await Promise.all(ruleDirs.map((r) => (r === undefined ? Promise.resolve([]) : listRuleFiles(r))));
  const candidates: Candidate[] = [];
  if (o.sources.includes('user')) {
    candidates.push({ path: join(o.configDir, 'CLAUDE.md'), kind: 'user' });
    for (const path of userRules) candidates.push({ path, kind: 'user', rule: { base: o.cwd } });
  }
  dirs.forEach((d, i) => {
    if (o.sources.includes('project')) {
      candidates.push({ path: join(d, 'CLAUDE.md'), kind: 'project' }, { path: join(d, '.claude', 'CLAUDE.md'), kind: 'project' });
      for (const path of dirRules[i] ?? []) candidates.push({ path, kind: 'project', rule: { base: d } });
    }
    if (o.sources.includes('local')) candidates.push({ path: join(d, 'CLAUDE.local.md'), kind: 'local' });
  });
  return candidates;
}

export async function loadMemoryFiles(o: MemoryOptions): Promise<{ files: MemoryFile[]; scopedRules: ScopedRule[]; problems: ProjectProblem[] }> {
  const cap = o.maxFileBytes ?? MAX_MEMORY_FILE_BYTES;
  const files: MemoryFile[] = [];
  const scopedRules: ScopedRule[] = [];
  const problems: ProjectProblem[] = [];
  if (o.sources.length === 0) return { files, scopedRules, problems };
  const candidates = await memoryCandidates(o);
  // The files found by name are read together; imports follow in order.
  const reads = await Promise.all(candidates.map((c) => readTextCapped(c.path, cap)));
  const seen = new Set<string>();
  const confine = new Confinement({ cwd: o.cwd, configDir: o.configDir });
  /** Where a repository's file really leads when that is out of the repository (user files are the user's). */
  const outside = (path: string, id: string, kind: MemoryKind): string | undefined => (kind !== 'user' && confine.inProject(path) ? confine.escapesReal(id) : undefined);

  const visit = async (path: string, kind: MemoryKind, depth: number, stack: readonly string[], read: Awaited<ReturnType<typeof readTextCapped>>, parent?: string): Promise<void> => {
    if (read.kind === 'absent') return;
    if (read.kind === 'binary') {
      problems.push({ kind: 'binary', file: path, message: `memory file ${path} is binary; skipped` });
      return;
    }
    if (read.kind === 'unreadable') {
      problems.push({ kind: 'unreadable', file: path, message: `memory file ${path} cannot be read (${read.reason}); skipped` });
      return;
    }
    const id = await real(path);
    const out = outside(path, id, kind);
    if (out !== undefined) {
      problems.push({ kind: 'outside_link', file: path, message: `memory file ${path} leads to ${out}, outside the project and your Claude folder; skipped` });
      return;
    }
    if (seen.has(id)) return;
    seen.add(id);
    const file: MemoryFile = { path, kind, text: read.text, depth, ...(parent ? { parent } : {}) };
    if (read.truncatedFrom !== undefined) {
      file.truncatedFrom = read.truncatedFrom;
      problems.push({ kind: 'too_large', file: path, message: `memory file ${path} is ${read.truncatedFrom} bytes; only its first ${cap} bytes are used` });
    }
    files.push(file);
    const chain = [...stack, id];
    for (const target of importTargets(read.text)) {
      const abs = target.startsWith('~/') ? join(o.homeDir, target.slice(2)) : isAbsolute(target) ? target : resolve(dirname(path), target);
      const targetId = await real(abs);
      if (chain.includes(targetId)) {
        problems.push({ kind: 'import_loop', file: abs, from: path, message: `memory file ${path} imports ${abs}, which imports it back; the loop is cut there` });
        continue;
      }
      if (seen.has(targetId)) continue;
      const access = await o.readAccess(abs, kind === 'user' ? 'user' : 'repository');
      if (access === 'deny' || (kind !== 'user' && access !== 'allow')) {
        // Only report targets that exist: `@someone` in prose is not an import.
        const r = await readTextCapped(abs, 1);
        if (r.kind !== 'absent') {
          problems.push(
            access === 'deny'
              ? { kind: 'import_denied', file: abs, from: path, message: `memory file ${path} imports ${abs}, which the Read deny rules cover; skipped` }
              : { kind: 'import_outside', file: abs, from: path, message: `memory file ${path} imports ${abs}, outside the working directories; skipped` },
          );
        }
        continue;
      }
      if (depth + 1 > MAX_IMPORT_DEPTH) {
        const r = await readTextCapped(abs, 1);
        if (r.kind !== 'absent') problems.push({ kind: 'import_depth', file: abs, from: path, message: `memory file ${path} imports ${abs} more than ${MAX_IMPORT_DEPTH} levels deep; skipped` });
        continue;
      }
      await visit(abs, kind, depth + 1, chain, await readTextCapped(abs, cap), path);
    }
  };

  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i] as Candidate;
    let read = reads[i] as Awaited<ReturnType<typeof readTextCapped>>;
    if (c.rule && read.kind === 'ok') {
      const out = outside(c.path, await real(c.path), c.kind);
      if (out !== undefined) {
        problems.push({ kind: 'outside_link', file: c.path, message: `rule file ${c.path} leads to ${out}, outside the project and your Claude folder; skipped` });
        continue;
      }
      const rule = parseRule(read.text);
      if (!rule.ok) {
        problems.push({ kind: 'invalid_frontmatter', file: c.path, message: `rule file ${c.path}: ${rule.error}; skipped` });
        continue;
      }
      if (rule.paths) {
        if (read.truncatedFrom !== undefined) problems.push({ kind: 'too_large', file: c.path, message: `rule file ${c.path} is ${read.truncatedFrom} bytes; only its first ${cap} bytes are used` });
        scopedRules.push({ path: c.path, kind: c.kind, base: c.rule.base, patterns: rule.paths, text: rule.body });
        continue;
      }
      read = { ...read, text: rule.body };
    }
    await visit(c.path, c.kind, 0, [], read);
  }
  return { files, scopedRules, problems };
}

const LABEL: Record<MemoryKind, string> = {
  user: "the user's own instructions, for every project",
  project: 'project instructions, kept with the code',
  local: "the user's private instructions for this project",
};

/** The memory files as the reminder that goes before the first user message (none: no reminder). */
export function memoryReminder(files: readonly MemoryFile[]): string | undefined {
  if (files.length === 0) return undefined;
  const parts = files.map((f) => {
    const cut = f.truncatedFrom !== undefined ? `\n[agentd: this file is ${f.truncatedFrom} bytes; the rest was left out]` : '';
    return `Contents of ${f.path} (${LABEL[f.kind]}):\n\n${f.text}${cut}`;
  });
  return `<system-reminder>\nInstructions from the memory files (CLAUDE.md, rules) of the user and of this project follow. Follow them: where they differ from your defaults, they win.\n\n${parts.join('\n\n')}\n</system-reminder>`;
}
