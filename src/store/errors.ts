// Why a session could not be opened. A resume that fails is an error the host must see (startup exit), never a
// silent fresh session: the user asked for a conversation and would otherwise lose it without noticing.

export type SessionLoadErrorCode =
  /** No transcript with that id in this project (or nothing to --continue). */
  | 'not_found'
  /** The file exists but could not be read (permissions, a directory, I/O error). */
  | 'unreadable'
  /** The file holds no conversation entries (only metadata, or nothing parseable). */
  | 'empty'
  /** `--resume` value is not a session id (UUID). */
  | 'invalid_id'
  /** `--resume-session-at` names no entry of the session. */
  | 'message_not_found'
  /** `--session-id` names a session that already has a transcript (Claude Code refuses this too). */
  | 'in_use';

export class SessionLoadError extends Error {
  constructor(
    readonly code: SessionLoadErrorCode,
    message: string,
    readonly detail: { sessionId?: string; path?: string; cause?: unknown } = {},
  ) {
    super(message, detail.cause === undefined ? undefined : { cause: detail.cause });
    this.name = 'SessionLoadError';
  }
}
