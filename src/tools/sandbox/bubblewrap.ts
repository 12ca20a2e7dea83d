// The read-only jail on Linux: bubblewrap (`bwrap`), called directly. What the jailed shell sees:
//  - system directories read-only (/usr, /bin, /sbin, /lib*, /etc, /opt), with the secret-bearing entries of
//    /etc masked (shadow files, ssh host keys, TLS private keys, sudoers);
//  - the working directories read-only, with credential files of the user masked when HOME lies inside one,
//    and the directories on the command's PATH outside the system paths (~/.cargo/bin), never HOME or above;
//  - a private, empty, throw-away /tmp (tmpfs, at most 256 MiB), a minimal /dev, a /proc of its own pid namespace (agentd's
//    /proc/<pid>/environ is not there);
//  - nothing else: HOME, /var, /run, /sys, /root, /mnt, /media and the rest of / do not exist;
//  - no network at all (a network namespace of its own: 127.0.0.1 is the jail's loopback, not the host's);
//  - no capabilities, a new session (no TIOCSTI into a terminal), killed with its parent.
// The only writable things are the files agentd binds on purpose (the shell's cwd file, a background task's
// output file), each one file wide.
//
// Why not @anthropic-ai/sandbox-runtime here: it declares Node ≥ 22.12 (it loads on Node ≥ 20.19 through
// require(esm)), it is a process-wide singleton that starts HTTP and SOCKS proxies even when no network is wanted, it walks the tree with ripgrep
// on every wrap (≈ 40 ms here) and its wrapped `ls` took ≈ 85 ms against ≈ 35 ms for this argv; with
// `denyRead: ["/"]` its own seccomp helper was out of reach and the command did not run. The sandbox issue's
// full feature (write allow-lists, network allow-lists through a proxy) is where it belongs: runtime.ts, which
// takes this jail's place while the `sandbox` settings turn it on.
import { lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { JailScope, ShellJail } from './types.js';

/** Read-only system locations. A missing one is skipped; a symlink (usr-merged /bin → usr/bin) stays a symlink. */
export const SYSTEM_READ_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'] as const;

/** Entries of /etc that hold secrets: hidden (an empty file or directory is mounted over them). */
export const MASKED_SYSTEM_PATHS = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssh',
  '/etc/ssl/private',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/security/opasswd',
  '/etc/krb5.keytab',
  '/etc/agentd',
] as const;

/** Under HOME: credentials of the user and of agentd, hidden when a working directory contains them. */
export const MASKED_HOME_PATHS = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.azure',
  '.kube',
  '.docker',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.config/gh',
  '.config/gcloud',
  '.config/agentd',
  '.claude',
  '.claude.json',
  '.agentd',
] as const;

