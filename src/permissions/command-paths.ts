// Path checks on a shell command beyond the text of Bash(...) rules, from the words the analyser evaluated:
//  - Read deny rules apply to every word that may name a file the command reads (operands, option values, glued
//    short-option values, `k=v` and `x:path` tails, `@file`, `<` targets), resolved against every directory the
//    command may be in (the shell's cwd, `cd` targets, `-C` directories), and to the other names (hard links) of
//    the files they cover. Edit deny rules apply the same way to
//    commands that are not read-only and to output redirects.
//  - What the analyser cannot see under a denied path asks: words only known when the command runs ($x, $(…),
//    braces, globs that may expand into it), recursion over a directory holding it (grep -r, rg, diff, cp -r…),
//    recursion that follows symlinks, words appended by xargs, a `cd` it cannot follow.
//  - Writes of files that configure programs that run code (.git/, .claude/, .mcp.json, .envrc… protected.ts; any
//    repository, nested ones and bare-looking git directories too) ask, whatever allow rule matches.
//  - git in a repository other than the project's own (one the model may have written: its config and hooks run
//    programs) asks.
// Everything here only makes a decision stricter; it never allows.
import { homedir } from 'node:os';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import type { CommandSegments, SegmentDetail } from './match.js';
import { globBase, globMatches, pathPattern, pathRuleMatchesEither } from './match.js';
import { type ResolvedPath, expandHome, isWithin, realResolve, resolveToolPath } from './paths.js';
import { readIdentityFinding } from './links.js';
import { FILE_WRITERS, LISTS_ONLY, NAMES_ONLY, extractsUnseen, followsSymlinks, listsRecursively, readsCwdRecursively, writesGitConfig } from './programs.js';
import { PROTECTED_DIRS, PROTECTED_FILES, discoverGitDir, gitHooksDirs, isDir, protectedDirOf } from './protected.js';
import { type PermissionRule, formatRule } from './rules.js';

export interface CommandPathContext {
  /** The shell's current directory (where the command starts). */
  cwd: string;
  /** Directories relative rule paths anchor to: the project first, then the --add-dir directories. */
  anchors: readonly string[];
  readDeny: readonly PermissionRule[];
  editDeny: readonly PermissionRule[];
  /** The project's own git directory when the session started (real path); null when it had none. */
  trustedGitDir: string | null;
  /** Its hooks directories outside .git (core.hooksPath): protected like .git/. */
  hooksDirs?: readonly string[];
}

export { PROTECTED_DIRS, discoverGitDir, gitHooksDirs, protectedDirOf };

export type CommandPathFinding =
  | { kind: 'deny'; rule: PermissionRule; path: string }
  /** Something under a Read-denied path may be read without the analyser seeing it. */
  | { kind: 'unseenRead'; rule: PermissionRule; reason: string }
  | { kind: 'protected'; reason: string }
  | { kind: 'git'; reason: string }
  /** A read-only command recurses through symlinks (it can leave the working directories). */
  | { kind: 'followsSymlinks'; reason: string };


// ---------------------------------------------------------------------------------------------------------------
// Words

/**
 * Every string a word may name a file by: itself, `--opt=PATH`, `k=PATH`, `rev:PATH`, `@PATH`, `-fPATH`, and
 * each path-like token inside it (code given to an interpreter: `python3 -c "open('x')"`, an awk script).
 */
