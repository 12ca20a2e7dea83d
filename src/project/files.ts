// Reading the markdown files a project contributes (commands, skills, agents). Synchronous on purpose: the scan
// runs once while `initialize` is answered, over a handful of small files, and sync fs calls are cheaper than
// the promise machinery for that (measured by the `init-project-commands` bench row).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { sep } from 'node:path';

/** A problem with one file: reported (stderr, system frame) and the file skipped or the value dropped. */
export interface ProjectWarning {
  file: string;
  message: string;
}

/** Where a definition came from, in Claude Code's vocabulary for descriptions ("(project)", "(user)"). */
export type ProjectSource = 'project' | 'user' | 'plugin';

/** One directory to scan, with the namespace its entries get (a plugin's name) and its source. */
export interface ScanRoot {
  dir: string;
  source: ProjectSource;
  /** Prefix for names (`plugin:name`); undefined for project and user files. */
  namespace: string | undefined;
}

export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `dir` (already normalised) and one name read from it. Not path.join: that normalises the whole string character
 * by character, and a scan joins a few hundred paths, enough for V8 to optimise path's normalizeString on a
 * background thread at every start (BENCHMARKS.md, init-instructions). A name from readdir has no separator.
 */
export function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/** Markdown files under `dir`, recursively, as [path, relative segments without `.md`]. Sorted for a stable order. */
export function markdownFiles(dir: string, depth = 0): Array<{ file: string; segments: string[] }> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: Array<{ file: string; segments: string[] }> = [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = childPath(dir, e.name);
    const directory = e.isDirectory() || (e.isSymbolicLink() && isDir(p));
    if (directory) {
      // Deep trees are not command folders; a bound keeps a symlink loop from running away.
      if (depth < 8) for (const sub of markdownFiles(p, depth + 1)) out.push({ file: sub.file, segments: [e.name, ...sub.segments] });
    } else if (e.name.toLowerCase().endsWith('.md')) out.push({ file: p, segments: [e.name.slice(0, -3)] });
  }
  return out;
}

/** The first non-empty line of a body, for a default description (as Claude Code does), shortened. */
export function firstLine(body: string): string {
  for (const l of body.split('\n')) {
    const t = l.trim().replace(/^#+\s*/, '');
    if (t) return t.length > 100 ? `${t.slice(0, 97)}...` : t;
  }
  return '';
}
