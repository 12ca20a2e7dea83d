// Reading the markdown files a project contributes (commands, skills, agents). Synchronous on purpose: the scan
// runs once while `initialize` is answered, over a handful of small files, and sync fs calls are cheaper than
// the promise machinery for that (measured by the `init-project-commands` bench row).
import { closeSync, constants, existsSync, openSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, parse, sep } from 'node:path';

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

/**
 * A file's text, not through a link: `{ link: true }` when the file itself is a symbolic link (O_NOFOLLOW: no extra
 * system call for the usual regular file), undefined when it cannot be read.
 */
export function readTextNoFollow(file: string): { text: string } | { link: true } | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ELOOP' ? { link: true } : undefined;
  }
  try {
    return { text: readFileSync(fd, 'utf8') };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function realOr(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/**
 * Where a repository's own files may lead: inside the repository (the root of the git repository holding the
 * working directory, else the working directory) or the user's Claude folder. A CLAUDE.md, rule, command, agent,
 * output style or skill of the project that is (or lies under) a link resolving elsewhere is not what it claims to
 * be (`~/.ssh/id_rsa`, `../outside`): skipped with a warning. The roots are found on first use: a project without
 * links never pays for it.
 */
export class Confinement {
  private roots: { asGiven: string; real: string[] } | undefined;

  constructor(private readonly o: { cwd: string; configDir: string }) {}

  private get(): { asGiven: string; real: string[] } {
    if (this.roots) return this.roots;
    let dir = this.o.cwd;
    const top = parse(dir).root;
    while (!existsSync(join(dir, '.git')) && dir !== top) dir = dirname(dir);
    const project = dir === top && !existsSync(join(dir, '.git')) ? this.o.cwd : dir;
    this.roots = { asGiven: project, real: [realOr(project) ?? project, realOr(this.o.configDir) ?? this.o.configDir] };
    return this.roots;
  }

  /** Whether `path` (as written) is one of the repository's files: under its root. Ancestors above it are the user's. */
  inProject(path: string): boolean {
    return inside(path, this.get().asGiven);
  }

  /**
   * Where `path` really leads when that is outside the repository and the user's Claude folder (`undefined` when it
   * stays inside); a link that does not resolve leads nowhere, reported as its own path.
   */
  escapes(path: string): string | undefined {
    const real = realOr(path);
    if (real === undefined) return path;
    return this.escapesReal(real);
  }

  /** As escapes, for a path already resolved. */
  escapesReal(real: string): string | undefined {
    return this.get().real.some((r) => inside(real, r)) ? undefined : real;
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

/**
 * Markdown files under `dir`, recursively, as [path, relative segments without `.md`, whether a link is on the way
 * (the file, a folder between, or `dir` itself when `linked` is given)]. Sorted for a stable order.
 */
export function markdownFiles(dir: string, depth = 0, linked = false): Array<{ file: string; segments: string[]; linked: boolean }> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: Array<{ file: string; segments: string[]; linked: boolean }> = [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = childPath(dir, e.name);
    const link = e.isSymbolicLink();
    const directory = e.isDirectory() || (link && isDir(p));
    if (directory) {
      // Deep trees are not command folders; a bound keeps a symlink loop from running away.
      if (depth < 8) for (const sub of markdownFiles(p, depth + 1, linked || link)) out.push({ file: sub.file, segments: [e.name, ...sub.segments], linked: sub.linked });
    } else if (e.name.toLowerCase().endsWith('.md')) out.push({ file: p, segments: [e.name.slice(0, -3)], linked: linked || link });
  }
  return out;
}

/**
 * The markdown files of one scan folder (`commands`, `agents`) of a root: a project root's files that lead out of
 * the repository (checked only where a link is on the way, and the folder itself once it has files) are left out,
 * each said in `warnings`.
 */
export function confinedMarkdownFiles(root: ScanRoot, folder: string, confine: Confinement | undefined, warnings: ProjectWarning[], what: string): Array<{ file: string; segments: string[] }> {
  const dir = join(root.dir, folder);
  const files = markdownFiles(dir);
  if (root.source !== 'project' || !confine || files.length === 0) return files;
  const folderOut = confine.escapes(dir);
  if (folderOut !== undefined) {
    warnings.push({ file: dir, message: `${what} folder skipped: it leads to ${folderOut}, outside the project and your Claude folder` });
    return [];
  }
  return files.filter((f) => {
    const out = f.linked ? confine.escapes(f.file) : undefined;
    if (out !== undefined) warnings.push({ file: f.file, message: `${what} skipped: it is a link to ${out}, outside the project and your Claude folder` });
    return out === undefined;
  });
}

/** The first non-empty line of a body, for a default description (as Claude Code does), shortened. */
export function firstLine(body: string): string {
  for (const l of body.split('\n')) {
    const t = l.trim().replace(/^#+\s*/, '');
    if (t) return t.length > 100 ? `${t.slice(0, 97)}...` : t;
  }
  return '';
}
