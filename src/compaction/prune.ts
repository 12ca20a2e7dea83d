// Making a thread small enough to be summarised. A thread that overflowed the window cannot be sent as it is,
// not even to be summarised, so the summary request may first drop the bulk of old tool results (the model
// already acted on them; the summary keeps what mattered). The thread itself is never pruned this way: the
// summary replaces it.
import type { ApiMessage, AssistantBlock, ToolResultBlock, UserBlock } from '../model/types.js';

/** ~4 characters a token: the estimate used for what has not been counted by the API yet. */
export function estimateTokens(messages: readonly ApiMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    if (typeof m.content === 'string') chars += m.content.length;
    else for (const b of m.content) chars += blockChars(b);
  }
  return Math.ceil(chars / 4);
}

function blockChars(b: AssistantBlock | UserBlock): number {
  if (b.type === 'text' && 'text' in b && typeof b.text === 'string') return b.text.length;
  if (b.type === 'thinking' && 'thinking' in b && typeof b.thinking === 'string') return b.thinking.length;
  if (b.type === 'tool_result' && 'tool_use_id' in b) return resultChars(b as ToolResultBlock);
  // The API counts an image or a page of a document at roughly 1,600 tokens.
  if (b.type === 'image' || b.type === 'document') return IMAGE_CHARS;
  return JSON.stringify(b).length;
}

const IMAGE_CHARS = 1600 * 4;

function resultChars(r: ToolResultBlock): number {
  if (typeof r.content === 'string') return r.content.length;
  return r.content.reduce((n, x) => n + (x.type === 'text' ? x.text.length : IMAGE_CHARS), 0);
}

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
  let tokens = estimateTokens(out);
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
      const size = resultChars(r);
      if (size < opts.minChars) return b;
      changed = true;
      clearedResults++;
      clearedChars += size;
      const marker = `[Old tool result cleared to make room (${size} characters).]`;
      tokens -= Math.ceil((size - marker.length) / 4);
      return { ...r, content: marker };
    });
    if (changed) out[i] = { role: 'user', content: blocks };
  }
  return { messages: out, clearedResults, clearedChars };
}
