// What a compaction asks the model and what the thread continues from. agentd's own wording (issue 13: "a
// summarisation call (agentd's own prompt) that keeps what the next turns need"); the shape follows Claude Code
// 2.1.330 (test/measure/compact-capture.measure.ts): the history plus one user message asking for a text-only
// summary, answered as <analysis>…</analysis><summary>…</summary>, and a continuation message that replaces the
// summarised messages.
import type { ApiMessage } from '../model/types.js';

export function summaryInstruction(customInstructions: string | undefined): string {
  const lines = [
    'Stop working on the task for a moment: the conversation is about to be shortened, and your summary will replace',
    'everything above this message. Answer with plain text only. Do not call any tool: a tool call here is discarded',
    'and the summary is lost.',
    '',
    'First think in an <analysis> block, going through the conversation in order. Then write the summary in a',
    '<summary> block with these sections, keeping every detail the next steps will need:',
    '',
    "1. The user's requests and instructions: every explicit request, in the user's words where they matter, and",
    '   every constraint they set (files or data to leave alone, commands not to run, how secrets must be handled).',
    '   Security-relevant constraints are copied verbatim.',
    '2. Decisions made and why, including approaches that were tried and rejected.',
    '3. Files touched: each file read, created or changed, with the reason and the essential code (signatures,',
    '   the changed lines).',
    '4. Errors met and how each was resolved, or that it is still open.',
    '5. Open work: what is done, what remains, in order.',
    '6. The current step: exactly what was being done when this summary was requested, and the next action,',
    "   quoting the user's most recent instruction.",
  ];
  const extra = customInstructions?.trim();
  if (extra) lines.push('', 'The user asked that the summary also follow these instructions:', extra);
  return lines.join('\n');
}

/** The summary request's messages: the history as it stands, then the instruction. */
export function summaryRequestMessages(history: readonly ApiMessage[], customInstructions: string | undefined): ApiMessage[] {
  const messages = [...history];
  const instruction = summaryInstruction(customInstructions);
  // The API wants alternating roles: a history that ends with a user message (a prompt that overflowed, tool
  // results) gets the instruction as one more block of that message.
  const last = messages[messages.length - 1];
  if (last?.role === 'user') {
    const blocks = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
    messages[messages.length - 1] = { role: 'user', content: [...blocks, { type: 'text', text: instruction }] };
  } else messages.push({ role: 'user', content: instruction });
  return messages;
}

/**
 * The summary in a model's answer: the text of its <summary> block (to its end, or to the end of the answer when
 * the block was cut short). `missing` when the answer has no such block (it is then asked for again), `empty`
 * when the block holds nothing.
 */
export function extractSummary(text: string): { kind: 'summary'; text: string } | { kind: 'missing' } | { kind: 'empty' } {
  const m = /<summary>([\s\S]*?)(?:<\/summary>|$)/.exec(text);
  if (!m) return { kind: 'missing' };
  const body = (m[1] ?? '').trim();
  return body.length > 0 ? { kind: 'summary', text: body } : { kind: 'empty' };
}

/**
 * The user message a compacted thread starts from. `next`: what follows it — the work it stopped in the middle
 * of (a compaction between model rounds, /compact), or the user's new prompt, sent verbatim right after it (a
 * compaction at the start of a turn summarises the history before that prompt, never the prompt itself).
 */
export function continuationText(summary: string, transcriptPath: string | undefined, next: 'work' | 'prompt'): string {
  return [
    'This conversation was compacted: the earlier part is replaced by the summary below, written when the',
    'context grew too large.',
    '',
    'Summary:',
    summary,
    '',
    ...(transcriptPath ? [`The full earlier conversation is kept in ${transcriptPath} (JSONL) if an exact detail is needed.`, ''] : []),
    next === 'prompt'
      ? "The user's newest message follows, exactly as they sent it (the summary was written before it): answer it, without restating the summary."
      : 'Continue from where the work stopped, without asking the user anything further and without restating the summary.',
  ].join('\n');
}
