// `agentd trust [dir]`: records that the user trusts a folder, exactly as Claude Code records its trust dialog's
// answer — `projects[<folder>].hasTrustDialogAccepted: true` in the global config file — so agentd and Claude Code
// agree on it (config/project-trust.ts reads it). `--revoke` removes the record, `--check` says what covers the
// folder now. The file is replaced atomically with every other key kept (as `agentd mcp add` edits it); a file that
// is not a JSON object is refused, never overwritten.
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { readGlobalConfig } from '../../config/global-config.js';
import { resolveProjectTrust } from '../../config/project-trust.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { parseSubArgs } from './args.js';
import { globalConfigFile } from './global-config.js';
import { SUB_EXIT, type SubExit, type SubcommandIO, UsageError } from './types.js';

export const TRUST_HELP = [
  'Usage: agentd trust [options] [dir]',
  '',
  "Trust a folder (default: the current one) as Claude Code's trust dialog does: records",
  'projects[<folder>].hasTrustDialogAccepted = true in ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json).',
  'In a trusted folder, and in the folders below it up to the root of its git repository, the',
  "repository's hooks, .mcp.json servers, settings env (variables that are data) and helpers apply.",
  'Untrusted, a repository only gives the model context and restricts permissions.',
  '',
  'For one run instead: agentd --trust-workspace (or AGENTD_TRUST_WORKSPACE=1).',
  '',
  'Options:',
  '  --check      Say whether the folder is trusted now, and by which record (exit 0: trusted, 1: not)',
  '  --revoke     Remove the folder\'s own trust record',
  '  -h, --help   Display help for command',
];

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Refusal extends Error {}

function folderOf(arg: string | undefined, io: SubcommandIO): string {
  const dir = resolve(io.cwd, arg ?? '.');
  try {
    if (!statSync(dir).isDirectory()) throw new Refusal(`${dir} is not a directory.`);
    return realpathSync.native(dir);
  } catch (e) {
    if (e instanceof Refusal) throw e;
    throw new Refusal(`${dir} does not exist.`);
  }
}

function run(args: readonly string[], io: SubcommandIO): SubExit {
  const a = parseSubArgs(args, { booleans: ['check', 'revoke'] });
  const out = (lines: readonly string[]): void => void io.stdout.write(`${lines.join('\n')}\n`);
  if (a.flags.has('help')) {
    out(TRUST_HELP);
    return SUB_EXIT.ok;
  }
  if (a.positionals.length > 1) throw new UsageError(`too many arguments for 'trust'. Expected 1 argument but got ${a.positionals.length}.`);
  if (a.flags.has('check') && a.flags.has('revoke')) throw new UsageError("options '--check' and '--revoke' cannot be used together");
  const folder = folderOf(a.positionals[0], io);
  const file = globalConfigFile(io);
  const read = readGlobalConfig(file);
  if (read.kind === 'unreadable') throw new Refusal(`Cannot update ${file}: ${read.message}. Fix or remove it first.`);
  if (read.kind === 'ok' && !isObject(read.value)) throw new Refusal(`Cannot update ${file}: not a JSON object. Fix or remove it first.`);

  if (a.flags.has('check')) {
    const t = resolveProjectTrust({ cwd: folder, home: io.home, globalConfigFile: file, globalConfig: read, flag: false, env: false });
    if (t.kind === 'trusted' && t.by === 'trust_record') {
      out([t.folder === folder ? `${folder} is trusted (its own record in ${file}).` : `${folder} is trusted (by the record of ${t.folder} in ${file}).`]);
      return SUB_EXIT.ok;
    }
    out([`${folder} is not trusted (no record in ${file} covers it). Run \`agentd trust ${folder}\` to trust it.`]);
    return SUB_EXIT.no;
  }

  const root: Json = read.kind === 'ok' && isObject(read.value) ? read.value : {};
  if (!isObject(root['projects'])) root['projects'] = {};
  const projects = root['projects'] as Json;
  const before = projects[folder];
  if (a.flags.has('revoke')) {
    if (!isObject(before) || before['hasTrustDialogAccepted'] !== true) {
      out([`${folder} has no trust record in ${file}; nothing to remove.`]);
      return SUB_EXIT.ok;
    }
    projects[folder] = { ...before, hasTrustDialogAccepted: false };
    save(file, root);
    out([`Removed the trust record of ${folder} (projects[${JSON.stringify(folder)}].hasTrustDialogAccepted = false in ${file}).`]);
    return SUB_EXIT.ok;
  }
  if (isObject(before) && before['hasTrustDialogAccepted'] === true) {
    out([`${folder} is already trusted (${file}).`]);
    return SUB_EXIT.ok;
  }
  projects[folder] = { ...(isObject(before) ? before : {}), hasTrustDialogAccepted: true };
  save(file, root);
  const lines = [`Trusted ${folder}: projects[${JSON.stringify(folder)}].hasTrustDialogAccepted = true in ${file}.`];
  if (folder === realOr(io.home) || folder === '/') lines.push(`Note: agentd counts this record for sessions started in ${folder} itself, not for the folders below it.`);
  out(lines);
  return SUB_EXIT.ok;
}

function realOr(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

function save(file: string, root: Json): void {
  let mode = 0o600;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    // A new file: private, as Claude Code creates it.
  }
  try {
    writeFileAtomic(file, JSON.stringify(root, null, 2), mode);
  } catch (e) {
    throw new Refusal(`Cannot write ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Runs `agentd trust`; refusals are one message on stderr and exit 1. */
export function runTrust(args: readonly string[], io: SubcommandIO): SubExit {
  try {
    return run(args, io);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    io.stderr.write(`${e.message}\n`);
    return SUB_EXIT.no;
  }
}
