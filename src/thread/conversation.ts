// The conversation as the model sees it. Keeps the user/assistant alternation the API needs: a user message
// that follows a user message (a prompt after an interrupt marker, say) is merged into it.
import type { ApiMessage, AssistantBlock, UserBlock } from '../model/types.js';
import { deepFreeze } from '../util/freeze.js';

function toBlocks(content: string | UserBlock[]): UserBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * Messages in the history are frozen, deeply: they are sent again with every request, and a frozen message
 * lets the request serialiser keep its JSON (model/request-body.ts) instead of serialising the whole history
 * each time. It also makes a late mutation of a sent message an error rather than a silent divergence between
 * what the model saw and what the transcript says.
 */
export class Conversation {
  private readonly msgs: ApiMessage[];

  constructor(initial: readonly ApiMessage[] = []) {
    this.msgs = initial.map((m) => deepFreeze(m));
  }

  get messages(): readonly ApiMessage[] {
    return this.msgs;
  }

  get length(): number {
    return this.msgs.length;
  }

  appendUser(content: string | UserBlock[]): void {
    const last = this.msgs[this.msgs.length - 1];
    if (last && last.role === 'user') {
      this.msgs[this.msgs.length - 1] = deepFreeze({ role: 'user', content: [...toBlocks(last.content), ...toBlocks(content)] });
      return;
    }
    this.msgs.push(deepFreeze({ role: 'user', content }));
  }

  /**
   * Back to an earlier state: `length` messages, the last of them `last` (appendUser may have merged more into
   * it since). The messages are frozen, so the earlier ones are exactly what they were.
   */
  truncate(length: number, last: ApiMessage | undefined): void {
    this.msgs.length = Math.min(length, this.msgs.length);
    if (last !== undefined && this.msgs.length > 0) this.msgs[this.msgs.length - 1] = last;
  }

  appendAssistant(blocks: AssistantBlock[]): void {
    if (blocks.length === 0) return;
    this.msgs.push(deepFreeze({ role: 'assistant', content: blocks }));
  }

  /**
   * The messages for a request: a shallow copy whose last block carries a cache breakpoint, so each request
   * reads the previous one's prefix from the prompt cache.
   */
  forRequest(): ApiMessage[] {
    const out = this.msgs.slice();
    const last = out[out.length - 1];
    if (last && last.role === 'user') {
      const blocks = toBlocks(last.content);
      const tail = blocks[blocks.length - 1];
      if (tail && (tail.type === 'text' || tail.type === 'tool_result' || tail.type === 'image' || tail.type === 'document')) {
        out[out.length - 1] = {
          role: 'user',
          content: [...blocks.slice(0, -1), { ...tail, cache_control: { type: 'ephemeral' } }],
        };
      }
    }
    return out;
  }
}
