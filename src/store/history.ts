// Turns a transcript chain back into the API conversation the session had in memory. Claude Code writes one
// entry per content block (consecutive assistant entries share message.id) and one user entry per tool result,
// in completion order and possibly between the blocks of their message; the API wants one assistant message
// and then one user message with every result, in tool_use order. Conversation.appendUser does the merging, so
// a resumed history equals the live one.
import type { ApiMessage, AssistantBlock, ToolResultBlock, ToolUseBlock, UserBlock } from '../model/types.js';
import { Conversation } from '../thread/conversation.js';
import { SYNTHETIC_MODEL, parseAssistantBlock, toolResultId } from './entries.js';
import type { ChainNode } from './reader.js';

/** What a tool_use that never got its result is answered with after a crash. */
export const KILLED_MID_TOOL =
  'Aborted: agentd stopped before this call finished (the process was killed); its effects, if any, are unknown.';
/** … and after --resume-session-at cut the conversation between a call and its result. */
export const CUT_BY_RESUME_AT =
  'Aborted: the session was resumed from a point before this call returned; the call may have run, its effects are unknown.';
/** Stands in for a conversation start that could not be restored (the API needs a user message first). */
export const LOST_START = '[Earlier messages of this conversation could not be restored.]';

export interface TailRepair {
  toolUse: ToolUseBlock;
  /** The assistant entry that holds the tool_use (the result's sourceToolAssistantUUID). */
  assistantUuid: string;
  block: ToolResultBlock;
}

export interface RebuiltHistory {
  history: ApiMessage[];
  /** Off-chain entries whose results the history uses (a fork must copy them too). */
  recovered: Set<string>;
  /** Synthetic results for the chain's last assistant message: the caller records them so the file agrees. */
  tailRepairs: TailRepair[];
  warnings: string[];
}

/** Tool results by tool_use id, with the entry holding each: Claude Code 2.1.x parents each result to its own
 * tool_use entry, so all but one of a parallel batch hang off the main chain. */
export type ResultIndex = ReadonlyMap<string, { block: UserBlock; uuid: string }>;

interface Round {
  id: string;
  blocks: AssistantBlock[];
  /** tool_use id → uuid of the entry that carried it. */
  toolUseEntries: Map<string, string>;
  results: Map<string, UserBlock>;
  /** Non-result blocks that came inside result entries (kept after the results). */
  trailing: UserBlock[];
}

/** Indexes every tool_result block in `nodes` by the tool_use id it answers (first one wins). */
export function indexResults(nodes: readonly ChainNode[]): Map<string, { block: UserBlock; uuid: string }> {
  const out = new Map<string, { block: UserBlock; uuid: string }>();
  for (const n of nodes) {
    if (n.kind !== 'user' || typeof n.entry.message.content === 'string') continue;
    for (const block of n.entry.message.content) {
      const id = toolResultId(block);
      if (id !== undefined && !out.has(id)) out.set(id, { block, uuid: n.uuid });
    }
  }
  return out;
}

export function rebuildHistory(chain: readonly ChainNode[], opts: { offChainResults: ResultIndex; repairText: string }): RebuiltHistory {
  const conv = new Conversation();
  const warnings: string[] = [];
  const tailRepairs: TailRepair[] = [];
  const recovered = new Set<string>();
  let round: Round | undefined;
  const offChain = (id: string): UserBlock | undefined => {
    const hit = opts.offChainResults.get(id);
    if (hit) recovered.add(hit.uuid);
    return hit?.block;
  };

  const close = (atTail: boolean): void => {
    const r = round;
    round = undefined;
    if (!r) return;
    if (r.blocks.length === 0) {
      if (r.results.size) warnings.push(`dropped ${r.results.size} tool result(s) of message ${r.id}, which has no usable blocks`);
      if (r.trailing.length) conv.appendUser(r.trailing);
      return;
    }
    conv.appendAssistant(r.blocks);
    const out: UserBlock[] = [];
    for (const b of r.blocks) {
      if (b.type !== 'tool_use') continue;
      const found = r.results.get(b.id) ?? offChain(b.id);
      if (found) {
        out.push(found);
        continue;
      }
      const block: ToolResultBlock = { type: 'tool_result', tool_use_id: b.id, content: opts.repairText, is_error: true };
      out.push(block);
      if (atTail) tailRepairs.push({ toolUse: b, assistantUuid: r.toolUseEntries.get(b.id) ?? '', block });
      else warnings.push(`tool_use ${b.id} (${b.name}) has no result in the transcript; answered with an error`);
    }
    const known = new Set(r.toolUseEntries.keys());
    for (const id of r.results.keys()) if (!known.has(id)) warnings.push(`dropped a tool result for ${id}, which its message never asked for`);
    out.push(...r.trailing);
    if (out.length) conv.appendUser(out);
  };

  for (const node of chain) {
    if (node.kind === 'link') continue;
    if (node.kind === 'assistant') {
      const m = node.entry.message;
      if (node.entry.isApiErrorMessage === true || m.model === SYNTHETIC_MODEL) continue;
      const id = m.id ?? node.uuid;
      if (round?.id !== id) {
        close(false);
        round = { id, blocks: [], toolUseEntries: new Map(), results: new Map(), trailing: [] };
      }
      const cur: Round = round;
      for (const raw of m.content) {
        const block = parseAssistantBlock(raw);
        if (!block) {
          warnings.push(`line ${node.line}: skipped an assistant content block agentd cannot send back`);
          continue;
        }
        cur.blocks.push(block);
        if (block.type === 'tool_use') cur.toolUseEntries.set(block.id, node.uuid);
      }
      continue;
    }
    if (node.entry.isVisibleInTranscriptOnly === true && node.entry.isCompactSummary !== true) continue;
    const content = node.entry.message.content;
    const blocks: UserBlock[] = typeof content === 'string' ? [] : content;
    const hasResults = blocks.some((b) => toolResultId(b) !== undefined);
    if (!hasResults) {
      close(false);
      conv.appendUser(content);
      continue;
    }
    const rest: UserBlock[] = [];
    for (const b of blocks) {
      const id = toolResultId(b);
      if (id === undefined) rest.push(b);
      else if (!round) warnings.push(`line ${node.line}: dropped a tool result for ${id} that follows no assistant message`);
      else if (round.results.has(id)) warnings.push(`line ${node.line}: dropped a second result for ${id}`);
      else round.results.set(id, b);
    }
    if (round) round.trailing.push(...rest);
    else if (rest.length) conv.appendUser(rest);
  }
  close(true);

  const history = [...conv.messages];
  if (history[0]?.role === 'assistant') {
    warnings.push('the restored conversation starts with an assistant message; a placeholder user message was put before it');
    history.unshift({ role: 'user', content: [{ type: 'text', text: LOST_START }] });
  }
  const onChain = new Set(chain.map((n) => n.uuid));
  for (const u of recovered) if (onChain.has(u)) recovered.delete(u);
  return { history, recovered, tailRepairs, warnings };
}
