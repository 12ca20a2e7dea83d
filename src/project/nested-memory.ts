// CLAUDE.md files of subdirectories: Claude Code loads the memory files of the directories between the working
// directory and a file the first time a tool works there, and appends them to that tool's result as a reminder
// (measured: a Read of sub/file.txt brings sub/CLAUDE.md). agentd does the same through the tool's additional
// context, once per file per session. Imports inside a nested file are not followed (the file is small, local
// guidance; its imports would need the same checks again). A rule scoped with `paths` (rules.ts) is sent the same
// way, once, with the first tool call on a file it names.
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { SettingSource } from './memory.js';
import type { ProjectProblem } from './problems.js';
import { readTextCapped } from './read-text.js';
import { type ScopedRule, ruleApplies } from './rules.js';

export class NestedMemory {
  private readonly done = new Set<string>();

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
    },
  ) {
    for (const p of o.alreadyLoaded) this.done.add(p);
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

  /** Reminders for the memory files not yet seen between the working directory and `target`. */
  async reminders(target: string, isDirectory = false): Promise<string[]> {
    if (this.o.sources.length === 0) return [];
    const abs = resolve(this.o.cwd, target);
    const out = isDirectory ? [] : this.rulesFor(abs);
    const rel = relative(this.o.cwd, isDirectory ? abs : dirname(abs));
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return out;
    let dir = this.o.cwd;
    for (const part of rel.split(sep)) {
      dir = join(dir, part);
      const names = [...(this.o.sources.includes('project') ? ['CLAUDE.md', join('.claude', 'CLAUDE.md')] : []), ...(this.o.sources.includes('local') ? ['CLAUDE.local.md'] : [])];
      for (const name of names) {
        const path = join(dir, name);
        if (this.done.has(path)) continue;
        this.done.add(path);
        const r = await readTextCapped(path, this.o.maxFileBytes);
        if (r.kind === 'absent') continue;
        if (r.kind === 'binary' || r.kind === 'unreadable') {
          this.o.onProblem({ kind: r.kind, file: path, message: `memory file ${path} ${r.kind === 'binary' ? 'is binary' : `cannot be read (${r.reason})`}; skipped` });
          continue;
        }
        if (r.truncatedFrom !== undefined) {
          this.o.onProblem({ kind: 'too_large', file: path, message: `memory file ${path} is ${r.truncatedFrom} bytes; only its first ${this.o.maxFileBytes} bytes are used` });
        }
        out.push(`Contents of ${path} (instructions for this directory):\n\n${r.text}`);
      }
    }
    return out;
  }

  /** The scoped rules that name the file at `abs` and have not been sent yet. */
  private rulesFor(abs: string): string[] {
    const out: string[] = [];
    for (const rule of this.o.scopedRules ?? []) {
      if (this.done.has(rule.path) || !ruleApplies(rule, abs)) continue;
      this.done.add(rule.path);
      out.push(`Contents of ${rule.path} (instructions for files matching ${rule.patterns.join(', ')}):\n\n${rule.text}`);
    }
    return out;
  }
}
