// The PermissionGate the executor calls: the engine's decision, then — for "ask" — the host (can_use_tool) raced
// with PermissionRequest hooks, or an immediate deny when nobody can answer. Everything that goes wrong on the
// way (an error reply, a cancelled request, a closed channel, a timeout) is a deny, reported as such.
import type { PermissionGate, PermissionRequestInfo, PermissionVerdict } from '../tools/call-ports.js';
import type { Logger } from '../log/logger.js';
import { childController } from '../util/abort.js';
import { isDeepStrictEqual } from 'node:util';
import { type Decision, type DecisionInput, type Suggestion, decide, denialOf } from './engine.js';
import type { CommandAnalyzer } from './match.js';
import type { PermissionModeName } from './modes.js';
import { resolveToolPath } from './paths.js';
import { RuleSet } from './rules.js';
import { parseRewrite } from '../tools/rewrite-input.js';
import type { ReadOnlySandbox } from '../tools/sandbox/types.js';
import type { SharedToolContext } from '../tools/tool.js';
import { READ_PROBE } from '../tools/read-probe.js';
import { type PermissionUpdateValue, type UpdateTarget, applyUpdates } from './updates.js';

export interface PromptRequest {
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string;
  suggestions: Suggestion[];
  blockedPath?: string;
  decisionReason: string;
  decisionReasonType: string;
  /** For MCP tools: the server's name and source, so the host can key trust on `source`. */
  mcpServer?: { name: string; source: string };
}

export type HostAnswer =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; updatedPermissions?: PermissionUpdateValue[] }
  | { behavior: 'deny'; message: string; interrupt?: boolean };

/** The host's side of an "ask" (implemented by control/ with can_use_tool). Rejects when no answer can come. */
export interface PermissionPrompter {
  ask(req: PromptRequest, signal: AbortSignal): Promise<HostAnswer>;
}

/** PermissionRequest hooks: undefined means "no decision" (the host decides). */
export type PermissionRequestHook = (
  req: PromptRequest,
  signal: AbortSignal,
) => Promise<(HostAnswer & { source: string }) | undefined>;

export interface PermissionLayerDeps {
  rules: RuleSet;
  getMode: () => PermissionModeName;
  analyzer: CommandAnalyzer;
  /** undefined: non-interactive (no --permission-prompt-tool stdio, or --permission-prompts none). */
  prompter: PermissionPrompter | undefined;
  permissionRequestHook?: PermissionRequestHook;
  /**
   * `set_mcp_permission_mode_override`: a server pinned to `default` or `auto` is not auto-allowed by
   * bypassPermissions (agentd's `auto` has no classifier and asks as `default` does). Tighten-only.
   */
  mcpModeOverride?: (server: string) => 'default' | 'auto' | undefined;
  /**
   * The host's per-tool policy for an MCP tool (`tools[].permission_policy`): `always_deny` denies every call,
   * `always_ask` asks the host even where a rule, a hook or the mode would allow (and denies under dontAsk),
   * `always_allow` allows what would otherwise ask. Deny rules still win over `always_allow`.
   */
  mcpToolPolicy?: (server: string, toolName: string) => 'always_allow' | 'always_ask' | 'always_deny' | undefined;
  updates: UpdateTarget;
  logger: Logger;
  /** The read-only sandbox: under AGENTD_READONLY_SANDBOX=required without one, read-only commands ask. */
  readOnlySandbox?: Pick<ReadOnlySandbox, 'autoApprovalBlocked'>;
  /** autoAllowBashIfSandboxed (see DecisionInput.sandboxAutoAllow); absent when the command sandbox is off. */
  sandboxAutoAllow?: DecisionInput['sandboxAutoAllow'];
  /** The project (the session's original cwd): rule paths anchor here and it is a working directory. */
  projectDir?: string;
  /**
   * The project's git directory at session start (discoverGitDir), null when it had none: git in any other
   * repository asks. Undefined: git is not judged by repository (callers that do not know the project).
   */
  trustedGitDir?: string | null;
  /** The project repository's hooks directories outside .git (core.hooksPath): writes there always ask. */
  hooksDirs?: readonly string[];
}

/** What a Read of one path would get, with nobody asked (permissions/layer.ts readAccess). */
export type ReadAccess = 'allow' | 'ask' | 'deny';

export interface PermissionLayer extends PermissionGate {
  readonly rules: RuleSet;
  /**
   * The decision a Read call of `path` gets in the default mode, with no hook and nobody asked: deny and ask rules,
   * the working directories (both as written and resolved), the safety checks — the engine's, unchanged — and the
   * allow rules when `allowRules` (a repository's file asking is not the model asking: a host's `Read` allow rule
   * does not widen what it may pull in). For files agentd reads on the model's behalf (`@imports`).
   */
  readAccess(path: string, shared: SharedToolContext, o: { allowRules: boolean }): Promise<ReadAccess>;
}