function pathForms(word: string): string[] {
  const out = new Set<string>([word]);
  if (/[\s'"();<>|&,]/.test(word)) for (const t of word.split(/[\s'"();<>|&,`]+/)) if (t) for (const f of pathForms(t)) out.add(f);
  return formsOf(word, out);
}

/** Whether a form came from inside a word (a token of a script or a message) rather than the word itself. */
function isToken(form: string, word: string): boolean {
  return form !== word && /[\s'"();<>|&,`]/.test(word);
}

function formsOf(word: string, out: Set<string>): string[] {
  const eq = word.indexOf('=');
  if (eq >= 0) out.add(word.slice(eq + 1));
  const colon = word.indexOf(':');
  if (colon >= 0 && !/^[a-z][a-z0-9+.-]*:\/\//i.test(word)) {
    out.add(word.slice(colon + 1));
    out.add(word.slice(word.lastIndexOf(':') + 1));
  }
  if (word.startsWith('@')) out.add(word.slice(1));
  // A short-option cluster may end in a glued value (`-f../x`, `-abfFILE`): every tail is a candidate.
  if (/^-[^-]/.test(word)) for (let k = 2; k < word.length; k++) out.add(word.slice(k));
  out.delete('');
  out.delete('-');
  return [...out];
}

const GLOB = /[*?[]/;

/** A glob word: the directory its matches lie under, and whether a match could be `..` (a leading literal dot). */
function globPrefix(value: string): { dir: string; mayEscape: boolean } {
  const parts = value.split('/');
  const i = parts.findIndex((x) => GLOB.test(x));
  const rest = parts.slice(i);
  return { dir: parts.slice(0, i).join('/') || (value.startsWith('/') ? '/' : '.'), mayEscape: rest.some((x) => /^(\\?\.|\[)/.test(x)) };
}

// ---------------------------------------------------------------------------------------------------------------
// Where the command runs

const SHELL_LOOP = /\b(while|until|for|select)\b|\(\s*\)\s*\{|\bfunction\b/;

/** Every directory the command may be in: the cwd and `cd`/`pushd` targets; undefined when one is unknown. */
function directories(segs: readonly SegmentDetail[], cwd: string, commandText: string): string[] | undefined {
  const bases = new Set([cwd]);
  let changes = false;
  for (const d of segs) {
    if (d.program === undefined) return undefined; // a program only known when it runs could be `cd`
    if (d.program === '') continue; // assignments or redirections only
    if (d.program === 'popd') return undefined;
    if (d.program !== 'cd' && d.program !== 'pushd') continue;
    changes = true;
    if (d.assignments.some((a) => a.startsWith('CDPATH='))) return undefined;
    const target = d.args.find((a) => a.dynamic || !/^(-[LPe@]+|--)$/.test(a.value));
    if (target && (target.dynamic || target.value === '-' || /^[+-]\d/.test(target.value))) return undefined;
    const t = target ? expandHome(target.value) : homedir();
    for (const b of [...bases]) bases.add(resolve(b, t));
  }
  // In a loop or a function a `cd` can apply again and again: the directories cannot be listed.
  if (changes && SHELL_LOOP.test(commandText)) return undefined;
  return [...bases];
}

/** `-C DIR`, `--directory=DIR`, `--chdir DIR`, `--git-dir`-free: directories a program changes into itself. */
function ownDirectories(d: SegmentDetail): Array<string | null> {
  const out: Array<string | null> = [];
  const progs = new Set(['git', 'make', 'gmake', 'tar', 'env', 'ninja', 'npm', 'pnpm', 'yarn']);
  if (d.program === undefined || !progs.has(d.program)) return out;
  for (let i = 0; i < d.args.length; i++) {
    const a = d.args[i] as { value: string; dynamic: boolean };
    const next = d.args[i + 1];
    let v: { value: string; dynamic: boolean } | undefined;
    if (a.value === '-C' || a.value === '--directory' || a.value === '--chdir' || a.value === '--prefix' || a.value === '--cwd') v = next;
    else if (/^-C./.test(a.value)) v = { value: a.value.slice(2), dynamic: a.dynamic };
    else if (/^--(directory|chdir|prefix|cwd)=/.test(a.value)) v = { value: a.value.slice(a.value.indexOf('=') + 1), dynamic: a.dynamic };
    if (v) out.push(v.dynamic ? null : v.value);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Denied areas

interface Area {
  rule: PermissionRule;
  /** Everything the rule can match lies at or under this directory. */
  root: string;
  /** The rule names this path exactly (with what is under it); otherwise it is a pattern rooted here. */
  exact: boolean;
}

const GLOB_CHARS = /[*?[\]{}!]/;

function areasOf(rules: readonly PermissionRule[], anchors: readonly string[]): Area[] {
  const out: Area[] = [];
  for (const rule of rules) {
    if (rule.ruleContent === undefined) continue;
    for (const anchor of anchors) {
      const pattern = pathPattern(rule.ruleContent, rule.baseDir, anchor);
      let root: string;
      let exact: boolean;
      if (pattern.endsWith('{,/**}') && !GLOB_CHARS.test(pattern.slice(0, -6))) [root, exact] = [pattern.slice(0, -6), true];
      else if (pattern.endsWith('/**') && !GLOB_CHARS.test(pattern.slice(0, -3))) [root, exact] = [pattern.slice(0, -3), true];
      else [root, exact] = [globBase(pattern), false];
      for (const r of new Set([root, realResolve(root)])) out.push({ rule, root: r, exact });
    }
  }
  return out;
}

/**
 * A search tool (Grep) over `root` may read under a Read-denied path: the finding a shell `grep -r` would get.
 * Search tools take no excludes from deny rules, so such a search asks (bypass mode: denied).
 */
export function searchReachesDenied(root: ResolvedPath, readDeny: readonly PermissionRule[], anchors: readonly string[], tool: string): CommandPathFinding | undefined {
  const area = areaUnder(areasOf(readDeny, anchors), root);
  if (!area) return undefined;
  return { kind: 'unseenRead', rule: area.rule, reason: `${tool} over ${root.asWritten} may read ${area.root}, which the rule ${formatRule(area.rule)} (${area.rule.source}) denies reading; search a narrower path.` };
}

/** An area that reading everything at or under `dir` (or matching a glob there) may reach. */
function areaUnder(areas: readonly Area[], dir: ResolvedPath): Area | undefined {
  return areas.find((a) => [dir.asWritten, dir.real].some((d) => isWithin(d, a.root) || (!a.exact && isWithin(a.root, d))));
}

// ---------------------------------------------------------------------------------------------------------------

function matchesAny(rules: readonly PermissionRule[], p: ResolvedPath, anchors: readonly string[]): PermissionRule | undefined {
  return rules.find((r) => r.ruleContent !== undefined && anchors.some((a) => pathRuleMatchesEither(r, p, a)));
}

function shortPath(p: string, anchors: readonly string[]): string {
  const a = anchors[0];
  return a && isWithin(a, p) && p !== a ? p.slice(a.length + 1) : p;
}

/** The path findings for one analysed command (empty when the analyser gave no details). */
export function checkCommandPaths(command: CommandSegments, commandText: string, ctx: CommandPathContext): CommandPathFinding[] {
  const details = command.segments.map((s) => s.detail);
  if (details.length === 0 || details.some((d) => d === undefined)) return [];
  const segs = details as SegmentDetail[];
  const out: CommandPathFinding[] = [];
  const gitDirMemo = new Map<string, boolean>();
  const areas = areasOf(ctx.readDeny, ctx.anchors);
  const firstArea = areas[0];
  const dirAreas = areas.filter((a) => a.exact && isDir(a.root));
  const bases = directories(segs, ctx.cwd, commandText);
  // GIT_DIR, GIT_CONFIG_*, HOME… set anywhere in the command (an assignment, export/declare/env) point git at
  // configuration the model may have written.
  const GIT_ENV = /^(GIT_[A-Z_]*|HOME|XDG_CONFIG_HOME)=/;
  const ENV_SETTERS = new Set(['export', 'declare', 'typeset', 'readonly', 'local', 'env', 'set']);
  // Values that only change presentation or identity (no program, no file).
  const HARMLESS = /^(GIT_PAGER=(cat)?|GIT_TERMINAL_PROMPT=[01]|GIT_EDITOR=(true|:)?|GIT_OPTIONAL_LOCKS=[01]|GIT_ADVICE=[01]|GIT_FLUSH=[01]|GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)=.*)$/s;
  const risky = (v: string): boolean => GIT_ENV.test(v) && !HARMLESS.test(v);
  const gitEnvChanged = segs.some((d) => d.assignments.some(risky) || (d.program !== undefined && ENV_SETTERS.has(d.program) && d.args.some((a) => a.dynamic || risky(a.value))));
  const resolveIn = (p: string, dirs: readonly string[] | undefined): ResolvedPath[] | undefined => {
    const e = expandHome(p);
    if (isAbsolute(e)) return [resolveToolPath(e, '/')];
    return dirs?.map((b) => resolveToolPath(e, b));
  };
  // `area`: the denied area this may reach (undefined: none, nothing to ask about).
  const unseen = (what: string, area: Area | undefined): void => {
    if (!area) return;
    if (out.some((f) => f.kind === 'unseenRead')) return;
    out.push({ kind: 'unseenRead', rule: area.rule, reason: `${what} may read ${shortPath(area.root, ctx.anchors)}, which the rule ${formatRule(area.rule)} (${area.rule.source}) denies reading; name the files it reads instead.` });
  };
  const guard = (reason: string): void => {
    if (!out.some((f) => f.kind === 'protected')) out.push({ kind: 'protected', reason });
  };

  for (const d of segs) {
    const program = d.program ?? '';
    const own = ownDirectories(d);
    const dirs = bases && !own.includes(null) ? [...bases, ...own.flatMap((o) => (bases ?? []).map((b) => resolve(b, expandHome(o as string))))] : undefined;
    const staticArgs = d.args.filter((a) => !a.dynamic).map((a) => a.value);
    const writes = !d.readOnly;
    const label = d.program || 'a command';
    // Programs known to write the files their arguments name: a word only known at run time could name a
    // protected file. (Any other program's static words are still checked.)
    const writer = writes && FILE_WRITERS.has(program);

    // Words (and `<` targets) that may name files: deny rules, protected directories.
    // Only worth resolving when a rule could match or the segment writes (protected directories).
    const reads = d.reads.filter((r): r is string => r !== null);
    const candidates: Array<{ c: string; token: boolean }> =
      writes || ctx.readDeny.length > 0 ? [...staticArgs.flatMap((w) => pathForms(w).map((c) => ({ c, token: isToken(c, w) }))), ...reads.map((c) => ({ c, token: false }))] : [];
    for (const { c, token } of candidates) {
      const resolved = resolveIn(c, dirs);
      if (!resolved) {
        unseen(`${label} (in a directory that is only known when the command runs)`, firstArea);
        if (writer) guard(`${label} runs in a directory that is only known when the command runs, so its writes cannot be checked against protected directories.`);
        continue;
      }
      for (const p of resolved) {
        const rule = matchesAny(ctx.readDeny, p, ctx.anchors) ?? (writes ? matchesAny(ctx.editDeny, p, ctx.anchors) : undefined);
        if (rule) out.push({ kind: 'deny', rule, path: p.real });
        // Another name (a hard link) of a Read-denied file is that file (links.ts).
        const id = rule ? undefined : readIdentityFinding(p, ctx.readDeny, ctx.anchors);
        if (id?.kind === 'identityDeny') out.push({ kind: 'deny', rule: id.rule, path: id.other });
        else if (id?.kind === 'identityUnverified' && !out.some((f) => f.kind === 'unseenRead')) out.push({ kind: 'unseenRead', rule: id.rule, reason: id.reason });
        // A token inside a longer word (a commit message, a script) counts for protected directories only when it
        // looks like a path into one (`open('.git/config')`), not a bare mention (`-m "fix .git handling"`).
        if (writes && program !== 'cd' && program !== 'pushd' && (!token || c.includes('/'))) {
          const prot = protectedDirOf(p, gitDirMemo, ctx.hooksDirs);
          if (prot) guard(`${label} names ${shortPath(p.asWritten, ctx.anchors)}, ${prot}, which configures programs that run code; changing it always needs explicit permission.`);
        }
      }
    }
    for (const w of d.writes) {
      const resolved = w === null ? undefined : resolveIn(w, dirs);
      if (!resolved) {
        guard(`An output redirect of ${label} goes to a file that is only known when the command runs.`);
        continue;
      }
      for (const p of resolved) {
        const rule = matchesAny(ctx.editDeny, p, ctx.anchors);
        if (rule) out.push({ kind: 'deny', rule, path: p.real });
        const prot = protectedDirOf(p, gitDirMemo, ctx.hooksDirs);
        if (prot) guard(`An output redirect writes ${shortPath(p.asWritten, ctx.anchors)}, ${prot}, which configures programs that run code; changing it always needs explicit permission.`);
      }
    }

    // What the analyser cannot see.
    if (d.reads.includes(null)) unseen(`An input redirect of ${label} names a file only known when the command runs; it`, firstArea);
    if (d.wrappers.some((w) => w === 'xargs' || w === 'parallel')) unseen(`${label} gets arguments from xargs, which`, firstArea);
    // find -exec/-execdir/-ok: `{}` becomes each file found.
    if (d.wrappers.includes('find')) unseen(`${label} run by find on the files it finds`, firstArea);
    let dirArgs = false;
    // Recursive listings show every name under a denied directory (not file contents): directory areas only.
    const lister = listsRecursively(program, staticArgs);
    for (const a of d.args) {
      if (a.dynamic) {
        if (GLOB.test(a.value) && !/[$`{}]/.test(a.value)) {
          const g = globPrefix(a.value);
          const at = resolveIn(g.dir, dirs);
          // Listing programs (ls, find, du…) show names only, wherever the pattern leads.
          if (LISTS_ONLY.has(program)) {
            // nothing to read
          } else if (g.mayEscape || !at) unseen(`The pattern ${a.value} can match .. and`, firstArea);
          else for (const p of at) unseen(`The pattern ${a.value}`, areaUnder(areas, p));
          if (writer && a.value.split('/').some((part) => GLOB.test(part) && [...PROTECTED_DIRS, ...PROTECTED_FILES].some((x) => globMatches(part.toLowerCase(), x)))) {
            guard(`The pattern ${a.value} of ${label} can match a file or directory that configures programs that run code (.git, .claude, .mcp.json…).`);
          }
        } else {
          if (!LISTS_ONLY.has(program)) unseen(`The word ${a.value} is only known when the command runs and`, firstArea);
          if (writer) guard(`The word ${a.value} of ${label} is only known when the command runs, so what it writes cannot be checked against protected directories.`);
        }
        continue;
      }
      // Directory operands matter for recursion into a denied path, and for diff's symlink following.
      if (areas.length === 0 && program !== 'diff') continue;
      for (const p of resolveIn(a.value, dirs) ?? []) {
        if (!isDir(p.real)) continue;
        dirArgs = true;
        if (!NAMES_ONLY.has(program)) unseen(`${label} over the directory ${shortPath(p.asWritten, ctx.anchors)}`, areaUnder(areas, p));
        else if (lister) unseen(`${label} listing everything under ${shortPath(p.asWritten, ctx.anchors) || '.'}`, areaUnder(dirAreas, p));
      }
    }
    if (lister?.walksCwd) for (const b of dirs ?? []) unseen(`${label} listing everything under ${shortPath(b, ctx.anchors) || '.'}`, areaUnder(dirAreas, resolveToolPath(b, '/')));
    if (readsCwdRecursively(program, staticArgs)) {
      for (const b of dirs ?? []) unseen(`${label} searching ${shortPath(b, ctx.anchors) || '.'}`, areaUnder(areas, resolveToolPath(b, '/')));
      if (!dirs) unseen(`${label} (in a directory that is only known when the command runs)`, firstArea);
    }
    if (followsSymlinks(program, staticArgs, dirArgs)) {
      unseen(`${label} follows symlinks while it recurses and`, firstArea);
      if (d.readOnly) out.push({ kind: 'followsSymlinks', reason: `${label} follows symlinks while it recurses, so it can read outside the working directories.` });
    }

    if (writes && extractsUnseen(program, staticArgs)) guard(`${label} writes files whose names are only known when it runs (an archive or a patch), so they cannot be checked against protected directories.`);
    if (writes && program === 'git' && writesGitConfig(staticArgs)) guard('git config changes a git configuration, which can make git run programs; that always needs explicit permission.');

    // git with a repository the model may have written.
    if (program === 'git' && gitEnvChanged) {
      if (!out.some((f) => f.kind === 'git')) out.push({ kind: 'git', reason: "git runs with its environment changed (GIT_*, HOME or XDG_CONFIG_HOME) in this command; its configuration can then run programs." });
    } else if (program === 'git') {
      const gitReason = gitFinding(d, dirs, ctx);
      if (gitReason && !out.some((f) => f.kind === 'git')) out.push({ kind: 'git', reason: gitReason });
    }
  }
  return out;
}

function gitFinding(d: SegmentDetail, dirs: readonly string[] | undefined, ctx: CommandPathContext): string | undefined {
  const explicit: Array<string | null> = [];
  for (const a of d.assignments) if (/^GIT_(DIR|COMMON_DIR)=/.test(a)) explicit.push(a.slice(a.indexOf('=') + 1));
  for (let i = 0; i < d.args.length; i++) {
    const a = d.args[i] as { value: string; dynamic: boolean };
    if (a.value === '--git-dir') explicit.push(d.args[i + 1]?.dynamic === false ? (d.args[i + 1] as { value: string }).value : null);
    else if (a.value.startsWith('--git-dir=')) explicit.push(a.dynamic ? null : a.value.slice('--git-dir='.length));
  }
  if (explicit.includes(null) || !dirs) return 'git runs with a repository that is only known when the command runs; its config and hooks can run programs.';
  const gitDirs = explicit.length ? explicit.flatMap((e) => dirs.map((b) => realResolve(resolve(b, expandHome(e as string))))) : dirs.map(discoverGitDir);
  for (const g of gitDirs) {
    if (g === null) continue;
    if (ctx.trustedGitDir !== null && isWithin(ctx.trustedGitDir, g)) continue;
    return `git would use the repository at ${g}${g.endsWith(`${sep}.git`) ? '' : ` (${basename(g)})`}, which is not the project's own repository: its config and hooks may have been written in this session and can run programs.`;
  }
  return undefined;
}
