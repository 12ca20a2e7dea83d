// Abort-signal helpers. Reasons are typed objects so a listener can tell a user interrupt from a sibling
// failure or a discarded streaming attempt without string matching.

export type AbortReasonKind =
  | 'user_interrupted'
  | 'sibling_error'
  | 'streaming_fallback'
  | 'shutdown'
  | 'host_gone'
  | 'timeout';

export class AbortReason extends Error {
  constructor(
    readonly kind: AbortReasonKind,
    message?: string,
    readonly detail?: Record<string, unknown>,
  ) {
    super(message ?? kind);
    this.name = 'AbortReason';
  }
}

export function reasonOf(signal: AbortSignal): AbortReason {
  const r: unknown = signal.reason;
  if (r instanceof AbortReason) return r;
  return new AbortReason('user_interrupted', r instanceof Error ? r.message : undefined);
}

export interface ChildController extends AbortController {
  /**
   * Detaches from the parent without aborting. Call it when the child's work is done: a child that is never
   * aborted otherwise keeps a listener on its parent for the parent's whole life (a turn's signal outlives
   * many model attempts: MaxListenersExceededWarning after 10 and a leak).
   */
  release(): void;
}

/** A child controller aborted when the parent aborts (with the parent's reason), or on its own. */
export function childController(parent: AbortSignal | undefined): ChildController {
  const c = new AbortController();
  if (!parent) return Object.assign(c, { release: () => undefined });
  if (parent.aborted) {
    c.abort(parent.reason);
    return Object.assign(c, { release: () => undefined });
  }
  const onAbort = (): void => c.abort(parent.reason);
  const release = (): void => parent.removeEventListener('abort', onAbort);
  parent.addEventListener('abort', onAbort, { once: true });
  c.signal.addEventListener('abort', release, { once: true });
  return Object.assign(c, { release });
}

/** Resolves after `ms`, or rejects with the signal's reason when aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
