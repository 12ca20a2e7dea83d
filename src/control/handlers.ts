// The control requests agentd answers. Each handler validates, replies, and (through `after`) acts once the
// reply is on its way: an interrupt receipt is written before the turn's result, a mode change's reply before
// its system/status frame.
import type { ErrorCode, InitializeRequest, InitializeResponse, McpAuthenticateResponse } from '../../protocol/src/index.js';
import type { ModelNames } from '../model/model-allowlist.js';
import type { PermissionModeName } from '../permissions/modes.js';
import type { Session } from '../session/session.js';
import { type ContextSnapshot, estimateContextUsage } from './context-usage.js';
import type { ControlHandlers, HandlerResult } from './router.js';
import { localSessionTitle } from './session-title.js';

export interface HandlerDeps {
  session: Session;
  /** Applies the initialize request to the daemon's configuration and builds the reply. */
  initialize: (req: InitializeRequest) => InitializeResponse;
  /** Why bypassPermissions cannot be entered (not launched with the flag, or a policy disables it); undefined: it can. */
  bypassRefusal: string | undefined;
  /** Modes the settings disable (disableBypassPermissionsMode, disableAutoMode), with the file that says so. */
  disabledModes: ReadonlyMap<string, string>;
  /** Model names: resolution and the availableModels restriction (model/model-allowlist.ts). */
  models: Pick<ModelNames, 'choose'>;
  /** Called when the permission mode changes (the permission layer's state). */
  onPermissionMode: (mode: PermissionModeName) => void;
  mcpStatus: () => Array<{ name: string; status: string }>;
  /** `mcp_reconnect` / `mcp_toggle`: resolve with why the server did not connect (undefined: it did). */
  mcpReconnect: (server: string) => Promise<string | undefined>;
  mcpToggle: (server: string, enabled: boolean) => Promise<string | undefined>;
  /** `mcp_set_servers`: replaces the servers added this way; answers once they connected or failed. */
  mcpSetServers: (servers: Record<string, unknown>) => Promise<{ added: string[]; removed: string[]; errors: Record<string, string> }>;
  /** `set_mcp_permission_mode_override`: stores (mode) or clears (null) a server's override; false: no such server known now. */
  mcpModeOverride: (server: string, mode: 'default' | 'auto' | null) => boolean;
  /** A message from the host's SDK MCP server `server`; false when no SDK server has that name. */
  mcpMessage: (server: string, message: Record<string, unknown>) => boolean;
  /** OAuth for remote MCP servers (`mcp_authenticate`, `mcp_oauth_callback_url`, `mcp_clear_auth`); rejections carry `code`. */
  mcpAuth: {
    authenticate(server: string, opts: { redirectUri?: string; redirectUriOnly?: boolean }): Promise<McpAuthenticateResponse>;
    submitCallback(server: string, callbackUrl: string): Promise<void>;
    clearAuth(server: string): Promise<void>;
  };
  /** `reload_output_styles`: the refreshed style names. */
  reloadOutputStyles: () => string[];
  /** `reload_skills`: rescans commands and skills (sending commands_changed); the skills as slash commands. */
  reloadSkills: () => Array<{ name: string; description: string; argumentHint: string }>;
  /** `stop_task`: stops a subagent task, its task_notification (stopped) reported first; false: no such task. */
  stopTask: (taskId: string) => Promise<boolean>;
  /** What the next model request would carry (for `get_context_usage`). */
  contextSnapshot: () => Promise<ContextSnapshot>;
  /** Stores a session title in the transcript (`ai-title`, as Claude Code does), for session lists and resume. */
  persistTitle: (title: string) => void;
  /**
   * A model-written title, for a `generate_session_title` that asks for one (`agentd_use_model`). Absent: such a
   * request is refused (`not_available`).
   */
  modelTitle?: (description: string) => Promise<string | null>;
}

const REMOTE_CONTROL_REFUSAL =
  'Remote Control is not available with agentd: it connects a Claude Code session to claude.ai, and agentd runs sessions on this machine only.';

async function settle(f: () => Promise<string | undefined>): Promise<{ error?: string; unknown?: boolean }> {
  try {
    const error = await f();
    return error === undefined ? {} : { error };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e), unknown: true };
  }
}

function mcpOutcome(r: { error?: string; unknown?: boolean }): HandlerResult {
  if (r.error === undefined) return { ok: true, response: {} };
  return { ok: false, code: r.unknown ? 'invalid_request' : 'request_failed', error: r.error };
}

/** The codes an MCP OAuth refusal may carry (McpAuthError's). */
const AUTH_CODES: readonly ErrorCode[] = ['invalid_request', 'request_failed', 'mcp_redirect_uri_unusable', 'mcp_client_registration_unavailable'];
const isErrorCode = (x: unknown): x is ErrorCode => AUTH_CODES.some((c) => c === x);

/** An MCP OAuth refusal: its message, and its `code` when it names a wire error code (else `request_failed`). */
async function authOutcome(f: () => Promise<Record<string, unknown>>): Promise<HandlerResult> {
  try {
    return { ok: true, response: await f() };
  } catch (e) {
    const raw = e instanceof Error && 'code' in e ? e.code : undefined;
    return { ok: false, code: isErrorCode(raw) ? raw : 'request_failed', error: e instanceof Error ? e.message : String(e) };
  }
}

