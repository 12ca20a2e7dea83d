// Does a rule apply to a call? Bash rules are matched per parsed command segment; path rules with gitignore-style
// anchoring against both the written and the real path; WebFetch by domain; MCP by the tool's own server.
import { homedir } from 'node:os';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { normalizeMcpName } from '../util/mcp-names.js';
import type { ResolvedPath } from './paths.js';
import type { PermissionRule } from './rules.js';

/** One simple command of a command line, as the permission engine sees it. */
export interface CommandSegment {
  /** Canonical text (argv after quote removal, wrappers stripped): what allow rules must match. */
  text: string;
  /** Every text deny and ask rules are tried against (the canonical form, and the bare program name form). */
  forms: string[];
  /** False when no allow rule may cover it: no program word, a dynamic program name, sudo/doas, env assignments. */
  coverable: boolean;
  /** Arguments that may name files (operands, option values, redirect targets), for path confinement. */
  paths: string[];
  /**
   * Paths the segment reads as its program's grammar tells (file operands, path-valued options such as
   * `date -f F`, `grep -f F`, `git -C DIR`, `< F` redirects), relative to the shell's directory at that point.
   * For Read deny rules. Absent from analysers that do not know.
   */
  readPaths?: string[];
  /** The grammar understood every word, so readPaths is complete (false: an unknown program may read anything). */
  readsKnown?: boolean;
  /** Paths it writes as far as the analyser sees (output redirects, `sort -o F`, `uniq IN OUT`, `git --output=F`…). */
  writePaths?: string[];
  /** What the path checks of command-paths.ts need (absent from analysers that cannot tell: checks then skip). */
  detail?: SegmentDetail;
}

/** A segment's words and redirects as the shell analyser evaluated them. */
export interface SegmentDetail {
  /** The program name without its directory; '' when the segment has no words; undefined when not static. */
  program: string | undefined;
  /** The words after the program. `dynamic`: its value is only known when the shell runs it (source text kept). */
  args: Array<{ value: string; dynamic: boolean }>;
  /** `<` targets; null when not static. */
  reads: Array<string | null>;
  /** `>`/`>>`/`&>` targets other than /dev/null; null when not static. */
  writes: Array<string | null>;
  /** `NAME=value` prefixes (GIT_DIR…). */
  assignments: string[];
  /** Wrappers that were stripped (xargs appends words the analyser cannot see). */
  wrappers: string[];
  /** The analyser judged this segment read-only. */
  readOnly: boolean;
}

/** The shell analysis the permission engine needs (implemented over tools/shell by the composition root). */
export interface CommandSegments {
  /** False when the parser could not understand the command: such a command is never covered by allow rules. */
  ok: boolean;
  /** Every simple command (in lists, pipelines, substitutions, wrappers…), in order. */
  segments: CommandSegment[];
  /** Every segment is a known read-only command with no redirection, substitution or background. */
  readOnly: boolean;
  /** Why it could not be analysed or is not read-only, for the host's prompt. */
  reasons: string[];
  /** Something may run that the segments do not show (stdin-fed shells, heredocs, dynamic names, failed parse). */
  opaque: boolean;
  /**
   * A program that runs may be one no segment names, or code stored in a value is evaluated (`$X …`,
   * `${x@P}`, `$((x))`, `source f`, `PATH=…`, a failed or doubtful parse): no allow rule covers the command, and a
   * Bash deny rule denies it in every mode (the hidden program may be the denied one).
   */
  mayHideProgram?: boolean;
  /** Some segment changes the directory later segments run in (`cd`, `env -C`): their relative paths are off. */
  changesDirectory?: boolean;
}

export interface CommandAnalyzer {
  analyze(command: string): Promise<CommandSegments>;
}

/** Tools Read rules cover (ReadMcpResourceTool: for a `file:` resource, which is a read of that file). */
export const READ_TOOLS: ReadonlySet<string> = new Set(['Read', 'Glob', 'Grep', 'NotebookRead', 'LS', 'ReadMcpResourceTool']);
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'NotebookEdit', 'MultiEdit']);

/**
 * Does a rule's tool name (`mcp__server`, `mcp__server__*`, `mcp__server__tool`) name this MCP tool? The tool's
 * name is `mcp__<server>__<tool>` and a server's name may itself hold `__`, so the name alone is ambiguous; the
 * tool's own server (`mcpServer`, as configured) decides, as in Claude Code 2.1.330 (measured: for a server
 * `h__x`, `mcp__h__*` and `mcp__h` do not allow its tools, `mcp__h__x__*` does; `mcp__h__x` names tool `x` of
 * server `h`, not the server). A rule that only restricts (`lenient`: deny, ask) also matches by the name's
 * prefix, so `mcp__h__*` still denies `h__x`'s tools (Claude Code removes them too). Without a known server the
 * name is read as Claude Code parses it: the server ends at the first `__`.
 */
function mcpRuleNamesTool(ruleName: string, toolName: string, mcpServer: string | undefined, lenient: boolean): boolean {
  if (!toolName.startsWith('mcp__')) return false;
  const wildcard = ruleName.endsWith('__*');
  const serverPart = wildcard ? ruleName.slice('mcp__'.length, -'__*'.length) : ruleName.slice('mcp__'.length);
  if (lenient && toolName.startsWith(`mcp__${serverPart}__`)) return true;
  // Server-wide rules: `mcp__server__*`, and `mcp__server` when the server part holds no `__`.
  if (!wildcard && serverPart.includes('__')) return false;
  const server = mcpServer !== undefined ? normalizeMcpName(mcpServer) : toolName.slice('mcp__'.length).split('__')[0];
  return serverPart === server;
}

