// Routes inbound lines, strictly in order: parse once, classify, then dispatch on the literal tags. Every bad
// input gets a typed answer (an error control_response when a request id is recoverable, a system
// protocol_error frame otherwise) and a stderr log line that never echoes the line's content.
import type { ErrorCode, InboundControlRequestEnvelope, InboundUserFrame, SupportedControlSubtype } from '../../protocol/src/index.js';
import { CONTROL_REQUEST_SCHEMAS, SUPPORTED_CONTROL_SUBTYPES, classifyInbound, parseControlPayload } from '../../protocol/src/runtime.js';
import type { Logger } from '../log/logger.js';
import type { LineEvent } from '../transport/line-reader.js';
import { assertNever } from '../util/assert-never.js';
import type { FrameOut } from './frame-out.js';
import type { ControlClient } from './outbound.js';
import type { Projector } from './projector.js';

export type HandlerResult =
  | { ok: true; response: Record<string, unknown>; after?: () => void }
  | { ok: false; error: string; code: ErrorCode };

export type ControlHandlers = {
  [S in SupportedControlSubtype]: (payload: import('../../protocol/src/index.js').ControlRequestOf<S>) => HandlerResult | Promise<HandlerResult>;
};

export interface RouterDeps {
  out: FrameOut;
  projector: Projector;
  client: ControlClient;
  handlers: ControlHandlers;
  onUser: (frame: InboundUserFrame) => void;
  /** Inbound `control_cancel_request`: the host withdraws a request it sent us (none of ours is long-running). */
  onCancel?: (requestId: string) => void;
  logger: Logger;
}

const ANSWERED_IN_BACKGROUND: ReadonlySet<string> = new Set(['mcp_set_servers', 'mcp_reconnect', 'mcp_toggle', 'mcp_authenticate', 'mcp_oauth_callback_url', 'mcp_clear_auth']);

const REQUEST_ID_RE = /"request_id"\s*:\s*"((?:[^"\\]|\\.){1,256})"/;

function isSupported(s: string): s is SupportedControlSubtype {
  return (SUPPORTED_CONTROL_SUBTYPES as readonly string[]).includes(s);
}

export class Router {
  constructor(private readonly d: RouterDeps) {}

  async handle(ev: LineEvent): Promise<void> {
    if (ev.kind === 'error') {
      const message =
        ev.code === 'line_too_long'
          ? `Line ${ev.lineNumber} is ${ev.bytes} bytes, over the inbound line limit; it was discarded.`
          : `Line ${ev.lineNumber} is not valid UTF-8; it was discarded.`;
      this.d.logger.warn({ code: ev.code, line: ev.lineNumber, bytes: ev.bytes }, 'inbound line rejected');
      await this.d.projector.protocolError(ev.code, message, ev.lineNumber, { lineBytes: ev.bytes });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(ev.text);
    } catch {
      const code: ErrorCode = ev.unterminated ? 'truncated_line' : 'invalid_json';
      const message = ev.unterminated
        ? `Input ended in the middle of line ${ev.lineNumber}; the partial line was discarded.`
        : `Line ${ev.lineNumber} is not valid JSON; it was discarded.`;
      this.d.logger.warn({ code, line: ev.lineNumber, bytes: ev.bytes }, 'inbound line rejected');
      const rid = ev.text.includes('control_request') ? REQUEST_ID_RE.exec(ev.text)?.[1] : undefined;
      if (rid !== undefined) {
        await this.errorResponse(rid, code, message);
        return;
      }
      await this.d.projector.protocolError(code, message, ev.lineNumber, { lineBytes: ev.bytes });
      return;
    }
    const c = classifyInbound(value);
    switch (c.kind) {
      case 'rejected':
        this.d.logger.warn({ code: c.code, line: ev.lineNumber, message: c.message }, 'inbound frame rejected');
        // A malformed answer to one of our requests fails that request now (a permission request is denied).
        if (c.answersRequestId !== undefined) this.d.client.failResponse(c.answersRequestId, c.message);
        if (c.requestId !== undefined) await this.errorResponse(c.requestId, c.code, c.message);
        else await this.d.projector.protocolError(c.code, c.message, ev.lineNumber, { lineBytes: ev.bytes });
        return;
      case 'user':
        this.d.onUser(c.frame);
        return;
      case 'control_request':
        // Requests whose answer waits on the host itself (connecting an SDK MCP server takes mcp_message round
        // trips) are answered in the background: awaiting them would stop the reading of the host's replies.
        if (ANSWERED_IN_BACKGROUND.has(c.frame.request.subtype)) void this.controlRequest(c.frame).catch((err: unknown) => this.d.logger.error({ err }, 'control request failed'));
        else await this.controlRequest(c.frame);
        return;
      case 'control_response':
        if (!this.d.client.handleResponse(c.frame)) {
          this.d.logger.debug({ request_id: c.frame.response.request_id }, 'control_response for an unknown or settled request ignored');
        }
        return;
      case 'control_cancel_request':
        this.d.onCancel?.(c.frame.request_id);
        return;
      case 'keep_alive':
        return;
      case 'update_environment_variables':
        // Only remote workers of Claude Code honour this; a local daemon changing its env mid-session is a
        // surprise. Refused, and said so.
        if (c.frame.request_id) await this.errorResponse(c.frame.request_id, 'not_allowed', 'update_environment_variables is not supported by agentd.');
        else await this.d.projector.protocolError('not_allowed', 'update_environment_variables is not supported by agentd.', ev.lineNumber, { lineBytes: ev.bytes });
        return;
      default:
        assertNever(c, 'inbound frame kind');
    }
  }

  private async controlRequest(frame: InboundControlRequestEnvelope): Promise<void> {
    const subtype = frame.request.subtype;
    if (!isSupported(subtype)) {
      await this.errorResponse(frame.request_id, 'unsupported_request', `Unsupported control request subtype: ${subtype}`);
      return;
    }
    const parsed = parseControlPayload(CONTROL_REQUEST_SCHEMAS[subtype], frame.request);
    if (!parsed.ok) {
      await this.errorResponse(frame.request_id, 'invalid_request', `Invalid ${subtype} request: ${parsed.message}`);
      return;
    }
    let result: HandlerResult;
    try {
      const handler = this.d.handlers[subtype] as (p: unknown) => HandlerResult | Promise<HandlerResult>;
      result = await handler(parsed.value);
    } catch (err) {
      this.d.logger.error({ err, subtype }, 'control handler failed');
      result = { ok: false, code: 'request_failed', error: `${subtype} failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (result.ok) {
      const w = this.d.out.write({
        type: 'control_response',
        response: { subtype: 'success', request_id: frame.request_id, response: result.response },
      });
      result.after?.();
      if (w) await w;
    } else {
      await this.errorResponse(frame.request_id, result.code, result.error);
    }
  }

  private async errorResponse(requestId: string, code: ErrorCode, error: string): Promise<void> {
    const w = this.d.out.write({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error, error_code: code } });
    if (w) await w;
  }
}
