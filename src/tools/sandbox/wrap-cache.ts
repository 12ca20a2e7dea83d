// Reuse of the command sandbox's wrap (issue 14.4: the per-command cost). @anthropic-ai/sandbox-runtime builds
// each command's bubblewrap invocation from scratch: a ripgrep walk of the working directory for the files it
// protects (shell rc files, .git/hooks and config, .vscode, .claude, …), the expansion of the configured paths,
// a `which bash`. For agentd that work is the same for every command: the script bubblewrap runs is a constant
// (SANDBOXED_SHELL_COMMAND; the command travels in the environment), so two wraps differ only by what the disk
// held when each was made and by the single files bound in for the call (the cwd file, a task's output).
//
// So the first wrap for a given set of writable places is kept as a template, together with a fingerprint of
// everything on disk it was made from, and reused while the fingerprint holds:
//  - the scanned tree: every directory the runtime's ripgrep walk reads (the working directory down to
//    `mandatoryDenySearchDepth`, not into node_modules, no symbolic link followed), by identity (device,
//    inode) and change time. A directory's ctime changes whenever an entry in it is created, removed or
//    renamed, and no process can set it (utimes sets mtime; ctime then becomes "now"), so an unchanged ctime
//    means an unchanged listing. A directory whose ctime moved is listed again and compared (agentd's own
//    mount-point stubs come and go there); a different listing discards the template. Compared is what the
//    walk can find: every subdirectory (walked further) and every entry whose name begins with a dot, and,
//    inside a directory whose name begins with a dot (.git, .vscode, .claude, …), every entry. Every name the
//    runtime protects begins with a dot or lies inside such a directory (a test holds its list to that), so a
//    command that only writes ordinary files (`npm run build`) keeps the template.
//    Timestamps are coarse (a kernel tick; whole seconds on some filesystems): a ctime within RACY_NS of the
//    moment it was read is not trusted, and that directory is listed again every time until it settles.
//    The fingerprint is taken BEFORE the runtime walks, so a change during its walk is seen next time.
//  - every path the invocation names (mount sources and targets, the configured lists, the writable places)
//    by identity and real path: one replaced, moved behind a link, created or removed discards the template.
// What cannot be fingerprinted is never reused: a glob in the configured paths (expanded by the runtime
// against the disk), a tree larger than MAX_DIRS, a directory that cannot be read, an invocation passed
// through a file (`--args`), one this parser does not understand. Those wrap afresh every time.
//
// The invocation is also run as bubblewrap's own argv: the runtime hands back `bash -c '<bwrap …>'`, whose
// shell only parses the words. What bubblewrap then runs inside is unchanged.
import { type Dirent, lstatSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

/** How far below the working directory the runtime looks for files to protect (passed to it as well). */
export const MANDATORY_DENY_SEARCH_DEPTH = 3;
/** A tree with more directories than this is not fingerprinted (the walk would cost what it saves). */
const MAX_DIRS = 3000;
/** Change times this close to the moment they were read may hide a second change in the same tick. */
const RACY_NS = 2_000_000_000n;
const GLOB = /[*?[\]{}]/;
const BWRAP = /(^|\/)bwrap$/;
/** The runtime's empty directory used as a mount source; removed when its sandboxes end, so agentd uses its own. */
const EMPTY_SOURCE = /\/claude-empty-[A-Za-z0-9]{6}$/;
/** bubblewrap options that take a source and a target path, and those that take a target only. */
const TWO_PATHS = new Set(['--bind', '--ro-bind', '--dev-bind', '--bind-try', '--ro-bind-try', '--dev-bind-try']);
const ONE_PATH = new Set(['--tmpfs', '--dir', '--dev', '--proc', '--mqueue', '--remount-ro']);

/** The words of a string made by the runtime's quote(): bare words and '…' with '"'"' for a quote. */
export function parseQuotedWords(s: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < s.length) {
    let word = '';
    let any = false;
    while (i < s.length && s[i] !== ' ') {
      any = true;
      if (s.startsWith(`"'"`, i)) {
        word += "'";
        i += 3;
      } else if (s[i] === "'") {
        const end = s.indexOf("'", i + 1);
        if (end < 0) return undefined;
        word += s.slice(i + 1, end);
        i = end + 1;
      } else if (/[A-Za-z0-9_./:=@+,-]/.test(s[i] as string)) {
        word += s[i];
        i++;
      } else return undefined;
    }
    if (!any) return undefined;
    words.push(word);
    i++;
  }
  return words;
}