/**
 * The tool-name part of a rule applies to this tool. `mcpServer`: the MCP tool's server; `lenient`: the rule only
 * restricts (deny, ask), so an ambiguous MCP name counts as a match.
 */
export function ruleNamesTool(rule: PermissionRule, toolName: string, subjectKind: string, mcpServer?: string, lenient = false): boolean {
  if (rule.toolName === toolName) return true;
  if (rule.toolName.startsWith('mcp__')) return mcpRuleNamesTool(rule.toolName, toolName, mcpServer, lenient);
  // Read rules cover every reading tool (Glob, Grep…); Edit (and Write) rules every editing tool, bare or not.
  if (rule.toolName === 'Read' && subjectKind === 'read' && READ_TOOLS.has(toolName)) return true;
  if ((rule.toolName === 'Edit' || rule.toolName === 'Write') && subjectKind === 'write' && EDIT_TOOLS.has(toolName)) return true;
  return false;
}

/**
 * The tools a whole-tool deny rule (`Bash`, `WebFetch`, `Bash(*)`, `mcp__srv`: no specifier) takes out of the
 * session, from whichever layer it comes (managed policy, user, project, local, --settings, --disallowedTools).
 * Claude Code 2.1.330 offers such a tool to no request, the main loop's or a subagent's, leaves it out of
 * system/init.tools, and answers a call of it with "No such tool available"; a bare `Edit` or `Read` takes only
 * that tool, not the others its rules cover (test/measure/deny-removes-tool.measure.ts). Judged on the rules at
 * start-up: a deny the host adds later refuses calls and leaves the tool offered, as in Claude Code.
 */
export function withheldByDeny(rules: readonly PermissionRule[]): (toolName: string) => boolean {
  const whole = rules.filter((r) => r.behavior === 'deny' && r.ruleContent === undefined);
  return (toolName) => whole.some((r) => ruleNamesTool(r, toolName, 'none'));
}

function escapeRegex(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** Bash rule content vs one canonical segment: `cmd:*` prefix (word boundary), `*` wildcards, or exact. */
export function bashContentMatches(content: string, segment: string): boolean {
  const seg = segment.trim();
  if (content.endsWith(':*')) {
    const prefix = content.slice(0, -2).trim();
    return seg === prefix || seg.startsWith(`${prefix} `);
  }
  if (content.includes('*')) {
    const body = content.split('*').map(escapeRegex).join('.*');
    if (new RegExp(`^${body}$`, 's').test(seg)) return true;
    // `git *` also covers a bare `git`.
    if (content.endsWith(' *')) return seg === content.slice(0, -2).trim();
    return false;
  }
  return seg === content.trim();
}

const GLOB_CHARS = /[*?[\]{}!]/;

/** Absolute glob for a Read/Edit rule specifier (anchoring rules of protocol.md §6.5). */
export function pathPattern(content: string, baseDir: string, cwd: string): string {
  // Decided on the rule as written: anchoring adds a `**` of its own to bare names.
  const plain = !GLOB_CHARS.test(content.replace(/\/$/, ''));
  let p: string;
  if (content.startsWith('//')) p = content.slice(1);
  else if (content.startsWith('~/')) p = join(homedir(), content.slice(2));
  else if (content.startsWith('/')) p = join(baseDir, content);
  else if (content.startsWith('./')) p = join(cwd, content.slice(2));
  else if (!content.replace(/\/$/, '').includes('/')) p = join(cwd, '**', content); // gitignore: any depth
  else p = join(cwd, content);
  if (p.endsWith('/')) return `${p}**`;
  // A plain path (no glob) covers the path itself and everything under it.
  return plain ? `${p}{,/**}` : p;
}

const matcherCache = new Map<string, (s: string) => boolean>();
function globMatch(pattern: string, path: string): boolean {
  let m = matcherCache.get(pattern);
  if (!m) {
    m = picomatch(pattern, { dot: true });
    if (matcherCache.size > 1000) matcherCache.clear();
    matcherCache.set(pattern, m);
  }
  return m(path);
}

/** Whether a glob matches a string (dot files included). */
export function globMatches(pattern: string, s: string): boolean {
  return globMatch(pattern, s);
}

/** The directory a glob's matches all lie under (its literal leading part). */
export function globBase(pattern: string): string {
  return picomatch.scan(pattern).base || '/';
}

export function pathRuleMatches(rule: PermissionRule, p: string, cwd: string): boolean {
  if (rule.ruleContent === undefined) return true;
  return globMatch(pathPattern(rule.ruleContent, rule.baseDir, cwd), p);
}

/** For deny/ask: either form of the path matching is enough. */
export function pathRuleMatchesEither(rule: PermissionRule, p: ResolvedPath, cwd: string): boolean {
  return pathRuleMatches(rule, p.asWritten, cwd) || pathRuleMatches(rule, p.real, cwd);
}

/** For allow: both forms must match, so a symlink cannot widen an allow rule. */
export function pathRuleMatchesBoth(rule: PermissionRule, p: ResolvedPath, cwd: string): boolean {
  return pathRuleMatches(rule, p.asWritten, cwd) && pathRuleMatches(rule, p.real, cwd);
}

export function webFetchRuleMatches(rule: PermissionRule, url: string): boolean {
  if (rule.ruleContent === undefined) return true;
  const m = /^domain:(.+)$/.exec(rule.ruleContent.trim());
  if (!m) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  const domain = (m[1] as string).toLowerCase();
  return host === domain || host.endsWith(`.${domain}`);
}
