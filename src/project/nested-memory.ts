// CLAUDE.md files of subdirectories: Claude Code loads the memory files of the directories between the working
// directory and a file the first time a tool works there, and appends them to that tool's result as a reminder
// (measured: a Read of sub/file.txt brings sub/CLAUDE.md). agentd does the same through the tool's additional
// context, once per file per session. Imports inside a nested file are not followed (the file is small, local
// guidance; its imports would need the same checks again). A rule scoped with `paths` (rules.ts) is sent the same
// way, once, with the first tool call on a file it names; a subdirectory's own .claude/rules come with its
// CLAUDE.md files. A file that leads out of the repository (a link) is skipped (files.ts Confinement).
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Confinement } from './files.js';
import type { SettingSource } from './memory.js';
import type { ProjectProblem } from './problems.js';
import { readTextCapped } from './read-text.js';
import { type ScopedRule, listRuleFiles, parseRule, ruleApplies } from './rules.js';

export class NestedMemory {
  private readonly done = new Set<string>();
  /** Rules sent with the first tool call on a file they name: the start-up ones, then those of subdirectories. */
  private readonly scoped: ScopedRule[];

  constructor(
    private readonly o: {
      cwd: string;
      sources: readonly SettingSource[];
      /** Files already in the session's context (the ones found at start). */
      alreadyLoaded: Iterable<string>;
      /** Rules sent only with a tool call on a file they name. */
      scopedRules?: readonly ScopedRule[];
      maxFileBytes: number;
      onProblem: (p: ProjectProblem) => void;
      /** Where the repository's files may lead; absent: not checked. */
      confine?: Confinement;
    },
  ) {
    for (const p of o.alreadyLoaded) this.done.add(p);
    this.scoped = [...(o.scopedRules ?? [])];
  }

  /** The path a tool call works on, from its input (file tools and search tools). */
  static pathOf(input: unknown): string | undefined {
    if (typeof input !== 'object' || input === null) return undefined;
    for (const key of ['file_path', 'notebook_path', 'path']) {
      const v: unknown = Reflect.get(input, key);
      if (typeof v === 'string' && v.length > 0) return v;
    }
    return undefined;
  }

  /**
   * Reminders for the memory files not yet seen between the working directory and `target` (each directory's
   * CLAUDE.md, .claude/CLAUDE.md, .claude/rules, CLAUDE.local.md, as at start-up), then the scoped rules that
   * name `target`.
   */
  async reminders(target: string, isDirectory = false): Promise<string[]> {
    if (this.o.sources.length === 0) return [];
    const abs = resolve(this.o.cwd, target);
    const out: string[] = [];
    const rel = relative(this.o.cwd, isDirectory ? abs : dirname(abs));
    if (!(rel === '' || rel.startsWith('..') || rel.startsWith(sep))) {
      let dir = this.o.cwd;
      for (const part of rel.split(sep)) {
        dir = join(dir, part);
        if (this.o.sources.includes('project')) {
          for (const path of [join(dir, 'CLAUDE.md'), join(dir, '.claude', 'CLAUDE.md')]) await this.file(path, out);
          await this.rulesIn(dir, out);
        }
        if (this.o.sources.includes('local')) await this.file(join(dir, 'CLAUDE.local.md'), out);
      }
    }
    return isDirectory ? out : [...out, ...this.rulesFor(abs)];
  }

  private async read(path: string): Promise<string | undefined> {
    const out = this.o.confine?.escapes(path);
    if (out !== undefined && out !== path) {
      this.o.onProblem({ kind: 'outside_link', file: path, message: `memory file ${path} leads to ${out}, outside the project and your Claude folder; skipped` });
      return undefined;
    }
    const r = await readTextCapped(path, this.o.maxFileBytes);
    if (r.kind === 'absent') return undefined;
    if (r.kind === 'binary' || r.kind === 'unreadable') {
      this.o.onProblem({ kind: r.kind, file: path, message: `memory file ${path} ${r.kind === 'binary' ? 'is binary' : `cannot be read (${r.reason})`}; skipped` });
      return undefined;
    }
    if (r.truncatedFrom !== undefined) {
      this.o.onProblem({ kind: 'too_large', file: path, message: `memory file ${path} is ${r.truncatedFrom} bytes; only its first ${this.o.maxFileBytes} bytes are used` });
    }
    return r.text;
  }

  private async file(path: string, out: string[]): Promise<void> {
    if (this.done.has(path)) return;
    this.done.add(path);
    const text = await this.read(path);
    if (text !== undefined) out.push(`Contents of ${path} (instructions for this directory):\n\n${text}`);
  }

  /** A subdirectory's own .claude/rules (Claude Code 2.1.330 reads them there too, measured): read once. */
  private async rulesIn(dir: string, out: string[]): Promise<void> {
    const folder = join(dir, '.claude', 'rules');
    if (this.done.has(folder)) return;
    this.done.add(folder);
    for (const path of await listRuleFiles(folder)) {
      if (this.done.has(path)) continue;
      const text = await this.read(path);
      if (text === undefined) continue;
      const rule = parseRule(text);
      if (!rule.ok) {
        this.o.onProblem({ kind: 'invalid_frontmatter', file: path, message: `rule file ${path}: ${rule.error}; skipped` });
        continue;
      }
      if (rule.paths) this.scoped.push({ path, kind: 'project', base: dir, patterns: rule.paths, text: rule.body });
      else {
        this.done.add(path);
        out.push(`Contents of ${path} (instructions for this directory):\n\n${rule.body}`);
      }
    }
  }

  /** The scoped rules that name the file at `abs` and have not been sent yet. */
  private rulesFor(abs: string): string[] {
    const out: string[] = [];
    for (const rule of this.scoped) {
      if (this.done.has(rule.path) || !ruleApplies(rule, abs)) continue;
      this.done.add(rule.path);
      out.push(`Contents of ${rule.path} (instructions for files matching ${rule.patterns.join(', ')}):\n\n${rule.text}`);
    }
    return out;
  }
}
