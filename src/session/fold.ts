// User messages that arrive while a turn runs, as Claude Code 2.1.330 handles them (measured through the TS SDK,
// test/measure/reliability.measure.ts): at the next tool-result boundary of the running turn they join it, each
// as a reminder after the results; those still queued when the next turn starts are folded into that turn's one
// prompt. One result answers them all, instead of one turn (and one model request) per message.
import type { UserBlock } from '../model/types.js';
import type { QueuedInput } from './config.js';

/** A prompt that may be folded: one the host typed, for the model, with nothing run in its place. */
export function isFoldable(i: QueuedInput): boolean {
  return i.shouldQuery && !i.isSynthetic && i.command === undefined && i.local === undefined && i.model === undefined && i.folded === undefined;
}

/**
 * Prompts queued one after another as one prompt, under the last one's uuid, the earlier ones kept in `folded`
 * (for their replay frames and the result's user_message_uuids). Claude Code's join: strings with "\n"; block
 * contents concatenated, "\n" ending the last text block of every message but the last.
 */
export function foldPrompts(inputs: readonly [QueuedInput, ...QueuedInput[]]): QueuedInput {
  const last = inputs[inputs.length - 1] as QueuedInput;
  if (inputs.length === 1) return last;
  const contents = inputs.map((i) => i.content);
  const content = contents.every((c): c is string => typeof c === 'string')
    ? contents.join('\n')
    : contents.flatMap((c, n) => (n === contents.length - 1 ? blocksOf(c) : withTrailingNewline(blocksOf(c))));
  return { uuid: last.uuid, content, shouldQuery: true, isSynthetic: false, folded: inputs.slice(0, -1).map((i) => ({ uuid: i.uuid, content: i.content })) };
}

function blocksOf(c: string | UserBlock[]): UserBlock[] {
  return typeof c === 'string' ? [{ type: 'text', text: c }] : c;
}

function withTrailingNewline(blocks: UserBlock[]): UserBlock[] {
  const tail = blocks[blocks.length - 1];
  if (tail?.type !== 'text' || typeof tail['text'] !== 'string') return blocks;
  return [...blocks.slice(0, -1), { ...tail, text: `${tail['text']}\n` }];
}

/**
 * A message that joined the running turn at a tool-result boundary, as the model sees it: Claude Code's reminder
 * around its text (agentd's name in place of Claude Code's), then any block that is not text (an image) as sent.
 */
export function midTurnBlocks(content: string | UserBlock[]): UserBlock[] {
  const blocks = blocksOf(content);
  const text = blocks.flatMap((b) => (b.type === 'text' && typeof b['text'] === 'string' ? [b['text']] : [])).join('\n');
  const reminder =
    `<system-reminder>\nThe user sent a new message while you were working:\n${text}\n\n` +
    'This is how agentd surfaces messages the user sends mid-turn — within the running turn, often alongside the next tool result, rather than as a separate conversation turn. Address the message above as you continue this turn.\n</system-reminder>';
  return [{ type: 'text', text: reminder }, ...blocks.filter((b) => b.type !== 'text')];
}
