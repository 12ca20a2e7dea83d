// The permission decision for one call, before anyone is asked. Order (first that applies wins):
//  1. a matching deny rule (beats everything: hooks, allow rules, bypass mode)
//  2. a PreToolUse hook's deny
//  3. bypassPermissions mode: allow (but a managed policy ask rule still asks)
//  4. a matching ask rule (beats allow rules and a hook's allow)
//  (safety checks turn any allow of steps 5-7 into an ask: writes of files that configure programs that run code
//  (.git/, .claude/, .mcp.json, .envrc… protected.ts; any repository, nested ones and bare git directories too) by
//  the file tools or a shell command; git in a repository that is not the project's own; a shell command that may
//  read under a Read-denied path unseen, which bypass mode denies; a written file with other names or a written
//  path that lands outside the working directories, a read whose other names cannot be checked against the Read
//  deny rules (links.ts))
//  (a read of another name of a Read-denied file is denied with the deny rules; a write of a symbolic link is
//  refused in every mode)
//  5. a hook's allow / ask
//  6. matching allow rules (for Bash: every parsed segment must be covered; an unparsable command never is)
//  7. the mode's defaults (plan: read-only only; reads and read-only commands inside the working directories
//     are allowed; acceptEdits: edits inside them are allowed; everything else asks)
// Paths outside the working directories need explicit permission in every mode but bypass.
// Rule paths (`./x`, `x/**`, `x`) anchor to the project (the session's original cwd; deny and ask rules also to
// each --add-dir), never to the directory a shell `cd` moved to; Read deny rules also apply to the files a shell
// command names (command-paths.ts).
import type { HookPermissionDecision } from '../tools/call-ports.js';
import type { AnyTool, Approval, PermissionSubject, SharedToolContext } from '../tools/tool.js';
import {
  type CommandAnalyzer,
  type CommandSegments,
  bashContentMatches,
  pathPattern,
  pathRuleMatches,
  pathRuleMatchesBoth,
  pathRuleMatchesEither,
  ruleNamesTool,
  webFetchRuleMatches,
} from './match.js';
import type { PermissionModeName } from './modes.js';
import { type Suggestion, howToAllow, suggestionsFor } from './advice.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type CommandPathFinding, checkCommandPaths, protectedDirOf, searchReachesDenied } from './command-paths.js';
import { type LinkFinding, linkAsk, linkDenial, readIdentityFinding, writeLinkFindings } from './links.js';
import { type ResolvedPath, insideWorkingDirs, resolveToolPath, workingDirs } from './paths.js';
import { type PermissionRule, type RuleSet, describeRule, formatRule } from './rules.js';

/** Tools that read the content of every file under the path they are given. */
const CONTENT_SEARCH: ReadonlySet<string> = new Set(['Grep']);

export type { Suggestion };

export type ReasonType = 'rule' | 'mode' | 'hook' | 'subcommandResults' | 'workingDir' | 'safetyCheck' | 'sandboxOverride' | 'other';


export type Decision =
  | { behavior: 'allow'; decidedBy: string; reasonType: ReasonType; approval: Approval; pinnedRealPath?: string }
  | { behavior: 'deny'; decidedBy: string; reasonType: ReasonType; message: string }
  | {
      behavior: 'ask';
      decidedBy: string;
      reasonType: ReasonType;
      reason: string;
      blockedPath?: string;
      suggestions: Suggestion[];
      /** For non-interactive denials: what would allow this call. */
      howToAllow: string;
      pinnedRealPath?: string;
    };

export interface DecisionInput {
  tool: AnyTool;
  input: Record<string, unknown>;
  hook: HookPermissionDecision | undefined;
  shared: SharedToolContext;
  mode: PermissionModeName;
  rules: RuleSet;
  analyzer: CommandAnalyzer;
  /**
   * Why a command the analyser judged read-only may not run unasked after all (the read-only sandbox is
   * required but unavailable), or undefined. Consulted only for such commands.
   */
  readOnlyAutoApprovalBlocked?: () => Promise<string | undefined>;
  /**
   * `sandbox.autoAllowBashIfSandboxed`: true when this shell command will run inside the running command
   * sandbox. Consulted after deny and ask rules; the safety checks still ask.
   */
  sandboxAutoAllow?: (input: Record<string, unknown>, command: CommandSegments) => boolean;
  /** The project: the session's original cwd (default: shared.cwd). Rule paths anchor here, not at a later cd. */
  projectDir?: string;
  /** The project's git directory when the session started (real path), null when none; undefined: not known. */
  trustedGitDir?: string | null;
  /** The project repository's hooks directories outside .git (core.hooksPath, e.g. .husky): protected too. */
  hooksDirs?: readonly string[];
}