function kindOf(p: string): 'dir' | 'file' | 'symlink' | undefined {
  try {
    const st = lstatSync(p);
    return st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Hides `p` (a file or a directory) behind an empty one of the same kind. */
function mask(args: string[], p: string): void {
  const target = real(p);
  const k = kindOf(target);
  if (k === 'dir') args.push('--tmpfs', target, '--remount-ro', target);
  else if (k === 'file') args.push('--ro-bind', '/dev/null', target);
}

/** For a directory whose `.git` is a file (`gitdir: …`): that git directory and its common directory. */
function linkedGitDirs(dir: string): string[] {
  let text: string;
  try {
    if (kindOf(join(dir, '.git')) !== 'file') return [];
    text = readFileSync(join(dir, '.git'), 'utf8');
  } catch {
    return [];
  }
  const m = /^gitdir: (.+)$/m.exec(text);
  if (!m?.[1]) return [];
  const gitdir = real(resolve(dir, m[1].trim()));
  if (kindOf(gitdir) !== 'dir') return [];
  let common: string | undefined;
  try {
    common = real(resolve(gitdir, readFileSync(join(gitdir, 'commondir'), 'utf8').trim()));
  } catch {
    return [gitdir]; // not a worktree (a submodule's gitdir has no commondir)
  }
  if (kindOf(common) !== 'dir') return [gitdir];
  // Usually the worktree's git directory lies inside the common one: one bind covers both.
  return inside(common, gitdir) ? [common] : [gitdir, common];
}

/** The private /tmp is memory (tmpfs): capped, so a jailed command cannot exhaust the machine's RAM through it. */
export const TMP_SIZE_BYTES = 256 * 1024 * 1024;

export interface BwrapFeatures {
  /** `--size` (bubblewrap ≥ 0.5) caps the private /tmp; an older bwrap runs without the cap. */
  tmpfsSize: boolean;
}

/** The bwrap arguments (without the program) for one scope. Pure apart from looking at the file system. */
export function bwrapArgs(scope: JailScope, features: BwrapFeatures = { tmpfsSize: true }): string[] {
  const args = [
    '--unshare-all', // user (when possible), ipc, pid, net, uts, cgroup namespaces
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
  ];
  for (const p of SYSTEM_READ_PATHS) {
    const k = kindOf(p);
    if (k === 'symlink') args.push('--symlink', readlinkSync(p), p);
    else if (k) args.push('--ro-bind', p, p);
  }
  args.push('--proc', '/proc', '--dev', '/dev', ...(features.tmpfsSize ? ['--size', String(TMP_SIZE_BYTES)] : []), '--tmpfs', '/tmp');
  // Working directories by their real paths, and by the path as given when that is a symlink to it, so the
  // shell's `cwd` resolves inside the jail either way.
  const roots = [...new Set(scope.readable.map(real))].filter((r) => kindOf(r) === 'dir');
  for (const r of roots) args.push('--ro-bind', r, r);
  for (const given of new Set(scope.readable)) {
    const r = real(given);
    if (given !== r && roots.includes(r) && !roots.some((x) => inside(x, given))) args.push('--symlink', r, given);
  }
  const home = scope.home !== undefined ? real(scope.home) : undefined;
  const bound = (p: string): boolean => roots.some((r) => inside(r, p)) || SYSTEM_READ_PATHS.some((x) => inside(real(x), p));
  const pathDirs: string[] = [];
  for (const dir of new Set((scope.path ?? '').split(':'))) {
    if (!isAbsolute(dir)) continue;
    const r = real(dir);
    if (r === '/' || kindOf(r) !== 'dir' || bound(r) || pathDirs.some((x) => inside(x, r)) || (home !== undefined && inside(r, home))) continue;
    pathDirs.push(r);
    args.push('--ro-bind', r, r);
    if (dir !== r && !bound(dir)) args.push('--symlink', r, dir);
  }
  // A linked worktree's `.git` is a file naming its git directory elsewhere (and that one names the common
  // one): read-only too, or `git status` in a worktree could not find its repository.
  for (const dir of new Set([...roots, real(scope.cwd)])) {
    for (const g of linkedGitDirs(dir)) if (!roots.some((r) => inside(r, g))) args.push('--ro-bind', g, g);
  }
  // Masks go where the path really is, and only where that is visible in the jail (a symlink that leads out
  // of it dangles inside; a mount point under a read-only bind could not be created).
  const system = SYSTEM_READ_PATHS.map(real).filter((x) => kindOf(x) === 'dir');
  for (const p of MASKED_SYSTEM_PATHS) if (system.some((x) => inside(x, real(p)))) mask(args, p);
  const visible = [...roots, ...pathDirs];
  const shown = (p: string): boolean => visible.some((r) => inside(r, real(p)));
  if (home !== undefined && visible.some((r) => inside(r, home) || inside(home, r))) {
    for (const rel of MASKED_HOME_PATHS) if (shown(join(home, rel))) mask(args, join(home, rel));
  }
  for (const p of scope.hidden ?? []) if (shown(p)) mask(args, p);
  for (const f of scope.readableFiles ?? []) if (kindOf(f) === 'file') args.push('--ro-bind', f, f);
  for (const f of scope.writableFiles ?? []) if (kindOf(f) === 'file') args.push('--bind', f, f);
  const cwd = real(scope.cwd);
  if (kindOf(cwd) === 'dir') args.push('--chdir', cwd);
  return args;
}

export function bubblewrapJail(bwrap: string, scope: JailScope, features?: BwrapFeatures): ShellJail {
  const args = bwrapArgs(scope, features);
  return { argv: (inner) => [bwrap, ...args, '--', ...inner] };
}