export function createControlHandlers(d: HandlerDeps): ControlHandlers {
  return {
    initialize: (req) => ({ ok: true, response: d.initialize(req) }),

    interrupt: (req): HandlerResult => {
      // The receipt is taken now, the abort happens once the reply is queued: the receipt precedes the result.
      const receipt = d.session.interruptReceipt({ cancelQueued: req.cancel_queued === true });
      return {
        ok: true,
        response: receipt.cancelled.length
          ? { still_queued: receipt.stillQueued, cancelled: receipt.cancelled }
          : { still_queued: receipt.stillQueued },
        after: () => d.session.abortCurrentTurn(),
      };
    },

    set_permission_mode: (req): HandlerResult => {
      if (req.mode === 'bypassPermissions' && d.bypassRefusal !== undefined) return { ok: false, code: 'not_allowed', error: d.bypassRefusal };
      const disabledBy = d.disabledModes.get(req.mode);
      if (disabledBy !== undefined) return { ok: false, code: 'not_allowed', error: `Cannot set permission mode to ${req.mode}: ${disabledBy} disables it.` };
      return {
        ok: true,
        response: { mode: req.mode },
        after: () => {
          d.onPermissionMode(req.mode);
          d.session.setPermissionMode(req.mode);
        },
      };
    },

    set_model: (req) => {
      // Resolved as Claude Code resolves it (aliases, `[1m]`, overrides: model/names.ts); null or "default" is the
      // default model, not the launch model (measured). Any other id is the endpoint's to judge, unless the
      // settings' availableModels leaves it out: then Claude Code's refusal, and the model stays.
      const r = d.models.choose(req.model ?? 'default', d.session.settings.model);
      if (!r.ok) return { ok: false, code: 'not_allowed', error: r.message };
      d.session.setModel(r.choice);
      return { ok: true, response: {} };
    },

    set_max_thinking_tokens: (req) => {
      // Claude Code's semantics: an absent field leaves its value, null returns it to the start-up one.
      d.session.setMaxThinkingTokens(req.max_thinking_tokens, req.thinking_display);
      return { ok: true, response: {} };
    },

    mcp_status: () => ({ ok: true, response: { mcpServers: d.mcpStatus() } }),

    mcp_message: (req): HandlerResult =>
      d.mcpMessage(req.server_name, req.message)
        ? { ok: true, response: {} }
        : { ok: false, code: 'invalid_request', error: `SDK MCP server not found: ${req.server_name}` },

    // Answered once the server is connected again (or failed: an error reply with the reason), as the SDK's
    // reconnectMcpServer() and toggleMcpServer() expect a settled outcome.
    mcp_reconnect: async (req): Promise<HandlerResult> => mcpOutcome(await settle(() => d.mcpReconnect(req.serverName))),
    mcp_toggle: async (req): Promise<HandlerResult> => mcpOutcome(await settle(() => d.mcpToggle(req.serverName, req.enabled))),

    mcp_authenticate: (req) =>
      authOutcome(() =>
        d.mcpAuth.authenticate(req.serverName, { ...(req.redirectUri ? { redirectUri: req.redirectUri } : {}), ...(req.redirectUriOnly ? { redirectUriOnly: true } : {}) }),
      ),
    mcp_oauth_callback_url: (req) => authOutcome(async () => (await d.mcpAuth.submitCallback(req.serverName, req.callbackUrl), {})),
    mcp_clear_auth: (req) => authOutcome(async () => (await d.mcpAuth.clearAuth(req.serverName), {})),

    mcp_set_servers: async (req): Promise<HandlerResult> => ({ ok: true, response: await d.mcpSetServers(req.servers) }),

    set_mcp_permission_mode_override: (req): HandlerResult => {
      // Claude Code's internal per-tool list would need tools that allow themselves to ask: not built, so refused
      // rather than ignored (ignoring it would leave those tools more permissive than the host asked for).
      if (req.askForTools && req.askForTools.length > 0) {
        return { ok: false, code: 'not_available', error: 'set_mcp_permission_mode_override: askForTools is not supported by agentd.' };
      }
      const known = d.mcpModeOverride(req.serverName, req.mode);
      return {
        ok: true,
        response: known ? {} : { warning: `No MCP server named "${req.serverName}" is known${req.mode === null ? '' : '; the override is stored and applies once a server with that name connects'}.` },
      };
    },

    generate_session_title: async (req): Promise<HandlerResult> => {
      // Local unless the host asks for a model call: an editor asks at every new prompt, and a title is not worth
      // a paid request the user never made.
      let title: string | null;
      if (req.agentd_use_model === true) {
        if (!d.modelTitle) return { ok: false, code: 'not_available', error: 'A model-written session title is not available in this agentd session.' };
        title = await d.modelTitle(req.description);
      } else {
        title = localSessionTitle(req.description);
      }
      if (title !== null && req.persist === true) d.persistTitle(title);
      return { ok: true, response: { title } };
    },

    reload_output_styles: (): HandlerResult => ({ ok: true, response: { available_output_styles: d.reloadOutputStyles() } }),
    reload_skills: () => ({ ok: true, response: { skills: d.reloadSkills() } }),

    // Claude Code answers `{}` for an id it does not know too (observed); agentd does the same, and logs nothing:
    // a task that ended a moment ago is the usual case.
    stop_task: async (req): Promise<HandlerResult> => {
      await d.stopTask(req.task_id);
      return { ok: true, response: {} };
    },

    get_context_usage: async () => ({ ok: true, response: estimateContextUsage(await d.contextSnapshot()) }),

    remote_control: (req): HandlerResult =>
      // Switching off what was never on succeeds; switching on is refused with a message the host can show.
      req.enabled ? { ok: false, code: 'not_available', error: REMOTE_CONTROL_REFUSAL } : { ok: true, response: {} },
  };
}