interface Facts {
  subject: PermissionSubject;
  path?: ResolvedPath;
  inside?: boolean;
  command?: CommandSegments;
  /** Path findings for a shell command (command-paths.ts). */
  commandPaths: CommandPathFinding[];
  /** What symbolic and hard links mean for a file tool's path (links.ts). */
  links: LinkFinding[];
  callText: string;
}

/** The project directory, and the directories relative rule paths anchor to (project first). */
function projectOf(d: DecisionInput): string {
  return d.projectDir ?? d.shared.cwd;
}

function anchorsOf(d: DecisionInput): string[] {
  const project = projectOf(d);
  return [project, ...d.shared.additionalDirectories.map((x) => resolve(project, x))];
}

function dirsOf(d: DecisionInput): ResolvedPath[] {
  return workingDirs(projectOf(d), d.shared.additionalDirectories);
}

async function gatherFacts(d: DecisionInput): Promise<Facts> {
  let subject: PermissionSubject;
  try {
    subject = d.tool.permissionSubject?.(d.input, d.shared) ?? { kind: 'none' };
  } catch {
    subject = { kind: 'none' };
  }
  const f: Facts = { subject, callText: d.tool.name, commandPaths: [], links: [] };
  if (subject.kind === 'read' || subject.kind === 'write') {
    f.path = resolveToolPath(subject.path, d.shared.cwd);
    f.inside = insideWorkingDirs(f.path, dirsOf(d));
    f.callText = `${d.tool.name}(${subject.path})`;
    if (subject.kind === 'write') f.links = writeLinkFindings(subject.path, f.path, d.shared.cwd, dirsOf(d));
    else f.links = [readIdentityFinding(f.path, d.rules.byBehavior('deny').filter((r) => r.toolName === 'Read'), anchorsOf(d))].filter((x) => x !== undefined);
  } else if (subject.kind === 'command') {
    f.command = await d.analyzer.analyze(subject.command);
    f.callText = `${d.tool.name}(${subject.command})`;
    const denyRules = d.rules.byBehavior('deny');
    f.commandPaths = checkCommandPaths(f.command, subject.command, {
      cwd: d.shared.cwd,
      anchors: anchorsOf(d),
      readDeny: denyRules.filter((r) => r.toolName === 'Read'),
      editDeny: denyRules.filter((r) => r.toolName === 'Edit' || r.toolName === 'Write'),
      trustedGitDir: d.trustedGitDir === undefined ? null : d.trustedGitDir,
      hooksDirs: d.hooksDirs ?? [],
    });
    // Without knowledge of the project's repository (a caller that did not say) git is not judged.
    if (d.trustedGitDir === undefined) f.commandPaths = f.commandPaths.filter((x) => x.kind !== 'git');
  }
  // Content search (Grep) over a directory holding a Read-denied path would read it: ask like a shell grep -r.
  if (subject.kind === 'read' && f.path && CONTENT_SEARCH.has(d.tool.name)) {
    const hit = searchReachesDenied(f.path, d.rules.byBehavior('deny').filter((r) => r.toolName === 'Read'), anchorsOf(d), d.tool.name);
    if (hit) f.commandPaths = [hit];
  }
  if (subject.kind === 'fetch') f.callText = `${d.tool.name}(${subject.url})`;
  return f;
}

