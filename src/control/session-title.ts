// agentd's own session titles for `generate_session_title`: derived from the host's description (the prompt) on
// this machine, with no model call. Claude Code asks a model for a two-to-five-word noun phrase; a local title
// is the prompt's first sentence, trimmed: less clever, but free, instant and predictable, and an editor asks for
// one at every new prompt (claude-agent-acp), so a model call here would be a paid request per prompt.
// A host that wants a model-written title asks for it explicitly (`agentd_use_model`): modelSessionTitle.
import type { ModelClient, Usage } from '../model/types.js';
import { MessageAccumulator } from '../session/accumulator.js';

/** Titles longer than this are cut at a word boundary (the adapter shows up to 256; a list row shows ~60). */
const MAX_TITLE_CHARS = 60;
/** Below this there is nothing to title ("hi", "ok"): `null`, as Claude Code answers for such a description. */
const MIN_TITLE_CHARS = 3;

// Openers that say nothing about the subject. Greetings only count when punctuated ("Hi, fix…"), so that
// "Hello world example" keeps its first word.
const OPENERS = /^(?:(?:hey|hi|hello|ok|okay)[,.!]+\s*|please\s+|pls\s+)*(?:(?:can|could|would|will) you\s+(?:please\s+)?|i(?:'d| would) like (?:you )?to\s+|i (?:want|need) (?:you )?to\s+|help me(?: to)?\s+|let'?s\s+)?/i;

/**
 * A short title from the first meaningful line of `description`: its first sentence, without openers such as
 * "please" or "can you", whitespace collapsed, trailing punctuation dropped, the first letter upper-cased, at
 * most {@link MAX_TITLE_CHARS} characters (cut at a word boundary, with "…"). `null` when nothing is left.
 */
export function localSessionTitle(description: string): string | null {
  let inFence = false;
  let line = '';
  for (const raw of description.split(/\r?\n/)) {
    const l = raw.trim();
    if (l.startsWith('```')) {
      inFence = !inFence;
      continue;
    }
    if (!inFence && /[\p{L}\p{N}]/u.test(l)) {
      line = l;
      break;
    }
  }
  let text = line.replace(/\s+/g, ' ');
  // The first sentence, when it is long enough to stand alone ("Fix it. The login page…" keeps both).
  const sentence = /^(.+?[.!?])\s/.exec(text);
  if (sentence?.[1] && sentence[1].length >= 12) text = sentence[1];
  text = text.replace(OPENERS, '').replace(/[\s.!?,;:]+$/u, '').trim();
  if (text.length < MIN_TITLE_CHARS) return null;
  if (text.length > MAX_TITLE_CHARS) {
    const cut = text.slice(0, MAX_TITLE_CHARS - 1);
    const space = cut.lastIndexOf(' ');
    text = `${(space >= MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s.!?,;:]+$/u, '')}…`;
  }
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What a model-written title costs: one small request, recorded in the session's usage like any other. */
export interface ModelTitleDeps {
  model: ModelClient;
  modelId: () => string;
  /** Adds the call's usage to the session's totals (total_cost_usd, modelUsage). */
  recordUsage: (model: string, usage: Usage) => void;
}

const TITLE_INSTRUCTIONS =
  'You name a coding session so the user can pick it out of a list. Answer with the title only: a short noun phrase ' +
  'of two to five words, in sentence case, in the language of the session. No quotes, no punctuation at the end.';
/** As Claude Code does, the title is made from the last 1000 characters of the description. */
const MAX_DESCRIPTION_CHARS = 1000;

/** A title written by the session's model (`generate_session_title` with `agentd_use_model`); `null` if empty. */
export async function modelSessionTitle(d: ModelTitleDeps, description: string, signal: AbortSignal): Promise<string | null> {
  const modelId = d.modelId();
  const stream = await d.model.open(
    {
      model: modelId,
      max_tokens: 64,
      system: [{ type: 'text', text: TITLE_INSTRUCTIONS }],
      messages: [{ role: 'user', content: `<session>\n${description.slice(-MAX_DESCRIPTION_CHARS)}\n</session>` }],
    },
    signal,
  );
  const acc = new MessageAccumulator();
  for await (const ev of stream.events) acc.push(ev);
  d.recordUsage(acc.model ?? modelId, acc.usage);
  const text = acc
    .completedBlocks()
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(/^["'“”]+|["'“”.]+$/gu, '')
    .trim();
  if (text === '') return null;
  return text.length > MAX_TITLE_CHARS ? `${text.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…` : text;
}
