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
import type { RecordedEvent, TranscriptRecorder } from './recorder.js';

/** A tool result as the round hands it over: the block the model sees and any hook-provided context. */
export interface RoundResult {
  readonly block: UserBlock;
  readonly additionalContext: readonly string[];
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

  constructor(opts: ThreadOptions) {
    this.conv = new Conversation(opts.history ?? []);
    this.recorder = opts.recorder;
    this.newUuid = opts.newUuid;
  }

  get messages(): readonly ApiMessage[] {
    return this.conv.messages;
  }

  get length(): number {
    return this.conv.length;
  }

  /** The messages for the next request (see Conversation.forRequest). */
  forRequest(): ApiMessage[] {
    return this.conv.forRequest();
  }

  /** A user message (a prompt, or one agentd adds: hook context, a reminder): recorded and appended. */
  appendUser(content: string | UserBlock[], meta: { uuid?: string; isSynthetic: boolean }): void {
    this.recorder.record({ type: 'user_prompt', uuid: meta.uuid ?? this.newUuid(), content, isSynthetic: meta.isSynthetic });
    this.conv.appendUser(content);
  }

  /** A text the loop also reports as a `user_text` event (an interrupt marker): recorded and appended. */
  appendUserText(uuid: string, text: string): Extract<SessionEvent, { type: 'user_text' }> {
    const ev = { type: 'user_text' as const, uuid, text };
    this.recorder.record(ev);
    this.conv.appendUser([{ type: 'text', text }]);
    return ev;
  }

  /** Records a block the loop reports while its message streams; the conversation takes it in `appendRound`. */
  record(ev: Extract<RecordedEvent, { type: 'assistant_block' | 'tool_result' }>): void {
    this.recorder.record(ev);
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
        this.recorder.record({ type: 'user_prompt', uuid: this.newUuid(), content: [{ type: 'text', text }], isSynthetic: true });
        content.push({ type: 'text', text });
      }
    }
    this.conv.appendUser(content);
  }

  flush(): Promise<void> {
    return this.recorder.flush();
  }
}
