// A thread: one conversation and its transcript, kept as one. Every message that enters the conversation goes
// through here and is recorded by the same call, so what the model is sent and what a resume rebuilds cannot
// drift apart (before, the session appended to the conversation and the transcript by hand at each site).
//
// Write-ahead: blocks the loop reports while a model message streams (assistant blocks, tool results) are
// recorded as they are reported (`record`); the conversation takes the whole message when the round ends
// (`appendRound`), in tool_use order, as the API wants it.
import type { ApiMessage, AssistantBlock, UserBlock } from '../model/types.js';
import { Conversation } from './conversation.js';
import type { SessionEvent } from './events.js';
import type { RecordedEvent, RewindReason, TranscriptRecorder } from './recorder.js';

/** A tool result as the round hands it over: the block the model sees and any hook-provided context. */
export interface RoundResult {
  readonly block: UserBlock;
  readonly additionalContext: readonly string[];
}

/** A user message that joins a running turn after a round's tool results (session/fold.ts), as the model sees it. */
export interface Interjection {
  readonly uuid: string;
  readonly content: UserBlock[];
}

/** A point a thread can go back to (Thread.mark / Thread.rewind). */
export interface ThreadMark {
  readonly conv: Conversation;
  readonly length: number;
  readonly last: ApiMessage | undefined;
  readonly lastUuid: string | null;
  readonly counted: { tokens: number; length: number } | undefined;
}

export interface ThreadOptions {
  recorder: TranscriptRecorder;
  /** Messages to start from (a resumed session's rebuilt history). */
  history?: readonly ApiMessage[];
  newUuid: () => string;
}

export class Thread {
  private conv: Conversation;
  private readonly recorder: TranscriptRecorder;
  private readonly newUuid: () => string;
  private lastUuid: string | null = null;
  /** What the API counted for the thread up to message `length` (set after each model round). */
  private counted: { tokens: number; length: number } | undefined;
  /** Where the current conversation began (a compaction or /clear replaced the one before): the earliest rewind point. */
  private base: ThreadMark;

  constructor(opts: ThreadOptions) {
    this.conv = new Conversation(opts.history ?? []);
    this.recorder = opts.recorder;
    this.newUuid = opts.newUuid;
    this.base = this.mark();
  }

  private put(ev: RecordedEvent): void {
    this.lastUuid = ev.uuid;
    this.recorder.record(ev);
  }

  get messages(): readonly ApiMessage[] {
    return this.conv.messages;
  }

  get length(): number {
    return this.conv.length;
  }

  /**
   * /clear: the next request starts from nothing. Not recorded in the transcript (a resume brings back the turns
   * before it; Claude Code starts a new session for a /clear instead).
   */
  clear(): void {
    this.conv = new Conversation([]);
    this.base = this.mark();
  }

  /** The thread as it is now, to go back to with `rewind`. */
  mark(): ThreadMark {
    return { conv: this.conv, length: this.conv.length, last: this.conv.messages[this.conv.length - 1], lastUuid: this.lastUuid, counted: this.counted };
  }

  /**
   * Back to `m`: the conversation is what it was then, and the transcript records the rewind, so a resume
   * rebuilds the same thread. A mark from before a compaction (or /clear) that happened since goes back only to
   * where the current conversation began: the one before it is no longer this thread's.
   */
  rewind(m: ThreadMark, reason: RewindReason): void {
    const to = m.conv === this.conv ? m : this.base;
    this.conv.truncate(to.length, to.last);
    this.counted = to.counted;
    this.put({ type: 'rewind', uuid: this.newUuid(), to: to.lastUuid, reason });
  }

  /** The messages for the next request (see Conversation.forRequest). */
  forRequest(): ApiMessage[] {
    return this.conv.forRequest();
  }

  /** A user message (a prompt, or one agentd adds: hook context, a reminder): recorded and appended. */
  appendUser(content: string | UserBlock[], meta: { uuid?: string; isSynthetic: boolean }): void {
    this.put({ type: 'user_prompt', uuid: meta.uuid ?? this.newUuid(), content, isSynthetic: meta.isSynthetic });
    this.conv.appendUser(content);
  }

  /** A text the loop also reports as a `user_text` event (an interrupt marker): recorded and appended. */
  appendUserText(uuid: string, text: string): Extract<SessionEvent, { type: 'user_text' }> {
    const ev = { type: 'user_text' as const, uuid, text };
    this.put(ev);
    this.conv.appendUser([{ type: 'text', text }]);
    return ev;
  }

  /** Records a block the loop reports while its message streams; the conversation takes it in `appendRound`. */
  record(ev: Extract<RecordedEvent, { type: 'assistant_block' | 'tool_result' }>): void {
    this.put(ev);
  }

  /**
   * The end of a model round: its assistant message, then one user message with every tool result in tool_use
   * order followed by the hook-provided context (recorded here: the results themselves were recorded as they
   * were reported).
   */
  appendRound(blocks: AssistantBlock[], results: readonly RoundResult[]): void {
    this.conv.appendAssistant(blocks);
    if (results.length === 0) return;
    const content: UserBlock[] = results.map((r) => r.block);
    for (const r of results) {
      for (const ctx of r.additionalContext) {
        const text = `<system-reminder>\n${ctx}\n</system-reminder>`;
        this.put({ type: 'user_prompt', uuid: this.newUuid(), content: [{ type: 'text', text }], isSynthetic: true });
        content.push({ type: 'text', text });
      }
    }
    this.conv.appendUser(content);
  }

  /** The API's count for a prefix of the thread: the last round's usage covers all but its `uncountedTail` messages. */
  markCounted(tokens: number, uncountedTail: number): void {
    this.counted = { tokens, length: Math.max(0, this.conv.length - uncountedTail) };
  }

  /** The last count, and the messages added since (to be estimated); undefined when nothing was counted. */
  get countedPrefix(): { tokens: number; uncounted: readonly ApiMessage[] } | undefined {
    const c = this.counted;
    return c && c.length <= this.conv.length ? { tokens: c.tokens, uncounted: this.conv.messages.slice(c.length) } : undefined;
  }

  /** The uuid of the last conversational entry recorded (a compaction names it as its logical parent). */
  get lastRecordedUuid(): string | null {
    return this.lastUuid;
  }

  /**
   * A compaction: the conversation becomes the summary alone. Recorded as a boundary that starts a new chain and
   * the summary as its first user message, so a resume rebuilds exactly this thread.
   */
  replaceWithSummary(c: { boundary: Omit<Extract<RecordedEvent, { type: 'compact_boundary' }>, 'type'>; summary: { uuid: string; text: string } }): void {
    this.put({ type: 'compact_boundary', ...c.boundary });
    this.put({ type: 'compact_summary', uuid: c.summary.uuid, text: c.summary.text });
    this.conv = new Conversation([{ role: 'user', content: c.summary.text }]);
    this.counted = undefined;
    this.base = this.mark();
  }

  flush(): Promise<void> {
    return this.recorder.flush();
  }
}