function allowVerdict(d: Extract<Decision, { behavior: 'allow' }>): PermissionVerdict {
  return {
    behavior: 'allow',
    meta: { decision: 'accept', source: d.reasonType === 'hook' ? 'hook' : 'config', reasonType: d.reasonType, decidedBy: d.decidedBy },
    approval: d.approval,
    ...(d.pinnedRealPath !== undefined ? { pinnedRealPath: d.pinnedRealPath } : {}),
  };
}

export function createPermissionLayer(deps: PermissionLayerDeps): PermissionLayer {
  const deny = (message: string, decidedBy: string, reasonType: string, announce: boolean, source = 'config'): PermissionVerdict => ({
    behavior: 'deny',
    message,
    meta: { decision: 'reject', source, reasonType, decidedBy },
    ...(announce ? { announce: { reasonType, reason: message } } : {}),
  });

  const check = async (req: PermissionRequestInfo, signal: AbortSignal): Promise<PermissionVerdict> => {
    const sessionMode = deps.getMode();
    const override = req.tool.mcpServer ? deps.mcpModeOverride?.(req.tool.mcpServer.name) : undefined;
    const mode = override !== undefined && sessionMode === 'bypassPermissions' ? 'default' : sessionMode;
    const policy = req.tool.mcpServer ? deps.mcpToolPolicy?.(req.tool.mcpServer.name, req.tool.name) : undefined;
    if (policy === 'always_deny') {
      return deny(`${req.tool.name} was denied: the host's permission policy for this MCP tool is always_deny.`, 'mcpPolicy:always_deny', 'rule', true);
    }
    let d: Decision;
    const sandbox = deps.readOnlySandbox;
    const decisionInput = (input: Record<string, unknown>): DecisionInput => ({
      tool: req.tool,
      input,
      hook: req.hook,
      shared: req.shared,
      mode,
      rules: deps.rules,
      analyzer: deps.analyzer,
      ...(sandbox ? { readOnlyAutoApprovalBlocked: () => sandbox.autoApprovalBlocked() } : {}),
      ...(deps.sandboxAutoAllow ? { sandboxAutoAllow: deps.sandboxAutoAllow } : {}),
      ...(deps.projectDir !== undefined ? { projectDir: deps.projectDir } : {}),
      ...(deps.trustedGitDir !== undefined ? { trustedGitDir: deps.trustedGitDir } : {}),
      ...(deps.hooksDirs !== undefined ? { hooksDirs: deps.hooksDirs } : {}),
    });
    try {
      d = await decide(decisionInput(req.input));
    } catch (err) {
      deps.logger.error({ err, tool: req.tool.name }, 'permission decision failed; denying');
      return deny(`Permission check failed (${err instanceof Error ? err.message : String(err)}); the call was denied.`, 'error', 'other', true);
    }
    if (d.behavior === 'allow' && policy === 'always_ask') {
      const reason = `the host's permission policy for this MCP tool is always_ask (it would otherwise be allowed by ${d.decidedBy})`;
      d = { behavior: 'ask', decidedBy: 'mcpPolicy:always_ask', reasonType: 'rule', reason, suggestions: [], howToAllow: 'answer the permission prompt (the policy asks every time)' };
    }
    if (d.behavior === 'ask' && policy === 'always_allow') d = { behavior: 'allow', decidedBy: 'mcpPolicy:always_allow', reasonType: 'rule', approval: { by: 'rule' } };
    if (d.behavior === 'allow') return allowVerdict(d);
    if (d.behavior === 'deny') return deny(d.message, d.decidedBy, d.reasonType, d.reasonType !== 'hook', d.reasonType === 'hook' ? 'hook' : 'config');

    if (mode === 'dontAsk') {
      return deny(`${req.tool.name} was denied: the dontAsk mode denies anything not pre-approved (${d.reason}) To allow it, ${d.howToAllow}.`, 'mode:dontAsk', 'mode', true);
    }
    const prompt: PromptRequest = {
      toolName: req.tool.name,
      input: req.input,
      toolUseId: req.toolUseId,
      suggestions: d.suggestions,
      ...(d.blockedPath !== undefined ? { blockedPath: d.blockedPath } : {}),
      decisionReason: d.reason,
      decisionReasonType: d.reasonType,
      ...(req.tool.mcpServer ? { mcpServer: req.tool.mcpServer } : {}),
    };
    const nonInteractive = (): PermissionVerdict =>
      deny(
        `${req.tool.name} was denied: it needs permission (${d.reason}) and no one can be asked in this session (no --permission-prompt-tool). To allow it, ${d.howToAllow}.`,
        d.decidedBy,
        d.reasonType,
        true,
      );

    let answer: (HostAnswer & { source: string }) | undefined;
    const ctl = childController(signal);
    try {
      if (!deps.prompter) {
        // Only PermissionRequest hooks can answer; without one, nobody can.
        answer = deps.permissionRequestHook ? await deps.permissionRequestHook(prompt, ctl.signal) : undefined;
        if (!answer) return nonInteractive();
      } else answer = await race(prompt, ctl, { ...deps, prompter: deps.prompter });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      deps.logger.warn({ tool: req.tool.name, tool_use_id: req.toolUseId, why }, 'permission request failed: denied');
      return deny(`Tool permission request failed: ${why} The call was denied.`, 'host:failed', 'other', false, 'user_reject');
    } finally {
      ctl.abort();
    }
    if (answer.behavior === 'deny') {
      return {
        behavior: 'deny',
        message: answer.message,
        ...(answer.interrupt ? { interrupt: true } : {}),
        meta: { decision: 'reject', source: answer.source === 'host' ? 'user_reject' : 'hook', decidedBy: `${answer.source}:deny` },
      };
    }
    if (answer.updatedPermissions?.length) await applyUpdates(answer.updatedPermissions, deps.updates, req.shared.cwd, deps.logger);
    // An input sent back unchanged (what most hosts do) is no rewrite.
    const rewritten = answer.updatedInput !== undefined && !isDeepStrictEqual(answer.updatedInput, req.input) ? answer.updatedInput : undefined;
    let pinned = d.pinnedRealPath;
    if (rewritten) {
      // Whoever allowed the call, the deny rules hold for the input that will run. (Claude Code 2.1.330 checks a
      // rewrite only against the tool's schema: its Bash and Read run a rewritten command or path a deny rule
      // names; test/measure/deny-removes-tool.measure.ts.)
      const who = answer.source === 'host' ? `The permission handler (${req.tool.name})` : `The PermissionRequest hook (${req.tool.name})`;
      // Judged as it will run (unknown keys dropped); one the schema refuses never runs (the executor says why).
      const parsed = parseRewrite(req.tool, rewritten);
      let denied;
      try {
        denied = parsed.ok ? await denialOf(decisionInput(asRecord(parsed.value))) : undefined;
      } catch (err) {
        deps.logger.error({ err, tool: req.tool.name }, 'permission check of a rewritten input failed; denying');
        return deny(`Permission check of the rewritten input failed (${err instanceof Error ? err.message : String(err)}); the call was denied.`, 'error', 'other', true);
      }
      if (denied) return deny(`${who} returned updatedInput that a deny rule forbids, so the call was not run: ${denied.message}`, denied.decidedBy, 'rule', true);
      // An edited input may name another file: pin the path the host actually approved.
      try {
        const s = parsed.ok ? req.tool.permissionSubject?.(parsed.value, req.shared) : undefined;
        if (s && (s.kind === 'read' || s.kind === 'write')) pinned = resolveToolPath(s.path, req.shared.cwd).real;
      } catch {
        // The executor re-validates the input; a tool that cannot describe it gets no pin.
      }
    }
    return {
      behavior: 'allow',
      ...(rewritten ? { rewrite: { input: rewritten, by: answer.source === 'host' ? ('host' as const) : ('hook' as const) } } : {}),
      meta: {
        decision: 'accept',
        source: answer.source === 'host' ? (answer.updatedPermissions?.length ? 'user_permanent' : 'user_temporary') : 'hook',
        decidedBy: `${answer.source}:allow`,
      },
      approval: answer.source === 'host' ? { by: 'host' } : { by: 'hook' },
      ...(pinned !== undefined ? { pinnedRealPath: pinned } : {}),
    };
  };

  const readAccess = async (path: string, shared: SharedToolContext, o: { allowRules: boolean }): Promise<ReadAccess> => {
    let rules = deps.rules;
    if (!o.allowRules) {
      rules = new RuleSet();
      rules.add(deps.rules.all().filter((r) => r.behavior !== 'allow'));
    }
    try {
      const d = await decide({
        tool: READ_PROBE,
        input: { file_path: path },
        hook: undefined,
        shared,
        mode: 'default',
        rules,
        analyzer: deps.analyzer,
        ...(deps.projectDir !== undefined ? { projectDir: deps.projectDir } : {}),
        ...(deps.trustedGitDir !== undefined ? { trustedGitDir: deps.trustedGitDir } : {}),
        ...(deps.hooksDirs !== undefined ? { hooksDirs: deps.hooksDirs } : {}),
      });
      return d.behavior;
    } catch (err) {
      deps.logger.error({ err, path }, 'read permission check failed; not reading');
      return 'deny';
    }
  };

  return { check, rules: deps.rules, readAccess };
}

/** Host prompt and PermissionRequest hooks run together; the first decision wins and the other is cancelled. */
async function race(prompt: PromptRequest, ctl: AbortController, deps: PermissionLayerDeps & { prompter: PermissionPrompter }): Promise<HostAnswer & { source: string }> {
  const host = deps.prompter.ask(prompt, ctl.signal).then((a) => ({ ...a, source: 'host' }));
  if (!deps.permissionRequestHook) return host;
  const hook = deps.permissionRequestHook(prompt, ctl.signal);
  return new Promise((resolve, reject) => {
    // Boxed: a host prompt may fail with any value, undefined included.
    let hostFailed: { error: unknown } | undefined;
    let hookDone = false;
    host.then(resolve, (e: unknown) => {
      hostFailed = { error: e };
      if (hookDone) reject(e);
    });
    hook.then(
      (h) => {
        hookDone = true;
        if (h) resolve(h);
        else if (hostFailed) reject(hostFailed.error);
      },
      () => {
        hookDone = true;
        if (hostFailed) reject(hostFailed.error);
      },
    );
  });
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
