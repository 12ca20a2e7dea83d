// Links, judged by what the file tools will really touch (measured on Claude Code 2.1.330 in
// test/measure/links-annotations.measure.ts):
//  - Write/Edit/NotebookEdit of a path whose last component is a symbolic link is refused in every mode, bypass
//    included, with Claude Code's message naming the link's target: the model is to write the target path itself.
//    (A symlinked directory on the way is followed; the target's real path is what rules and working directories
//    judge, paths.ts.)
//  - A written path inside the working directories whose target lies outside them (through a symlinked directory)
//    asks whatever allows it (allow rules, a hook, acceptEdits), as Claude Code asks.
//  - A file with other names (a hard link, nlink > 1) asks before it is written, in every mode but bypass. The
//    write replaces the name (tools/fs-write.ts), so the other names keep the old content; Claude Code replaces it
//    without asking, agentd asks so the host knows the names part ways (a hard link to .git/config or to a file
//    outside the project never becomes a way to change them).
//  - Read deny rules hold for a file's identity, not only its names: a Read of a file with other names is denied
//    when one of them is a file a Read deny rule covers (same device and inode), found by walking the existing
//    files each rule can match; when that walk cannot be complete (a rule rooted at /, or more than WALK_BUDGET
//    entries) the read asks, and bypass mode (nobody to ask) denies it. Claude Code reads such a link unasked.
import { type Stats, lstatSync, readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { globBase, globMatches, pathPattern } from './match.js';
import { type ResolvedPath, expandHome, isWithin, realResolve } from './paths.js';
import { type PermissionRule, formatRule } from './rules.js';

/** Directory entries examined per read, at most, to find the other names of a hard-linked file. */
export const WALK_BUDGET = 20_000;

export type LinkFinding =
  /** The written path is itself a symbolic link (refused: write its target). */
  | { kind: 'symlinkLeaf'; path: string; target: string }
  /** The written path is inside the working directories, its target is not. */
  | { kind: 'carriedOut'; path: string; target: string }
  /** The written file has other names. */
  | { kind: 'hardLinks'; path: string; links: number }
  /** The file read is also a name a Read deny rule covers. */
  | { kind: 'identityDeny'; path: string; other: string; rule: PermissionRule }
  /** The file read has other names that could not all be checked against the Read deny rules. */
  | { kind: 'identityUnverified'; path: string; links: number; rule: PermissionRule; reason: string };

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The name the kernel opens for `p`: its directory's real path plus its last component (not resolved). */
export function leafPath(p: string, cwd: string): string {
  const expanded = expandHome(p);
  const raw = isAbsolute(expanded) ? expanded : `${cwd}/${expanded}`;
  const name = basename(raw);
  if (name === '' || name === '.' || name === '..') return realResolve(raw);
  return join(realResolve(dirname(raw)), name);
}

/** What links mean for a write of `written` (as the tool got it), resolved to `p`. */
export function writeLinkFindings(written: string, p: ResolvedPath, cwd: string, dirs: readonly ResolvedPath[]): LinkFinding[] {
  const out: LinkFinding[] = [];
  const leaf = leafPath(written, cwd);
  const st = lstatOrUndefined(leaf);
  if (st?.isSymbolicLink()) out.push({ kind: 'symlinkLeaf', path: written, target: p.real });
  else if (st?.isFile() && st.nlink > 1) out.push({ kind: 'hardLinks', path: p.real, links: st.nlink });
  const writtenInside = dirs.some((d) => isWithin(d.asWritten, p.asWritten) || isWithin(d.real, p.asWritten));
  if (writtenInside && !dirs.some((d) => isWithin(d.real, p.real))) out.push({ kind: 'carriedOut', path: written, target: p.real });
  return out;
}

interface Walk {
  left: number;
  complete: boolean;
}

/** A file under `base` the pattern matches with this device and inode, walking without following links. */
function findIdentity(base: string, pattern: string, want: Stats, walk: Walk): string | undefined {
  const stack = [base];
  while (stack.length) {
    const at = stack.pop() as string;
    const st = lstatOrUndefined(at);
    if (--walk.left < 0) {
      walk.complete = false;
      return undefined;
    }
    if (!st) continue;
    if (st.isFile()) {
      if (st.ino === want.ino && st.dev === want.dev && globMatches(pattern, at)) return at;
      continue;
    }
    if (!st.isDirectory()) continue;
    let names: string[];
    try {
      names = readdirSync(at);
    } catch {
      // An unreadable directory: its files cannot be read through their names either, but a link could.
      walk.complete = false;
      continue;
    }
    for (const n of names) stack.push(join(at, n));
  }
  return undefined;
}

/**
 * The identity check of a read of `p` against the Read deny rules (their patterns anchored at `anchors`):
 * undefined when the file has one name (its path was already judged) or no rule's files share its inode.
 */
export function readIdentityFinding(p: ResolvedPath, readDeny: readonly PermissionRule[], anchors: readonly string[]): LinkFinding | undefined {
  const rules = readDeny.filter((r) => r.ruleContent !== undefined);
  if (!rules.length) return undefined;
  const st = lstatOrUndefined(p.real);
  if (!st?.isFile() || st.nlink < 2) return undefined;
  const walk: Walk = { left: WALK_BUDGET, complete: true };
  let unverified: PermissionRule | undefined;
  for (const rule of rules) {
    for (const anchor of anchors) {
      const pattern = pathPattern(rule.ruleContent as string, rule.baseDir, anchor);
      // A plain path covers itself and what is under it: start there rather than at its parent.
      const plain = pattern.endsWith('{,/**}') ? pattern.slice(0, -'{,/**}'.length) : undefined;
      const base = plain !== undefined && !/[*?[\]{}!]/.test(plain) ? plain : globBase(pattern);
      if (base === '/' || base === '') {
        unverified ??= rule;
        continue;
      }
      const before = walk.complete;
      const other = findIdentity(base, pattern, st, walk);
      if (other !== undefined && other !== p.real) return { kind: 'identityDeny', path: p.real, other, rule };
      if (before && !walk.complete) unverified ??= rule;
      if (walk.left < 0) break;
    }
  }
  if (!unverified) return undefined;
  return {
    kind: 'identityUnverified',
    path: p.real,
    links: st.nlink,
    rule: unverified,
    reason: `${p.real} has ${st.nlink} names on disk (hard links), and not all of the files the rule ${formatRule(unverified)} covers could be checked for being one of them.`,
  };
}

/** A refusal links call for (a read of a denied file's other name, a write of a symbolic link), if any. */
export function linkDenial(links: readonly LinkFinding[], callText: string): { decidedBy: string; reasonType: 'rule' | 'other'; message: string } | undefined {
  for (const l of links) {
    if (l.kind === 'identityDeny') {
      return {
        decidedBy: `rule:${formatRule(l.rule)}@${l.rule.source}`,
        reasonType: 'rule',
        message: `Permission to use ${callText} has been denied: ${l.path} is the same file as ${l.other} (a hard link), which the rule ${formatRule(l.rule)} (${l.rule.source}) protects.`,
      };
    }
    // Claude Code's wording (models are trained on it).
    if (l.kind === 'symlinkLeaf') return { decidedBy: 'safetyCheck:symlink', reasonType: 'other', message: `Refusing to write ${l.path}: it is a symbolic link. Write to the link's target path instead: ${l.target}.` };
  }
  return undefined;
}

/** Why links make a call ask whatever would allow it, if they do. `unverified`: bypass mode denies it instead. */
export function linkAsk(links: readonly LinkFinding[]): { reason: string; blockedPath?: string; unverified: boolean } | undefined {
  for (const l of links) {
    if (l.kind === 'carriedOut') {
      return { reason: `${l.path} resolves through a symlink to ${l.target}, which is outside the allowed working directories`, blockedPath: l.target, unverified: false };
    }
    if (l.kind === 'hardLinks') {
      return {
        reason: `${l.path} has ${l.links} names on disk (hard links); the write replaces this name with a new file and the other names keep the old content, so it always needs explicit permission.`,
        unverified: false,
      };
    }
    if (l.kind === 'identityUnverified') return { reason: l.reason, unverified: true };
  }
  return undefined;
}