function applies(rule: PermissionRule, d: DecisionInput, f: Facts, mode: 'any' | 'all'): boolean {
  if (!ruleNamesTool(rule, d.tool.name, f.subject.kind, d.tool.mcpServer?.name, mode === 'any')) return false;
  if (rule.ruleContent === undefined) return true;
  const s = f.subject;
  if ((s.kind === 'read' || s.kind === 'write') && f.path) {
    // Deny and ask rules anchor at the project and every --add-dir; allow rules at the project only.
    const path = f.path;
    return mode === 'any' ? anchorsOf(d).some((a) => pathRuleMatchesEither(rule, path, a)) : pathRuleMatchesBoth(rule, path, projectOf(d));
  }
  if (s.kind === 'command') {
    const segs = f.command?.segments ?? [];
    // deny/ask: the raw command or any segment. (Allow coverage is checked per segment by the caller.)
    return bashContentMatches(rule.ruleContent, s.command) || segs.some((seg) => seg.forms.some((form) => bashContentMatches(rule.ruleContent as string, form)));
  }
  if (s.kind === 'fetch') return webFetchRuleMatches(rule, s.url);
  // `Skill(name)`: the rule names the skill exactly.
  if (s.kind === 'session') return s.content !== undefined && rule.ruleContent === s.content;
  return false;
}

/** Allow coverage for a command: every segment covered by some allow rule. */
function commandCovered(rules: readonly PermissionRule[], d: DecisionInput, f: Facts): PermissionRule[] | undefined {
  const named = rules.filter((r) => ruleNamesTool(r, d.tool.name, 'command'));
  const whole = named.find((r) => r.ruleContent === undefined);
  // Writes into .git/, .claude/ or .agentd/ always ask, whatever allow rule matches (`sort --o=.git/config`,
  // `echo … > .git/hooks/x`, `git log --output=.git/x`: the analyser's write paths).
  if (f.command?.segments.some((seg) => (seg.writePaths ?? []).some((w) => protectedDirOf(resolveToolPath(w, d.shared.cwd), undefined, d.hooksDirs)))) return undefined;
  if (whole) {
    // A whole-tool allow next to specific deny/ask rules only holds when every command that will run is visible;
    // otherwise a denied command could hide in a heredoc, a stdin-fed shell or a dynamic name.
    const specific = d.rules.all().some((r) => r.behavior !== 'allow' && r.ruleContent !== undefined && ruleNamesTool(r, d.tool.name, 'command'));
    if (specific && (f.command?.opaque ?? true)) return undefined;
    return [whole];
  }
  const c = f.command;
  if (!c || !c.ok || c.segments.length === 0 || c.mayHideProgram) return undefined;
  const used: PermissionRule[] = [];
  for (const seg of c.segments) {
    if (!seg.coverable) return undefined;
    const r = named.find((x) => x.ruleContent !== undefined && bashContentMatches(x.ruleContent, seg.text));
    if (!r) return undefined;
    if (!used.includes(r)) used.push(r);
  }
  return used;
}

type DenyDecision = Extract<Decision, { behavior: 'deny' }>;

/** Step 1: the deny rules (a matching rule, a path a command names, a program a command may hide). */
function ruleDenial(d: DecisionInput, f: Facts): DenyDecision | undefined {
  const denyRule = d.rules.byBehavior('deny').find((r) => applies(r, d, f, 'any'));
  if (denyRule) {
    return { behavior: 'deny', decidedBy: `rule:${describeRule(denyRule)}`, reasonType: 'rule', message: `Permission to use ${f.callText} has been denied by the rule ${formatRule(denyRule)} (${denyRule.source}).` };
  }
  const pathDeny = f.commandPaths.find((x) => x.kind === 'deny');
  if (pathDeny) {
    return {
      behavior: 'deny',
      decidedBy: `rule:${describeRule(pathDeny.rule)}`,
      reasonType: 'rule',
      message: `Permission to use ${f.callText} has been denied: it names ${pathDeny.path}, which the rule ${formatRule(pathDeny.rule)} (${pathDeny.rule.source}) protects.`,
    };
  }
  const linkDeny = linkDenial(f.links, f.callText);
  if (linkDeny) return { behavior: 'deny', ...linkDeny };
  // A command that may run a program no segment names cannot be shown not to run a denied one ("deny beats
  // bypass" must hold for `X=rm; $X …`, `${y@P}`, `source f`…).
  if (f.subject.kind === 'command' && (f.command?.mayHideProgram ?? !f.command?.ok)) {
    const bashDeny = d.rules.byBehavior('deny').find((r) => r.ruleContent !== undefined && ruleNamesTool(r, d.tool.name, 'command'));
    if (bashDeny) {
      return {
        behavior: 'deny',
        decidedBy: `rule:${describeRule(bashDeny)}`,
        reasonType: 'rule',
        message: `Permission to use ${f.callText} has been denied: what it runs cannot be seen before it runs (${f.command?.reasons[0] ?? 'hidden program'}), so it may run a program the rule ${formatRule(bashDeny)} (${bashDeny.source}) denies.`,
      };
    }
  }
  return undefined;
}

