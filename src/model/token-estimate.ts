// The one rule for tokens the API has not counted: about four characters a token, an image or a document page
// at about 1,600 (the API's own rule of thumb). The loop's automatic compaction, the compaction's pruning,
// `get_context_usage` / `/context`, a cut stream's output and the scripted model all estimate with it, so the
// size `/context` shows is the size automatic compaction acts on.
import type { ApiMessage, AssistantBlock, SystemBlock, ToolDefinition, UserBlock } from './types.js';

export const CHARS_PER_TOKEN = 4;

/** An image, or a page of a document. */
export const IMAGE_TOKENS = 1600;

const IMAGE_CHARS = IMAGE_TOKENS * CHARS_PER_TOKEN;

export function tokensForChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** A string by its length, anything else by its JSON. */
export function valueTokens(value: unknown): number {
  return tokensForChars(typeof value === 'string' ? value.length : JSON.stringify(value ?? '').length);
}

/** The characters a tool result's content counts as: its text, ~1,600 tokens an image (anything else by its JSON). */
export function toolResultChars(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return JSON.stringify(content ?? '').length;
  let n = 0;
  for (const x of content as unknown[]) {
    const text: unknown = typeof x === 'object' && x !== null && Reflect.get(x, 'type') === 'text' ? Reflect.get(x, 'text') : undefined;
    n += typeof text === 'string' ? text.length : IMAGE_CHARS;
  }
  return n;
}

function blockChars(b: AssistantBlock | UserBlock): number {
  if (b.type === 'text' && 'text' in b && typeof b.text === 'string') return b.text.length;
  if (b.type === 'thinking' && 'thinking' in b && typeof b.thinking === 'string') return b.thinking.length;
  if (b.type === 'tool_result' && 'tool_use_id' in b) return toolResultChars(b.content);
  if (b.type === 'image' || b.type === 'document') return IMAGE_CHARS;
  return JSON.stringify(b).length;
}

/** The estimate for a list of messages. */
export function messageTokens(messages: readonly ApiMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    if (typeof m.content === 'string') chars += m.content.length;
    else for (const b of m.content) chars += blockChars(b);
  }
  return tokensForChars(chars);
}

/** What streamed of an answer (a cut stream has no usage): its text, thinking and tool inputs. */
export function outputTokens(blocks: readonly AssistantBlock[]): number {
  let chars = 0;
  for (const b of blocks) {
    if (b.type === 'text') chars += b.text.length;
    else if (b.type === 'thinking') chars += b.thinking.length;
    else if (b.type === 'tool_use') chars += JSON.stringify(b.input).length;
  }
  return tokensForChars(chars);
}

/** The token counts of one model call as the API reports them. */
export interface CallTokens {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Everything one call counted: its whole request (fresh and cached input) and its answer. */
export function callTokens(u: CallTokens): number {
  return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens + u.output_tokens;
}

/**
 * The size of the next request: the API's count of the last one (request and answer) plus an estimate of the
 * messages added since; before any call, the whole request estimated (system prompt, tool definitions, messages).
 */
export function contextTokens(
  r: { counted: { tokens: number; since: readonly ApiMessage[] } } | { counted: undefined; system: readonly SystemBlock[]; tools: readonly ToolDefinition[]; messages: readonly ApiMessage[] },
): number {
  if (r.counted) return r.counted.tokens + messageTokens(r.counted.since);
  return tokensForChars(r.system.reduce((n, b) => n + b.text.length, 0) + JSON.stringify(r.tools).length) + messageTokens(r.messages);
}
