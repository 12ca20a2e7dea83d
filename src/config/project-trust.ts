// Whether the user trusts the repository a session starts in: decided once, at start-up, into one typed value.
// Until it is trusted, what the repository carries is data: it may give the model context (CLAUDE.md, commands,
// skills, agents) and restrict permissions (deny and ask rules), but nothing it carries runs (hooks, helpers, MCP
// servers), widens access or receives a secret (README "Security").
//
// Trusted means one of:
//  - the user accepted the folder as Claude Code records it: `projects[<folder>].hasTrustDialogAccepted: true` in
//    the global config file, for the working directory or, as Claude Code 2.1.330 checks (its trust walk, read
//    from the binary), for a folder above it up to the root of its git repository (to the filesystem root outside
//    one). `agentd trust [dir]` records exactly that. agentd does not count a record of the home directory or of
//    `/` for the folders below them (one would trust every folder on the machine that is not in a repository);
//    such a record still counts for that folder itself;
//  - the host says so for this run: `--trust-workspace` (Claude Code's flag for "trust the current folder for this
//    run only", on its runner and `ultrareview`), or AGENTD_TRUST_WORKSPACE=1 for CI.
// A global config file that cannot be read or parsed trusts nothing (fails closed) and is reported.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, parse } from 'node:path';
import type { GlobalConfigRead } from './global-config.js';

export type ProjectTrust =
  | { kind: 'trusted'; by: 'trust_record'; folder: string; file: string }
  | { kind: 'trusted'; by: 'flag' | 'env' }
  | {
      kind: 'untrusted';
      /** The folder a trust record would name (the working directory's real path). */
      folder: string;
      /** The global config file where such a record lives. */
      file: string;
      /** Why the file could not be consulted, when it could not. */
      unreadable?: string;
    };

export interface TrustInput {
  cwd: string;
  home: string;
  globalConfigFile: string;
  globalConfig: GlobalConfigRead;
  /** `--trust-workspace`. */
  flag: boolean;
  /** AGENTD_TRUST_WORKSPACE=1. */
  env: boolean;
}

function realOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function accepted(projects: unknown, folder: string): boolean {
  if (typeof projects !== 'object' || projects === null || Array.isArray(projects) || !Object.hasOwn(projects, folder)) return false;
  const rec: unknown = (projects as Record<string, unknown>)[folder];
  return typeof rec === 'object' && rec !== null && (rec as Record<string, unknown>)['hasTrustDialogAccepted'] === true;
}

/**
 * The folder whose trust record covers `cwd`, if any: `cwd` itself (as given or its real path), else the nearest
 * folder above it with a record, walking up to the root of its git repository inclusive (to `/` outside one),
 * skipping the home directory and `/`.
 */
export function trustRecordFor(projects: unknown, cwd: string, home: string): string | undefined {
  if (accepted(projects, cwd)) return cwd;
  const real = realOr(cwd);
  if (real !== cwd && accepted(projects, real)) return real;
  const top = parse(real).root;
  const homeReal = realOr(home);
  let dir = real;
  // The walk stops after the git root: a record above the repository does not reach into it (Claude Code's bound).
  while (!existsSync(join(dir, '.git')) && dir !== top) {
    const up = dirname(dir);
    if (up !== top && up !== home && up !== homeReal && accepted(projects, up)) return up;
    dir = up;
  }
  return undefined;
}

export function resolveProjectTrust(i: TrustInput): ProjectTrust {
  if (i.flag) return { kind: 'trusted', by: 'flag' };
  if (i.env) return { kind: 'trusted', by: 'env' };
  const folder = realOr(i.cwd);
  const g = i.globalConfig;
  if (g.kind === 'unreadable') return { kind: 'untrusted', folder, file: i.globalConfigFile, unreadable: g.message };
  const projects = g.kind === 'ok' && typeof g.value === 'object' && g.value !== null ? (g.value as Record<string, unknown>)['projects'] : undefined;
  const by = projects === undefined ? undefined : trustRecordFor(projects, i.cwd, i.home);
  return by === undefined ? { kind: 'untrusted', folder, file: i.globalConfigFile } : { kind: 'trusted', by: 'trust_record', folder: by, file: i.globalConfigFile };
}

/** What a message about something skipped tells the user to do. */
export function howToTrust(t: Extract<ProjectTrust, { kind: 'untrusted' }>): string {
  const fix = t.unreadable !== undefined ? `${t.file} cannot be read (${t.unreadable}), so no trust record counts; fix it, or ` : '';
  return `${fix}trust the repository: run \`agentd trust ${t.folder}\` (or accept Claude Code's trust dialog there), or start agentd with --trust-workspace (AGENTD_TRUST_WORKSPACE=1) for one run`;
}