/**
 * The deny rules alone (step 1 of `decide`), for an input the host or a PermissionRequest hook rewrote after the
 * call was allowed: whoever approved the call, a rewrite cannot reach what a deny rule protects.
 */
export async function denialOf(d: DecisionInput): Promise<DenyDecision | undefined> {
  return ruleDenial(d, await gatherFacts(d));
}

export async function decide(d: DecisionInput): Promise<Decision> {
  const f = await gatherFacts(d);
  const pinned = f.path ? { pinnedRealPath: f.path.real } : {};
  const denied = ruleDenial(d, f);
  if (denied) return denied;
  if (d.hook?.behavior === 'deny') {
    return { behavior: 'deny', decidedBy: `hook:${d.hook.source}`, reasonType: 'hook', message: d.hook.reason ?? `Denied by a PreToolUse hook (${d.hook.source}).` };
  }
  const unseen = f.commandPaths.find((x) => x.kind === 'unseenRead');
  const ask = (decidedBy: string, reasonType: ReasonType, reason: string): Decision => ({
    behavior: 'ask',
    decidedBy,
    reasonType,
    reason,
    ...(f.path && !f.inside ? { blockedPath: f.path.real } : {}),
    suggestions: suggestionsFor({ toolName: d.tool.name, ...f }),
    howToAllow: howToAllow({ toolName: d.tool.name, ...f }),
    ...pinned,
  });

  if (d.mode === 'bypassPermissions') {
    // The managed policy's ask rules bind bypass mode too: no mode loosens the policy.
    const policyAsk = d.rules.byBehavior('ask').find((r) => r.source === 'policySettings' && applies(r, d, f, 'any'));
    if (policyAsk) return ask(`rule:${describeRule(policyAsk)}`, 'rule', `The managed policy rule ${formatRule(policyAsk)} requires asking, in every mode.`);
    // Nobody is asked in bypass mode, and a Read deny rule is the user's explicit word: a command that may read
    // under it unseen is denied rather than run.
    if (unseen) return { behavior: 'deny', decidedBy: `rule:${describeRule(unseen.rule)}`, reasonType: 'rule', message: `Permission to use ${f.callText} has been denied: ${unseen.reason}` };
    const link = linkAsk(f.links);
    if (link?.unverified) return { behavior: 'deny', decidedBy: 'safetyCheck:hardLink', reasonType: 'safetyCheck', message: `Permission to use ${f.callText} has been denied: ${link.reason}` };
    return { behavior: 'allow', decidedBy: 'mode:bypassPermissions', reasonType: 'mode', approval: { by: 'mode' }, ...pinned };
  }

  const askRule = d.rules.byBehavior('ask').find((r) => applies(r, d, f, 'any'));
  if (askRule) return ask(`rule:${describeRule(askRule)}`, 'rule', `The rule ${formatRule(askRule)} (${askRule.source}) requires asking.`);
  // Safety checks: whatever would allow the call (a hook, an allow rule, the mode) asks instead.
  const safetyAsk = (): Decision | undefined => {
    const guarded = f.subject.kind === 'write' && f.path ? protectedDirOf(f.path, undefined, d.hooksDirs) : undefined;
    if (guarded) return ask('safetyCheck', 'safetyCheck', `${f.path?.real ?? ''} is ${guarded}, which configures programs that run code; changing it always needs explicit permission.`);
    const safety = f.commandPaths.find((x) => x.kind === 'protected' || x.kind === 'git');
    if (safety && (safety.kind === 'protected' || safety.kind === 'git')) return ask('safetyCheck', 'safetyCheck', safety.reason);
    const link = linkAsk(f.links);
    if (link) return { ...(ask('safetyCheck', 'safetyCheck', link.reason) as Extract<Decision, { behavior: 'ask' }>), ...(link.blockedPath !== undefined ? { blockedPath: link.blockedPath } : {}) };
    if (unseen) return ask(`rule:${describeRule(unseen.rule)}`, 'rule', unseen.reason);
    return undefined;
  };
  const checked = (x: Decision): Decision => (x.behavior === 'allow' ? (safetyAsk() ?? x) : x);
  if (d.hook?.behavior === 'allow') return checked({ behavior: 'allow', decidedBy: `hook:${d.hook.source}`, reasonType: 'hook', approval: { by: 'hook' }, ...pinned });
  if (d.hook?.behavior === 'ask') return ask(`hook:${d.hook.source}`, 'hook', d.hook.reason ?? 'A PreToolUse hook asked for confirmation.');

  // An MCP tool asks in plan mode, as in Claude Code (whatever its annotations say): the host may let it run.
  if (d.mode === 'plan' && !isReadOnlyCall(d, f) && !d.tool.mcpServer) {
    return { behavior: 'deny', decidedBy: 'mode:plan', reasonType: 'mode', message: `${d.tool.name} is not allowed in plan mode (read-only exploration). Present your plan instead.` };
  }
  const allowRules = d.rules.byBehavior('allow');
  if (f.subject.kind === 'command') {
    const covered = commandCovered(allowRules, d, f);
    if (covered) return checked({ behavior: 'allow', decidedBy: `rule:${covered.map(describeRule).join('+')}`, reasonType: covered.length > 1 ? 'subcommandResults' : 'rule', approval: { by: 'rule' } });
  } else {
    const allowRule = allowRules.find((r) => applies(r, d, f, 'all'));
    if (allowRule) return checked({ behavior: 'allow', decidedBy: `rule:${describeRule(allowRule)}`, reasonType: 'rule', approval: { by: 'rule' }, ...pinned });
  }
  if (f.subject.kind === 'command' && f.command && d.mode !== 'plan' && d.sandboxAutoAllow?.(d.input, f.command)) {
    return checked({ behavior: 'allow', decidedBy: 'sandbox:autoAllowBashIfSandboxed', reasonType: 'sandboxOverride', approval: { by: 'sandbox' } });
  }
  const byMode = modeDefault(d, f, ask, pinned);
  // A write into a protected directory reports why it asks, whatever the mode would have said.
  if (byMode.behavior === 'ask' && f.subject.kind === 'write' && f.inside) return safetyAsk() ?? byMode;
  const result = checked(byMode);
  if (result.behavior === 'allow' && result.approval.by === 'read-only-analysis') {
    const blocked = await d.readOnlyAutoApprovalBlocked?.();
    if (blocked) return ask('sandbox:required', 'safetyCheck', blocked);
  }
  return result;
}

