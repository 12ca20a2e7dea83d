// The transcript port of a thread (implemented by store/writer.ts): what is recorded, in Claude Code's entry
// vocabulary, and when it is made durable.
import type { UserBlock } from '../model/types.js';
import type { SessionEvent } from './events.js';

/** Write-ahead transcript: `record` appends before the event is reported; `flush` makes it durable. */
export interface TranscriptRecorder {
  record(ev: RecordedEvent): void;
  flush(): Promise<void>;
}

export type RecordedEvent =
  | Extract<SessionEvent, { type: 'assistant_block' | 'tool_result' | 'user_text' }>
  | { type: 'user_prompt'; uuid: string; content: string | UserBlock[]; isSynthetic: boolean }
  /** A compaction: the boundary starts a new chain (parentUuid null), the summary is its first message. */
  | { type: 'compact_boundary'; uuid: string; trigger: 'manual' | 'auto'; preTokens: number; postTokens: number; durationMs: number }
  | { type: 'compact_summary'; uuid: string; text: string }
  /**
   * The conversation went back to where it was after entry `to` (null: to nothing): the entries between are kept
   * in the file, for the record, but are no longer what the model continues from (a prompt the API refused as
   * too long, and what it led to). A resume drops them the same way.
   */
  | { type: 'rewind'; uuid: string; to: string | null; reason: RewindReason };

/** Why a thread went back: the API refused the turn's request as too long, and nothing could shrink it. */
export type RewindReason = 'prompt_too_long';

export const nullRecorder: TranscriptRecorder = { record: () => undefined, flush: async () => undefined };

/** A nested loop's own transcript (a subagent's sidechain file): closed when the loop ends. */
export interface SidechainRecorder extends TranscriptRecorder {
  close(): void;
}

/** The events a loop reports that are part of its conversation, and so are recorded before they are reported. */
export function isRecorded(ev: SessionEvent): ev is Extract<SessionEvent, { type: 'assistant_block' | 'tool_result' | 'user_text' }> {
  return ev.type === 'assistant_block' || ev.type === 'tool_result' || ev.type === 'user_text';
}
