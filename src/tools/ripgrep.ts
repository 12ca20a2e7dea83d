// Which ripgrep agentd runs: the one home of @vscode/ripgrep, for Grep, the command sandbox (whose runtime scans
// the working directory with rg for the files it protects) and `agentd doctor`.
//
// agentd ships ripgrep: @vscode/ripgrep depends on a package per platform (@vscode/ripgrep-linux-x64, …) whose npm
// tarball carries the `rg` binary (ripgrep 15.0.0; nothing is downloaded at install, no install script runs), and
// the native executable carries that binary as an asset (scripts/build-native.mjs). So a fresh machine with
// bubblewrap and socat runs the sandbox, and Grep runs ripgrep, without a system `rg`.
//
// The order, and why the shipped one comes first:
//  1. USE_BUILTIN_RIPGREP=0 (or false, no, off — Claude Code's variable and values): an `rg` on PATH, if any;
//  2. the shipped rg, when its platform package is installed (it is an optional dependency: an install with
//     --omit=optional, or a platform without a build, has none);
//  3. an `rg` on PATH;
//  4. none: Grep uses its JavaScript engine, and the sandbox cannot start (it says why).
// The shipped one wins for predictability: one known version, the one Grep's output parsing and the sandbox's
// scan are tested with, on every machine, rather than whatever a distribution packages (Debian 12 has ripgrep
// 13) or whatever program is first named `rg` on the PATH agentd was started with. It is what Claude Code 2.1.330
// does too (measured in its binary: its embedded ripgrep unless USE_BUILTIN_RIPGREP is falsy and an rg is on PATH).
//
// Found lazily, on the first Grep, sandbox start or doctor run, never at start-up; the shipped path is looked up
// once per process (loading @vscode/ripgrep resolves its platform package; that module throws when it is missing).
// node:fs, not node:fs/promises: this module is in the start-up bundle (the sandbox's), and requiring
// node:fs/promises there cost every start ~19 M instructions (init-instructions); the check is one stat, once.
import { accessSync, constants, statSync } from 'node:fs';
import { findOnPath } from '../util/find-on-path.js';

export type RipgrepSource = 'shipped' | 'system';

/** An rg to run, and where it came from. */
export interface Ripgrep {
  source: RipgrepSource;
  /** Absolute path of the binary. */
  command: string;
}

export interface RipgrepChoice {
  /** USE_BUILTIN_RIPGREP is 0/false/no/off: an rg on PATH comes before the shipped one. */
  preferSystem: boolean;
  /** The PATH to look for a system rg on. */
  path: string | undefined;
}

/** The shipped binary's path, as @vscode/ripgrep resolves it (tests substitute a loader). */
export type ShippedLoader = () => Promise<{ rgPath: string }>;

const loadShipped: ShippedLoader = () => import('@vscode/ripgrep');

let shipped: Promise<string | undefined> | undefined;

function executableFile(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The shipped rg, or undefined when its platform package is missing (or its binary is not executable). */
export function shippedRipgrep(load: ShippedLoader = loadShipped): Promise<string | undefined> {
  const find = async (): Promise<string | undefined> => {
    try {
      const { rgPath } = await load();
      return executableFile(rgPath) ? rgPath : undefined;
    } catch {
      // @vscode/ripgrep throws when this platform's package is not installed.
      return undefined;
    }
  };
  if (load !== loadShipped) return find();
  shipped ??= find();
  return shipped;
}

/** The rg to run (see the top for the order), or undefined when there is none. */
export async function findRipgrep(choice: RipgrepChoice, load?: ShippedLoader): Promise<Ripgrep | undefined> {
  const system = (): Ripgrep | undefined => {
    const p = findOnPath('rg', choice.path);
    return p === undefined ? undefined : { source: 'system', command: p };
  };
  if (choice.preferSystem) {
    const s = system();
    if (s) return s;
  }
  const own = await shippedRipgrep(load);
  if (own !== undefined) return { source: 'shipped', command: own };
  return system();
}

/** Why there is no rg, for messages: what was looked for. */
export const NO_RIPGREP = 'ripgrep (rg) not found: neither the one agentd ships (@vscode/ripgrep, whose package for this platform is not installed) nor an rg on PATH';

/** What `rg --version` says first ("ripgrep 15.0.0 (rev …)"), or undefined when it does not run. */
export async function ripgrepVersion(rg: Ripgrep): Promise<string | undefined> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) => {
    execFile(rg.command, ['--version'], { timeout: 5000, encoding: 'utf8' }, (err, stdout) => {
      const first = stdout.split('\n')[0]?.trim();
      resolve(err || !first ? undefined : first);
    });
  });
}
