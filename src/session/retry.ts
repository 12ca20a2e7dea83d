// Retry policy for model calls: exponential backoff with jitter, `retry-after` honoured (capped), at most
// `maxAttempts` attempts in all. Pure: the caller supplies randomness, so tests are deterministic.
import type { ModelApiError } from '../model/types.js';

export interface RetryPolicy {
  /** Total attempts, the first included (default 11: one try plus 10 retries, as Claude Code). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Upper bound on a server-requested retry-after. */
  maxRetryAfterMs: number;
  /** Consecutive overloaded errors after which the fallback model (if any) is used. */
  fallbackAfterOverloads: number;
  /** No first event within this time = a stalled attempt (retried). */
  firstEventTimeoutMs: number;
  /** No event within this time mid-stream = a stalled attempt (retried). */
  idleTimeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 11,
  baseDelayMs: 500,
  maxDelayMs: 32_000,
  maxRetryAfterMs: 60_000,
  fallbackAfterOverloads: 3,
  firstEventTimeoutMs: 120_000,
  idleTimeoutMs: 300_000,
};

/** Delay before retry number `retry` (1-based). `random` returns [0, 1). */
export function retryDelayMs(policy: RetryPolicy, retry: number, err: ModelApiError, random: () => number): number {
  if (err.retryAfterMs !== undefined) return Math.min(Math.max(0, err.retryAfterMs), policy.maxRetryAfterMs);
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // ±25% jitter so that many clients retrying at once spread out.
  return Math.round(exp * (0.75 + 0.5 * random()));
}
