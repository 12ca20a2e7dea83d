// Protected directories: what configures programs that run code (git's config and hooks, agent settings), and
// how git finds the git directory it will use. Writes there always ask; git elsewhere than the project's own
// repository asks (engine.ts, command-paths.ts).
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { type ResolvedPath, expandHome, isWithin, realResolve } from './paths.js';

/**
 * The hooks directories git uses for the project's repository when it is not .git/hooks (`core.hooksPath` in the
 * repository's or the user's config, as husky and others set it): writing there is writing git hooks.
 */
export function gitHooksDirs(gitDir: string | null, projectDir: string): string[] {
  if (gitDir === null) return [];
  const worktree = gitDir.endsWith('/.git') ? dirname(gitDir) : projectDir;
  const out: string[] = [];
  for (const config of [join(gitDir, 'config'), join(homedir(), '.gitconfig')]) {
    let text: string;
    try {
      text = readFileSync(config, 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(/^\s*hookspath\s*=\s*"?([^"\n]*?)"?\s*$/gim)) {
      const v = (m[1] as string).trim();
      if (v) out.push(realResolve(resolve(worktree, expandHome(v))));
    }
  }
  return out;
}

/**
 * Directories whose contents configure programs that run code by themselves: git's hooks and config, agent
 * settings, editors' workspace settings (tasks, launchers, extensions), git hook managers, build tools' per-project
 * configuration, dev containers. Claude Code 2.1.330's list (strings in the binary: DANGEROUS_DIRECTORIES, measured
 * in test/measure/links-annotations.measure.ts: a Write there asks in acceptEdits, under allow rules and in dontAsk)
 * plus agentd's own settings directory.
 */
export const PROTECTED_DIRS: readonly string[] = ['.git', '.claude', '.agentd', '.vscode', '.idea', '.husky', '.cargo', '.devcontainer', '.yarn', '.mvn'];

/**
 * Files that make a program run code when it merely starts or looks at the project: shell start-up files, git's
 * submodules and user config, direnv's .envrc, the next session's MCP servers (.mcp.json), package managers' rc
 * files and plug-n-play loaders, hook managers' configs, build-tool wrappers. Claude Code 2.1.330's list, verbatim.
 * Left out deliberately, as Claude Code leaves them: files a user runs on purpose as the project's own build code
 * (package.json scripts, Makefile, setup.py, CI workflows), and .gitattributes (its filter and diff drivers only
 * run commands that git's config, protected above, defines).
 */
export const PROTECTED_FILES: readonly string[] = [
  '.gitconfig', '.gitmodules', '.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.profile', '.zshenv', '.zlogin', '.zlogout',
  '.bash_login', '.bash_aliases', '.bash_logout', '.envrc', '.ripgreprc', '.mcp.json', '.claude.json', '.npmrc', '.yarnrc',
  '.yarnrc.yml', '.pnp.cjs', '.pnp.loader.mjs', '.pnp.js', '.pnp.data.json', '.pnpmfile.cjs', 'bunfig.toml', '.bunfig.toml',
  '.bazelrc', '.bazelversion', '.bazeliskrc', '.pre-commit-config.yaml', 'lefthook.yml', '.lefthook.yml', 'lefthook.yaml',
  '.lefthook.yaml', 'gradle-wrapper.properties', 'maven-wrapper.properties', '.devcontainer.json', 'pyrightconfig.json',
];

const DIR_SET: ReadonlySet<string> = new Set(PROTECTED_DIRS);
const FILE_SET: ReadonlySet<string> = new Set(PROTECTED_FILES);

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A directory git would take for a git directory (bare repositories, gitdir targets): HEAD plus its stores. */
export function looksLikeGitDir(dir: string): boolean {
  return isFile(join(dir, 'HEAD')) && (isDir(join(dir, 'objects')) || isDir(join(dir, 'refs')) || isFile(join(dir, 'config')));
}

/** The git directory git uses when started in `start` (as git discovers it), or null when there is none. */
export function discoverGitDir(start: string): string | null {
  let d = realResolve(start);
  for (;;) {
    const dotgit = join(d, '.git');
    let st;
    try {
      st = statSync(dotgit);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) return realResolve(dotgit);
    if (st?.isFile()) {
      let target = dotgit;
      try {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotgit, 'utf8'));
        if (m) target = resolve(d, m[1] as string);
      } catch {
        // unreadable: git will fail; judge the file itself
      }
      return realResolve(target);
    }
    if (looksLikeGitDir(d)) return d;
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
}

/**
 * Why writing `p` configures a program that runs code, as a phrase ("inside .git/", "the file .mcp.json"), or
 * undefined. Names compare case-insensitively, as Claude Code compares them (a case-insensitive file system makes
 * `.GIT/config` git's own).
 */
export function protectedDirOf(p: ResolvedPath, gitDirMemo?: Map<string, boolean>, hooksDirs: readonly string[] = []): string | undefined {
  const hooks = hooksDirs.find((h) => isWithin(h, p.asWritten) || isWithin(h, p.real));
  if (hooks) return `inside the git hooks directory ${hooks}/`;
  for (const form of [p.asWritten, p.real]) {
    const parts = form.toLowerCase().split('/');
    const hit = parts.find((x) => DIR_SET.has(x));
    if (hit) return `inside ${hit}/`;
    const leaf = parts.at(-1) ?? '';
    if (FILE_SET.has(leaf)) return `the file ${leaf}`;
    // git's user-wide configuration applies to every repository, the project's own included.
    if (parts.some((x, i) => x === '.config' && parts[i + 1] === 'git')) return 'inside .config/git/';
  }
  // A directory git takes for a git directory, whatever its name (a bare repository, a gitdir file's target).
  for (let d = dirname(p.real); ; d = dirname(d)) {
    let git = gitDirMemo?.get(d);
    if (git === undefined) {
      git = looksLikeGitDir(d);
      gitDirMemo?.set(d, git);
    }
    if (git) return `inside the git directory ${d}/`;
    if (dirname(d) === d) return undefined;
  }
}