interface DirState {
  /** Inside a directory whose name begins with a dot: every entry counts. */
  all: boolean;
  dev: bigint;
  ino: bigint;
  ctimeNs: bigint;
  listing: string;
  settled: boolean;
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** A directory's entries by name and type, as far as the runtime's walk can tell them apart (see the top). */
function listOf(entries: readonly Dirent[], all: boolean): string {
  return entries
    .filter((e) => all || e.isDirectory() || e.name.startsWith('.'))
    .map((e) => `${e.isDirectory() ? 'd' : e.isSymbolicLink() ? 'l' : e.isFile() ? 'f' : 'o'}${e.name}`)
    .sort()
    .join('\0');
}

function readDir(dir: string, all: boolean): { state: DirState; subdirs: Array<{ dir: string; all: boolean }> } | undefined {
  try {
    const at = nowNs();
    const st = lstatSync(dir, { bigint: true });
    if (!st.isDirectory()) return undefined;
    const entries = readdirSync(dir, { withFileTypes: true });
    const list = listOf(entries, all);
    const subdirs = entries.filter((e) => e.isDirectory() && e.name !== 'node_modules').map((e) => ({ dir: join(dir, e.name), all: all || e.name.startsWith('.') }));
    return { state: { all, dev: st.dev, ino: st.ino, ctimeNs: st.ctimeNs, listing: list, settled: st.ctimeNs + RACY_NS < at }, subdirs };
  } catch {
    return undefined;
  }
}

/** The directories the runtime's walk reads, or undefined when the tree cannot be fingerprinted. */
function snapshotTree(root: string, depth: number): Map<string, DirState> | undefined {
  const dirs = new Map<string, DirState>();
  let level = [{ dir: root, all: false }];
  for (let d = 0; d <= depth && level.length; d++) {
    const next: Array<{ dir: string; all: boolean }> = [];
    for (const { dir, all } of level) {
      const r = readDir(dir, all);
      if (!r) return undefined;
      dirs.set(dir, r.state);
      if (dirs.size > MAX_DIRS) return undefined;
      next.push(...r.subdirs);
    }
    level = next;
  }
  return dirs;
}

function treeHolds(dirs: Map<string, DirState>): boolean {
  for (const [dir, s] of dirs) {
    try {
      const at = nowNs();
      const st = lstatSync(dir, { bigint: true });
      if (!st.isDirectory() || st.dev !== s.dev || st.ino !== s.ino) return false;
      if (st.ctimeNs === s.ctimeNs && s.settled) continue;
      if (listOf(readdirSync(dir, { withFileTypes: true }), s.all) !== s.listing) return false;
      s.ctimeNs = st.ctimeNs;
      s.settled = st.ctimeNs + RACY_NS < at;
    } catch {
      return false;
    }
  }
  return true;
}

/** A path's identity: what lstat says, where a link points, and its real path ('absent' when missing). */
function identity(p: string): string {
  try {
    const st = lstatSync(p, { bigint: true });
    const link = st.isSymbolicLink() ? readlinkSync(p) : '';
    let real = '';
    try {
      real = realpathSync.native(p);
    } catch {
      real = '?';
    }
    return `${st.dev}:${st.ino}:${st.mode}:${link}:${real}`;
  } catch (e) {
    return `absent:${(e as NodeJS.ErrnoException).code ?? ''}`;
  }
}

export interface TemplateInputs {
  /** The directory the runtime scans (its process's working directory). */
  root: string;
  /** The configured path lists and the writable directories (everything the wrap resolves by name). */
  namedPaths: readonly string[];
  /** Single files bound in per call (they differ every call: substituted, not fingerprinted by name). */
  files: readonly string[];
}

interface Template {
  words: string[];
  /** Word positions of each per-call file, and of the runtime's empty mount source. */
  filePositions: number[][];
  fileParents: string[];
  emptyPositions: number[];
  dirs: Map<string, DirState>;
  paths: Map<string, string>;
}

/** Whether a fresh wrap can become a template: no pattern anywhere, a tree of manageable size. */
export function fingerprintable(inputs: TemplateInputs): boolean {
  return !inputs.namedPaths.some((p) => GLOB.test(p));
}

/** The mount targets the invocation names that do not exist yet: bubblewrap creates them (and the
 *  missing directories above them) on the host as mount points; they are removed once no sandbox runs. */
export function missingMountTargets(words: readonly string[]): string[] {
  const out = new Set<string>();
  const end = words.indexOf('--');
  for (let i = 1; i < (end < 0 ? words.length : end); i++) {
    const w = words[i] as string;
    const target = TWO_PATHS.has(w) ? words[i + 2] : ONE_PATH.has(w) ? words[i + 1] : undefined;
    if (target === undefined) continue;
    for (let p = target; p !== dirname(p); p = dirname(p)) {
      try {
        lstatSync(p);
        break;
      } catch {
        out.add(p);
      }
    }
  }
  return [...out];
}

/** Removes mount points bubblewrap left, deepest first, and only while they are still empty (as the runtime does). */
export function removeMountPoints(points: Iterable<string>): void {
  for (const p of [...points].sort((a, b) => b.length - a.length)) {
    try {
      const st = lstatSync(p);
      if (st.isFile() && st.size === 0) unlinkSync(p);
      else if (st.isDirectory() && readdirSync(p).length === 0) rmdirSync(p);
    } catch {
      // Already gone, or no longer ours to remove.
    }
  }
}

/** bubblewrap's own argv from the runtime's `bash -c '<bwrap …>'` (that shell only splits the words), or the
 *  runtime's argv as it is when it is not of that form. */
export function bwrapArgv(argv: readonly string[]): string[] {
  const words = argv.length === 3 && /(^|\/)bash$/.test(argv[0] as string) && argv[1] === '-c' ? parseQuotedWords(argv[2] as string) : undefined;
  return words && words.length >= 2 && BWRAP.test(words[0] as string) ? words : [...argv];
}

export interface WrapCache {
  /** bwrap's own argv for this call from a template still valid, or undefined (wrap afresh). */
  reuse(key: string, inputs: TemplateInputs): string[] | undefined;
  /** Takes the fingerprint that a following fresh wrap is checked against (call BEFORE wrapping). */
  prepare(inputs: TemplateInputs): Pick<Template, 'dirs' | 'paths'> | undefined;
  /** Keeps a fresh wrap (bubblewrap's own argv, bwrapArgv of the runtime's) as the template; returns it. */
  store(key: string, inputs: TemplateInputs, pre: Pick<Template, 'dirs' | 'paths'> | undefined, words: string[]): string[];
  /** Removes agentd's empty mount source (session end). */
  dispose(): void;
}

export function createWrapCache(depth = MANDATORY_DENY_SEARCH_DEPTH): WrapCache {
  const templates = new Map<string, Template>();
  let emptyDir: string | undefined;

  /** agentd's private empty directory for mount sources, checked before each use like the runtime's own. */
  const emptySource = (): string | undefined => {
    if (emptyDir !== undefined) {
      try {
        const st = lstatSync(emptyDir);
        if (st.isDirectory() && st.uid === userInfo().uid && (st.mode & 0o077) === 0 && readdirSync(emptyDir).length === 0) return emptyDir;
      } catch {
        // Gone: make another.
      }
    }
    emptyDir = mkdtempSync(join(tmpdir(), 'agentd-empty-'));
    return statSync(emptyDir).isDirectory() ? emptyDir : undefined;
  };

  /** The names known before the wrap: the scan root, the configured lists, the writable places. */
  const namedIdentities = (inputs: TemplateInputs): Map<string, string> => {
    const names = new Set<string>([inputs.root, ...inputs.namedPaths, ...inputs.files.map((f) => dirname(f))]);
    return new Map([...names].map((n) => [n, identity(n)]));
  };

  return {
    prepare(inputs) {
      if (!fingerprintable(inputs)) return undefined;
      // Names first, then the tree, then (the caller) the runtime's wrap: whatever changes after a look is
      // seen by the next one.
      const paths = namedIdentities(inputs);
      const dirs = snapshotTree(inputs.root, depth);
      return dirs ? { dirs, paths } : undefined;
    },
    store(key, inputs, pre, words) {
      if (!BWRAP.test(words[0] as string) || !pre || words.includes('--args')) return words;
      const filePositions = inputs.files.map((f) => words.flatMap((w, i) => (w === f ? [i] : [])));
      const stray = inputs.files.some((f, n) => words.some((w, i) => w.includes(f) && !filePositions[n]?.includes(i)));
      const emptyPositions = words.flatMap((w, i) => (EMPTY_SOURCE.test(w) ? [i] : []));
      if (stray || filePositions.some((p) => p.length === 0)) return words;
      // A name that changed while the runtime wrapped: this wrap may reflect either state, so it is not kept.
      if ([...pre.paths].some(([p, id]) => identity(p) !== id)) return words;
      // The other paths the invocation names (the runtime's own: protected files it found, default write
      // places, its proxy socket). Looked at after the wrap: a swap in between is the same race as between
      // any wrap and its run, and from then on it is caught.
      const paths = new Map(pre.paths);
      const end = words.indexOf('--');
      for (const w of words.slice(1, end < 0 ? words.length : end)) {
        if (w.startsWith('/') && !EMPTY_SOURCE.test(w) && !inputs.files.includes(w) && !paths.has(w)) paths.set(w, identity(w));
      }
      templates.set(key, { words, filePositions, fileParents: inputs.files.map((f) => dirname(f)), emptyPositions, dirs: pre.dirs, paths });
      return words;
    },
    reuse(key, inputs) {
      const t = templates.get(key);
      if (!t) return undefined;
      const ok =
        inputs.files.length === t.filePositions.length &&
        inputs.files.every((f, n) => dirname(f) === t.fileParents[n] && lstatSync(f, { throwIfNoEntry: false })?.isFile() === true) &&
        [...t.paths].every(([p, id]) => identity(p) === id) &&
        treeHolds(t.dirs);
      if (!ok) {
        templates.delete(key);
        return undefined;
      }
      const words = [...t.words];
      t.filePositions.forEach((ps, n) => ps.forEach((i) => (words[i] = inputs.files[n] as string)));
      if (t.emptyPositions.length) {
        const e = emptySource();
        if (!e) return undefined;
        for (const i of t.emptyPositions) words[i] = e;
      }
      return words;
    },
    dispose() {
      if (emptyDir !== undefined) removeMountPoints([emptyDir]);
      templates.clear();
    },
  };
}
