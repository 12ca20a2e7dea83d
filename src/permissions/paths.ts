// Path confinement. Every path is judged twice: as written (made absolute, `..` resolved) and as it really is
// (symlinks resolved). A file that does not exist yet is judged by the real path of its deepest existing
// ancestor plus the rest, so a symlinked parent directory cannot smuggle a write outside.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';

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
  const asWritten = normalize(isAbsolute(expandHome(p)) ? expandHome(p) : resolve(cwd, expandHome(p)));
  return { asWritten, real: realPathOf(asWritten) };
}

export function realPathOf(abs: string): string {
  const missing: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const r = realpathSync.native(cur);
      return missing.length ? join(r, ...missing.reverse()) : r;
    } catch {
      const parent = dirname(cur);
      if (parent === cur) return abs;
      missing.push(basename(cur));
      cur = parent;
    }
  }
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
