// Distinct, documented exit codes (README "Exit codes").
export const EXIT = {
  /** Normal end: stdin closed and all queued work finished. */
  ok: 0,
  /** stdin closed after a turn that ended with an error result (the last result sent had is_error), in any mode. */
  turnError: 1,
  /** Bad flag value, unreadable config or scenario, unknown session: one JSON error line was written. */
  startup: 2,
  /** The host went away (stdout closed / EPIPE, or the parent process died). */
  hostGone: 3,
  /** An internal error escaped every handler (a bug); one JSON error line was written. */
  internal: 70,
  sighup: 129,
  sigint: 130,
  sigterm: 143,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
