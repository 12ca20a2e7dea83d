// can_use_tool: asks the host over the control channel. The answer is validated strictly (deny needs a
// message); an error reply, a malformed answer, an answer about another call, a cancel or a closed channel all
// reject, which the permission layer turns into a deny.
import type { CanUseToolRequest } from '../../protocol/src/index.js';
import { PermissionResult } from '../../protocol/src/runtime.js';
import type { HostAnswer, PermissionPrompter, PromptRequest } from '../permissions/layer.js';
import { ControlRequestError, type ControlClient, type RequestOptions } from './outbound.js';

const NOT_AN_OBJECT = 'the host answered with a response that is not an object (expected {behavior: "allow", updatedInput?} or {behavior: "deny", message}).';

export interface PrompterDeps {
  client: ControlClient;
  /** Called with the number of requests waiting on the host (session_state_changed requires_action/running). */
  onPending: (pending: number) => void;
  /** Optional deadline (--permission-prompt-timeout-ms); when it passes the request is cancelled and denied. */
  timeoutMs: number | undefined;
  /** Called as each request goes out (the Notification hook event). */
  onAsk?: (toolName: string) => void;
}

export function createHostPrompter(d: PrompterDeps): PermissionPrompter {
  let pending = 0;
  return {
    async ask(req: PromptRequest, signal: AbortSignal): Promise<HostAnswer> {
      const payload: CanUseToolRequest = {
        subtype: 'can_use_tool',
        tool_name: req.toolName,
        input: req.input,
        tool_use_id: req.toolUseId,
        permission_suggestions: req.suggestions.map((s) =>
          s.type === 'addRules'
            ? { type: 'addRules', rules: s.rules ?? [], behavior: 'allow', destination: s.destination }
            : s.type === 'setMode'
              ? { type: 'setMode', mode: s.mode ?? 'acceptEdits', destination: s.destination }
              : { type: 'addDirectories', directories: s.directories ?? [], destination: s.destination },
        ),
        ...(req.blockedPath !== undefined ? { blocked_path: req.blockedPath } : {}),
        decision_reason: req.decisionReason,
        decision_reason_type: toReasonType(req.decisionReasonType),
        display_name: req.toolName,
        ...(req.mcpServer ? { mcp_server: { name: req.mcpServer.name, source: req.mcpServer.source } } : {}),
      };
      const opts: RequestOptions = { signal, ...(d.timeoutMs !== undefined ? { timeoutMs: d.timeoutMs } : {}) };
      pending++;
      if (pending === 1) d.onPending(pending);
      d.onAsk?.(req.toolName);
      let raw: Record<string, unknown>;
      try {
        raw = await d.client.request(payload, opts);
      } catch (err) {
        // `"allow"`, `true`, a number or an array where the result object belongs: denied now, saying what was expected.
        if (err instanceof ControlRequestError && err.failure === 'invalid_response') throw new Error(NOT_AN_OBJECT);
        throw err;
      } finally {
        pending--;
        if (pending === 0) d.onPending(0);
      }
      const r = PermissionResult.safeParse(raw);
      if (!r.success) throw new Error(`the host's answer is not a valid permission result (${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}).`);
      const a = r.data;
      if (a.toolUseID !== undefined && a.toolUseID !== req.toolUseId) throw new Error(`the host answered for another call (${a.toolUseID}).`);
      if (a.behavior === 'deny') return { behavior: 'deny', message: a.message, ...(a.interrupt ? { interrupt: true } : {}) };
      return {
        behavior: 'allow',
        ...(a.updatedInput ? { updatedInput: a.updatedInput } : {}),
        ...(a.updatedPermissions ? { updatedPermissions: a.updatedPermissions.map((u) => ({ ...u })) } : {}),
      };
    },
  };
}

const REASON_TYPES = ['rule', 'mode', 'subcommandResults', 'permissionPromptTool', 'hook', 'asyncAgent', 'sandboxOverride', 'workingDir', 'safetyCheck', 'classifier', 'other'] as const;
function toReasonType(s: string): (typeof REASON_TYPES)[number] {
  return (REASON_TYPES as readonly string[]).includes(s) ? (s as (typeof REASON_TYPES)[number]) : 'other';
}