function isReadOnlyCall(d: DecisionInput, f: Facts): boolean {
  if (f.subject.kind === 'session') return true;
  if (f.subject.kind === 'command') return f.command?.readOnly === true;
  if (f.subject.kind === 'write') return false;
  try {
    return d.tool.isReadOnly(d.input) === true;
  } catch {
    return false;
  }
}

/** A read-only command is auto-allowed only if every path it names is inside the working directories. */
function commandPathOutside(d: DecisionInput, f: Facts): string | undefined {
  const dirs = dirsOf(d);
  for (const seg of f.command?.segments ?? []) {
    for (const cand of seg.paths) {
      const looksLikePath = cand.startsWith('/') || cand.startsWith('~') || cand.split('/').includes('..') || existsSync(resolve(d.shared.cwd, cand));
      if (!looksLikePath) continue;
      const p = resolveToolPath(cand, d.shared.cwd);
      if (!insideWorkingDirs(p, dirs)) return p.real;
    }
  }
  return undefined;
}

/**
 * Read deny rules against what a read-only command reads (stopgap on the shell side; the permission side of
 * read deny rules is being reworked separately): a read path a Read deny rule matches, or a directory that
 * holds denied files (a recursive read would reach them), means the command is not auto-approved.
 */
function commandReadDenied(d: DecisionInput, f: Facts): string | undefined {
  const denies = d.rules.byBehavior('deny').filter((r) => r.toolName === 'Read' && r.ruleContent !== undefined);
  if (!denies.length) return undefined;
  if (f.command?.changesDirectory) return d.shared.cwd;
  for (const seg of f.command?.segments ?? []) {
    for (const cand of seg.readPaths ?? seg.paths) {
      const p = resolveToolPath(cand, d.shared.cwd);
      for (const r of denies) {
        if (pathRuleMatches(r, p.asWritten, d.shared.cwd) || pathRuleMatches(r, p.real, d.shared.cwd)) return p.real;
        // The denied pattern's fixed part lies under this path: reading the directory may reach it.
        const fixed = pathPattern(r.ruleContent as string, r.baseDir, d.shared.cwd).split(/[*?[{]/)[0] as string;
        for (const form of [p.asWritten, p.real]) if (fixed.startsWith(`${form.replace(/\/+$/, '')}/`) || fixed === form) return p.real;
      }
    }
  }
  return undefined;
}

function modeDefault(d: DecisionInput, f: Facts, ask: (by: string, t: ReasonType, reason: string) => Decision, pinned: { pinnedRealPath?: string }): Decision {
  const s = f.subject;
  let readOnly = false;
  try {
    readOnly = d.tool.isReadOnly(d.input) === true;
  } catch {
    readOnly = false;
  }
  if (s.kind === 'session') return { behavior: 'allow', decidedBy: `mode:${d.mode}:session-state`, reasonType: 'mode', approval: { by: 'mode' } };
  switch (s.kind) {
    case 'read':
      if (f.inside) return { behavior: 'allow', decidedBy: `mode:${d.mode}`, reasonType: 'mode', approval: { by: 'mode' }, ...pinned };
      return ask('workingDir', 'workingDir', `${f.path?.real ?? s.path} is outside the working directories.`);
    case 'write': {
      if (!f.inside) return ask('workingDir', 'workingDir', `${f.path?.real ?? s.path} is outside the working directories; writing there needs explicit permission.`);
      if (d.mode === 'acceptEdits') return { behavior: 'allow', decidedBy: 'mode:acceptEdits', reasonType: 'mode', approval: { by: 'mode' }, ...pinned };
      return ask(`mode:${d.mode}`, 'mode', `${d.tool.name} changes files; the ${d.mode} mode asks first.`);
    }
    case 'command':
      if (f.command?.ok && f.command.readOnly) {
        const follows = f.commandPaths.find((x) => x.kind === 'followsSymlinks');
        if (follows) return ask('workingDir', 'workingDir', follows.reason);
        // git finds a repository in the working directory itself when it has no .git but looks like a bare
        // repository (HEAD, objects/, refs/): files the model can write, whose config can run programs.
        if (f.command.segments.some((seg) => /^git( |$)/.test(seg.text)) && !existsSync(join(d.shared.cwd, '.git')) && existsSync(join(d.shared.cwd, 'HEAD'))) {
          return ask('gitDir', 'safetyCheck', `${d.shared.cwd} looks like a bare git repository whose configuration could run programs.`);
        }
        const denied = commandReadDenied(d, f);
        if (denied) return ask('readDeny', 'rule', `${denied} is or holds a path a Read deny rule covers.`);
        const outside = commandPathOutside(d, f);
        if (outside) return { ...(ask('workingDir', 'workingDir', `${outside} is outside the working directories.`) as Extract<Decision, { behavior: 'ask' }>), blockedPath: outside };
        return { behavior: 'allow', decidedBy: `mode:${d.mode}:read-only-command`, reasonType: 'subcommandResults', approval: { by: 'read-only-analysis' } };
      }
      if (!f.command?.ok) return ask('analysis', 'other', f.command?.reasons[0] ?? 'This command cannot be analysed before it runs.');
      return ask(`mode:${d.mode}`, 'mode', f.command.reasons[0] ?? 'This command may change the system.');
    case 'fetch':
      return ask(`mode:${d.mode}`, 'mode', 'Fetching a URL needs permission.');
    case 'none':
      if (readOnly) return { behavior: 'allow', decidedBy: `mode:${d.mode}:read-only`, reasonType: 'mode', approval: { by: 'mode' } };
      return ask(`mode:${d.mode}`, 'mode', `${d.tool.name} needs permission.`);
  }
}
