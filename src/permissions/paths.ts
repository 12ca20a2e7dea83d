// Path confinement. Every path is judged twice: as written (made absolute, `..` resolved) and as it really is
// (symlinks resolved). A file that does not exist yet is judged by the real path of its deepest existing
// ancestor plus the rest, so a symlinked parent directory cannot smuggle a write outside.
import { lstatSync, readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';

export interface ResolvedPath {
  /** Absolute, normalised, symlinks not resolved. */
  asWritten: string;
  /** Symlinks resolved (of the deepest existing ancestor for a new file). */
  real: string;
}

export function expandHome(p: string, home = homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

export function resolveToolPath(p: string, cwd: string): ResolvedPath {
  const expanded = expandHome(p);
  const raw = isAbsolute(expanded) ? expanded : `${cwd}/${expanded}`;
  const asWritten = normalize(isAbsolute(expanded) ? expanded : resolve(cwd, expanded));
  // The real path is resolved component by component on the raw path: `link/..` is the parent of the link's
  // target, not the directory holding the link (which is what textual normalisation would say).
  return { asWritten, real: realResolve(raw) };
}

/**
 * Resolves a path the way the kernel will: symlinks (dangling ones included, by their target) before `..`.
 * Components that do not exist yet are appended as written.
 */
export function realResolve(raw: string, depth = 0): string {
  if (depth > 40) return normalize(raw); // a symlink loop: the open will fail anyway
  const parts = raw.split('/').filter((x) => x !== '' && x !== '.');
  let cur = '/';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (part === '..') {
      cur = dirname(cur);
      continue;
    }
    const next = join(cur, part);
    let st;
    try {
      st = lstatSync(next);
    } catch {
      // Missing: the rest cannot be symlinks yet.
      return normalize(join(next, ...parts.slice(i + 1)));
    }
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkSync(next);
      } catch {
        return normalize(join(next, ...parts.slice(i + 1)));
      }
      const base = isAbsolute(target) ? target : join(cur, target);
      return realResolve([base, ...parts.slice(i + 1)].join('/'), depth + 1);
    }
    cur = next;
  }
  return cur;
}

/** True when `p` is `dir` or inside it (both absolute and normalised). */
export function isWithin(dir: string, p: string): boolean {
  if (p === dir) return true;
  const rel = relative(dir, p);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** Working directories in both forms (as given and real). */
export function workingDirs(cwd: string, additional: readonly string[]): ResolvedPath[] {
  return [cwd, ...additional].map((d) => resolveToolPath(d, cwd));
}

/** A path is inside the working directories only if it is, both as written and for real. */
export function insideWorkingDirs(p: ResolvedPath, dirs: readonly ResolvedPath[]): boolean {
  return dirs.some((d) => isWithin(d.asWritten, p.asWritten) || isWithin(d.real, p.asWritten)) && dirs.some((d) => isWithin(d.real, p.real));
}
