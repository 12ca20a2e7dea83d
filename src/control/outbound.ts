// Requests agentd sends to the host (can_use_tool, hook_callback, mcp_message) and their answers. Every request has an id,
// an optional deadline and an abort signal. A request that is cancelled, times out, or is still pending when
// the channel closes rejects with a typed error; callers turn that into a deny, never an allow.
import type { CanUseToolRequest, ElicitationRequest, HookCallbackRequest, InboundControlResponse, McpMessageToHostRequest } from '../../protocol/src/index.js';
import type { FrameOut } from './frame-out.js';

export type ControlRequestFailure = 'error' | 'cancelled' | 'closed' | 'timeout' | 'invalid_response';

export class ControlRequestError extends Error {
  constructor(
    readonly failure: ControlRequestFailure,
    message: string,
    readonly errorCode?: string,
  ) {
    super(message);
    this.name = 'ControlRequestError';
  }
}

interface Pending {
  subtype: string;
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: ControlRequestError) => void;
  cleanup: () => void;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Optional deadline; when it passes the request is cancelled and rejects with `timeout`. */
  timeoutMs?: number;
}

export class ControlClient {
  private readonly pending = new Map<string, Pending>();
  private closedReason: string | undefined;

  constructor(
    private readonly out: FrameOut,
    private readonly newId: () => string,
  ) {}

  get inFlight(): number {
    return this.pending.size;
  }

  request(payload: CanUseToolRequest | HookCallbackRequest | McpMessageToHostRequest | ElicitationRequest, opts: RequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new ControlRequestError('closed', `The host channel is closed (${this.closedReason}).`));
    }
    if (opts.signal?.aborted) return Promise.reject(new ControlRequestError('cancelled', 'The request was cancelled before it was sent.'));
    const requestId = this.newId();
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = (): void => this.cancel(requestId, new ControlRequestError('cancelled', 'The request was cancelled.'));
      const cleanup = (): void => {
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(requestId);
      };
      this.pending.set(requestId, { subtype: payload.subtype, resolve, reject, cleanup });
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.timeoutMs !== undefined) {
        timer = setTimeout(
          () => this.cancel(requestId, new ControlRequestError('timeout', `No answer from the host within ${opts.timeoutMs} ms.`)),
          opts.timeoutMs,
        );
      }
      void this.out.write({ type: 'control_request', request_id: requestId, request: payload });
    });
  }

  /** Routes a control_response from the host. Returns false for ids we are not waiting on (ignored). */
  handleResponse(frame: InboundControlResponse): boolean {
    const r = frame.response;
    const p = this.pending.get(r.request_id);
    if (!p) return false;
    p.cleanup();
    if (r.subtype === 'success') p.resolve(r.response ?? {});
    else p.reject(new ControlRequestError('error', r.error, r.error_code));
    return true;
  }

  /**
   * The host answered request `requestId` with a control_response that does not parse (e.g. `response: "allow"`):
   * the request rejects at once with `invalid_response`. Returns false for ids we are not waiting on.
   */
  failResponse(requestId: string, why: string): boolean {
    const p = this.pending.get(requestId);
    if (!p) return false;
    p.cleanup();
    p.reject(new ControlRequestError('invalid_response', `the host's answer is malformed (${why}).`));
    return true;
  }

  /** stdin closed or the host went away: nothing can be answered any more. */
  closeAll(reason: string): void {
    this.closedReason = reason;
    for (const [id, p] of [...this.pending]) {
      p.cleanup();
      p.reject(new ControlRequestError('closed', `The host channel closed before request ${id} was answered (${reason}).`));
    }
  }

  private cancel(requestId: string, err: ControlRequestError): void {
    const p = this.pending.get(requestId);
    if (!p) return;
    p.cleanup();
    // Tell the host to stop waiting on its side; it need not answer.
    void this.out.write({ type: 'control_cancel_request', request_id: requestId });
    p.reject(err);
  }
}
