// Rule files: Claude Code's `rules/` folders of Markdown instructions, found and sent as 2.1.330 does (measured
// with its native binary, test/measure/project-rules.measure.ts):
//  - <config dir>/rules/**/*.md (settingSources 'user') right after the user's CLAUDE.md;
//    <dir>/.claude/rules/**/*.md (settingSources 'project') for every directory from the root down to the working
//    directory, after that directory's CLAUDE.md and .claude/CLAUDE.md and before its CLAUDE.local.md.
//  - A rule without `paths` frontmatter is a memory file like CLAUDE.md: same reminder, same label as its source.
//  - A rule with `paths` (a list or one string of globs, brace sets allowed, relative to the directory that holds
//    `.claude`; the working directory for user rules) is sent once, the first time a tool works on a matching
//    file, appended to that tool's result as a subdirectory's CLAUDE.md is (nested-memory.ts).
// Subfolders are searched (symlinks followed); files are taken in name order (Claude Code takes the directory's
// own order).
import { type Dirent, readdir as readdirCb, realpath as realpathCb, stat as statCb } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { globMatches } from '../permissions/match.js';
import { type FrontmatterValue, parseFrontmatter } from './frontmatter.js';
import type { MemoryKind } from './memory.js';

// Not node:fs/promises: see read-text.ts.
function readdirTyped(dir: string): Promise<Dirent[]> {
  return new Promise((resolve, reject) => readdirCb(dir, { withFileTypes: true }, (err, entries) => (err ? reject(err) : resolve(entries))));
}
function realpathOf(path: string): Promise<string | undefined> {
  return new Promise((resolve) => realpathCb(path, (err, real) => resolve(err ? undefined : real)));
}
function isDirectoryBehind(link: string): Promise<boolean> {
  return new Promise((resolve) => statCb(link, (err, st) => resolve(!err && st.isDirectory())));
}

/** How deep below a rules folder folders are searched. */
const MAX_RULE_DEPTH = 16;

/**
 * The `.md` names below `dir`, relative to it, in name order. Folders, symlinked ones included, are searched
 * breadth first and each real folder once: a link back up the tree (`loop -> ..`) is not followed round again.
 * Not readdir's `recursive` option: that follows such a loop until the kernel's symlink limit, listing every file
 * ~40 times over ever longer names (and Node versions differ on when it gives up).
 */
async function markdownBelow(dir: string): Promise<string[]> {
  const names: string[] = [];
  const seen = new Set<string>();
  let level: string[] = [''];
  for (let depth = 0; level.length > 0 && depth <= MAX_RULE_DEPTH; depth++) {
    const next: string[] = [];
    for (const rel of level) {
      const abs = rel ? join(dir, rel) : dir;
      const real = await realpathOf(abs);
      if (real === undefined || seen.has(real)) continue;
      seen.add(real);
      let entries: Dirent[];
      try {
        entries = (await readdirTyped(abs)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      } catch {
        continue; // absent or unreadable: nothing from it
      }
      for (const e of entries) {
        const name = rel ? `${rel}${sep}${e.name}` : e.name;
        if (e.isDirectory() || (e.isSymbolicLink() && (await isDirectoryBehind(join(abs, e.name))))) next.push(name);
        else if (e.name.endsWith('.md')) names.push(name);
      }
    }
    level = next;
  }
  return names.sort();
}

/** A rule that applies to some files only: sent when a tool first works on one of them. */
export interface ScopedRule {
  path: string;
  kind: MemoryKind;
  /** The directory the globs are relative to. */
  base: string;
  patterns: readonly string[];
  text: string;
}

/**
 * The `.md` files below a rules folder, recursively, in name order; none when the folder is absent or unreadable.
 * Symlinked folders are followed (as Claude Code documents); a file reached twice (a link back up the tree) is
 * listed once, under its shortest name.
 */
export async function listRuleFiles(dir: string): Promise<string[]> {
  const names = await markdownBelow(dir);
  // Each file once, under its shortest name (a symlinked file, or a link into a folder reached some other way,
  // lists it twice).
  const shortest = new Map<string, string>();
  for (const n of names) {
    const real = await realpathOf(join(dir, n));
    const kept = real === undefined ? undefined : shortest.get(real);
    if (real !== undefined && (kept === undefined || n.length < kept.length)) shortest.set(real, n);
  }
  const keep = new Set(shortest.values());
  return names.filter((n) => keep.has(n)).map((n) => join(dir, n));
}

/** `a, b` or `[a, b]`: one string is split at the commas outside brace sets and quotes (`src/**\/*.{ts,tsx}` is one glob). */
function patternsOf(v: FrontmatterValue | undefined): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const parts: string[] = [];
  for (const item of Array.isArray(v) ? (v as readonly string[]) : [String(v)]) {
    let depth = 0;
    let cur = '';
    for (const ch of item) {
      if (ch === '{') depth++;
      else if (ch === '}') depth = Math.max(0, depth - 1);
      if (ch === ',' && depth === 0) {
        parts.push(cur);
        cur = '';
      } else cur += ch;
    }
    parts.push(cur);
  }
  const out = parts.map((p) => p.trim().replace(/^(["'])(.*)\1$/, '$2')).filter(Boolean);
  return out.length > 0 ? out : undefined;
}

export type ParsedRule = { ok: true; body: string; paths: string[] | undefined } | { ok: false; error: string };

/** A rule file's text: its body, and the globs it is scoped to (undefined: it always applies). */
export function parseRule(text: string): ParsedRule {
  const fm = parseFrontmatter(text);
  if (!fm.ok) return { ok: false, error: fm.error };
  return { ok: true, body: fm.body, paths: patternsOf(fm.data['paths']) };
}

/** Whether a scoped rule applies to the file at `abs`. */
export function ruleApplies(rule: ScopedRule, abs: string): boolean {
  const rel = relative(rule.base, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return false;
  const posix = sep === '/' ? rel : rel.split(sep).join('/');
  return rule.patterns.some((p) => globMatches(p, posix));
}
