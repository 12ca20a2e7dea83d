// Making a thread small enough to be summarised. A thread that overflowed the window cannot be sent as it is,
// not even to be summarised, so the summary request may first drop the bulk of old tool results (the model
// already acted on them; the summary keeps what mattered). The thread itself is never pruned this way: the
// summary replaces it.
import { messageTokens, tokensForChars, toolResultChars } from '../model/token-estimate.js';
import type { ApiMessage, ToolResultBlock, UserBlock } from '../model/types.js';

export interface PruneResult {
  messages: ApiMessage[];
  clearedResults: number;
  clearedChars: number;
}

/**
 * Replaces the content of tool results larger than `minChars` with a short marker, oldest first, sparing the
 * last `keepRecent` messages, until the estimate is at most `targetTokens` (or nothing is left to clear).
 */
export function clearOldToolResults(messages: readonly ApiMessage[], opts: { targetTokens: number; keepRecent: number; minChars: number }): PruneResult {
  const out = messages.map((m) => m);
  let tokens = messageTokens(out);
  let clearedResults = 0;
  let clearedChars = 0;
  const limit = Math.max(0, out.length - opts.keepRecent);
  for (let i = 0; i < limit && tokens > opts.targetTokens; i++) {
    const m = out[i];
    if (!m || m.role !== 'user' || typeof m.content === 'string') continue;
    let changed = false;
    const blocks: UserBlock[] = m.content.map((b) => {
      if (b.type !== 'tool_result' || !('tool_use_id' in b) || tokens <= opts.targetTokens) return b;
      const r = b as ToolResultBlock;
      const size = toolResultChars(r.content);
      if (size < opts.minChars) return b;
      changed = true;
      clearedResults++;
      clearedChars += size;
      const marker = `[Old tool result cleared to make room (${size} characters).]`;
      tokens -= tokensForChars(size - marker.length);
      return { ...r, content: marker };
    });
    if (changed) out[i] = { role: 'user', content: blocks };
  }
  return { messages: out, clearedResults, clearedChars };
}
