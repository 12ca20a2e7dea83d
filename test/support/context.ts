// agentd puts the project's context (environment, memory files) before the first user message of every request
// (src/session/system-prompt.ts). Tests about something else compare the conversation without it.
import type { ApiMessage, UserBlock } from '../../src/model/types.js';

function isContext(b: unknown): boolean {
  if (typeof b !== 'object' || b === null) return false;
  const text: unknown = Reflect.get(b, 'text');
  return typeof text === 'string' && (text.startsWith('<system-reminder>\n# Environment\n') || text.startsWith('<system-reminder>\nInstructions from the memory files'));
}

/**
 * The messages with the context blocks of the first user message removed, and that message as it was stored
 * (a string prompt was turned into one text block to put the context before it).
 */
export function withoutContext(messages: readonly ApiMessage[]): ApiMessage[] {
  return messages.map((m, i): ApiMessage => {
    if (i !== 0 || m.role !== 'user' || !Array.isArray(m.content) || !m.content.some(isContext)) return m;
    const own: UserBlock[] = (m.content).filter((b) => !isContext(b));
    const only = own[0];
    const text: unknown = only ? Reflect.get(only, 'text') : undefined;
    if (own.length === 1 && only?.type === 'text' && typeof text === 'string' && Object.keys(only).length === 2) return { role: 'user', content: text };
    return { role: 'user', content: own };
  });
}
