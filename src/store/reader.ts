// Reads a transcript file back: every line parsed on its own (a malformed line costs that line, never the file),
// a torn last line from a killed process ignored, then the parentUuid chain walked back from a leaf, the way the
// SDK's getSessionMessages does it.
import type { ModelUsageTotals } from '../thread/events.js';
import { AssistantEntryIn, LinkedEntry, UserEntryIn, parseModelUsage, rewindTarget } from './entries.js';

export type ChainNode =
  | { kind: 'user'; uuid: string; parentUuid: string | null; index: number; line: number; raw: Record<string, unknown>; entry: UserEntryIn }
  | { kind: 'assistant'; uuid: string; parentUuid: string | null; index: number; line: number; raw: Record<string, unknown>; entry: AssistantEntryIn }
  /** Attachments, system entries, progress, or a user/assistant line whose message did not validate: links only. */
  | { kind: 'link'; uuid: string; parentUuid: string | null; index: number; line: number; raw: Record<string, unknown> };

export interface ParsedTranscript {
  /** Chain entries in file order (sidechain entries excluded). */
  nodes: ChainNode[];
  byUuid: Map<string, ChainNode>;
  modelUsage: Record<string, ModelUsageTotals> | undefined;
  warnings: string[];
}

const MAX_WARNINGS = 20;

class Warnings {
  readonly list: string[] = [];
  private dropped = 0;
  add(msg: string): void {
    if (this.list.length < MAX_WARNINGS) this.list.push(msg);
    else this.dropped++;
  }
  done(): string[] {
    return this.dropped ? [...this.list, `… and ${this.dropped} more warnings`] : this.list;
  }
}

function parseLine(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Parses a transcript held in memory. Never throws on content. */
export function parseTranscript(buf: Buffer): ParsedTranscript {
  const warnings = new Warnings();
  const nodes: ChainNode[] = [];
  const byUuid = new Map<string, ChainNode>();
  let modelUsage: Record<string, ModelUsageTotals> | undefined;
  let pos = 0;
  let line = 0;
  while (pos < buf.length) {
    let end = buf.indexOf(0x0a, pos);
    const terminated = end !== -1;
    if (!terminated) end = buf.length;
    line++;
    // trim: CRLF files (edited on Windows) and a leading BOM read like plain LF lines
    const text = buf.toString('utf8', pos, end).replace(/^\uFEFF/, '').trim();
    pos = end + 1;
    if (text === '') continue;
    const parsed = parseLine(text);
    if (!parsed.ok) {
      warnings.add(
        terminated
          ? `line ${line}: not valid JSON; skipped`
          : `line ${line}: incomplete last line (${Buffer.byteLength(text)} bytes), probably cut by a killed process; ignored`,
      );
      continue;
    }
    const value = parsed.value;
    const usage = parseModelUsage(value);
    if (usage) {
      modelUsage = usage;
      continue;
    }
    const linked = LinkedEntry.safeParse(value);
    if (!linked.success) continue; // metadata (last-prompt, summary, custom-title, …) or an unknown type
    const l = linked.data;
    if (l.isSidechain === true || l.teamName !== undefined) continue;
    const base = { uuid: l.uuid, parentUuid: l.parentUuid ?? null, index: nodes.length, line, raw: l };
    let node: ChainNode;
    if (l.type === 'user') {
      const u = UserEntryIn.safeParse(value);
      node = u.success ? { kind: 'user', ...base, entry: u.data } : { kind: 'link', ...base };
      if (!u.success) warnings.add(`line ${line}: user entry ${l.uuid} has no valid message; kept only as a link`);
    } else if (l.type === 'assistant') {
      const a = AssistantEntryIn.safeParse(value);
      node = a.success ? { kind: 'assistant', ...base, entry: a.data } : { kind: 'link', ...base };
      if (!a.success) warnings.add(`line ${line}: assistant entry ${l.uuid} has no valid message; kept only as a link`);
    } else {
      node = { kind: 'link', ...base };
    }
    if (byUuid.has(node.uuid)) warnings.add(`line ${line}: duplicate uuid ${node.uuid}; the later entry wins`);
    byUuid.set(node.uuid, node);
    nodes.push(node);
  }
  return { nodes, byUuid, modelUsage, warnings: warnings.done() };
}

/**
 * The last user/assistant entry in file order: where getSessionMessages starts walking. An agentd rewind after it
 * counts too (it is on the chain after the entries it drops), so a resume sees that the conversation went back.
 */
export function defaultLeaf(t: ParsedTranscript): ChainNode | undefined {
  for (let i = t.nodes.length - 1; i >= 0; i--) {
    const n = t.nodes[i];
    if (n && (n.kind !== 'link' || rewindTarget(n.raw) !== undefined)) return n;
  }
  return undefined;
}

/**
 * The chain as the conversation continues from it: at each agentd rewind, the entries after the one it names are
 * dropped (the rewind itself too). A rewind that names no earlier entry of the chain is ignored, with a warning.
 */
export function applyRewinds(chain: readonly ChainNode[], warnings: string[]): ChainNode[] {
  const out: ChainNode[] = [];
  for (const n of chain) {
    const r = n.kind === 'link' ? rewindTarget(n.raw) : undefined;
    if (r === undefined) {
      out.push(n);
      continue;
    }
    if (r.to === null) {
      out.length = 0;
      continue;
    }
    const at = out.findLastIndex((x) => x.uuid === r.to);
    if (at < 0) warnings.push(`line ${n.line}: a rewind names entry ${r.to}, which is not on the chain before it; ignored`);
    else out.length = at + 1;
  }
  return out;
}

/** An entry whose parent link was broken, and where a resume attached it instead. */
export interface Relink {
  /** 1-based line of the entry in the transcript. */
  line: number;
  uuid: string;
  /** The parent it names: not in the file (`parent_missing`), or an entry already on the chain (`cycle`). */
  parentUuid: string;
  problem: 'parent_missing' | 'cycle';
  /** The entry it was attached to: the nearest earlier entry that ends a branch; null when there was none. */
  linkedTo: string | null;
}

/**
 * The chain from the root to `leaf`, following parentUuid. Where a link is broken (a parent that is not in the
 * file, or a cycle), the walk goes on from the nearest earlier entry in file order that no entry names as its
 * parent (the end of the branch the broken entry was written after), so every intact earlier turn is kept, as
 * Claude Code 2.1.330 keeps them (measured); each such repair is reported in `relinks` and `warnings`.
 */
export function chainTo(t: ParsedTranscript, leaf: ChainNode, warnings: string[], relinks: Relink[] = []): ChainNode[] {
  const out: ChainNode[] = [];
  const seen = new Set<string>();
  let named: Set<string> | undefined;
  /** The nearest entry before `index` that ends a branch and is not on the chain yet. */
  const branchEndBefore = (index: number): ChainNode | undefined => {
    // Progress entries hang off the calls they report on: they do not end a branch, nor continue one.
    named ??= new Set(t.nodes.flatMap((n) => (n.parentUuid === null || n.raw['type'] === 'progress' ? [] : [n.parentUuid])));
    for (let i = index - 1; i >= 0; i--) {
      const n = t.nodes[i];
      if (n && !seen.has(n.uuid) && !named.has(n.uuid) && n.raw['type'] !== 'progress') return n;
    }
    return undefined;
  };
  let cur: ChainNode | undefined = leaf;
  while (cur) {
    seen.add(cur.uuid);
    out.push(cur);
    const parent: string | null = cur.parentUuid;
    if (parent === null) break;
    const next = t.byUuid.get(parent);
    if (next && !seen.has(next.uuid)) {
      cur = next;
      continue;
    }
    const problem = next ? 'cycle' : 'parent_missing';
    const instead = branchEndBefore(cur.index);
    relinks.push({ line: cur.line, uuid: cur.uuid, parentUuid: parent, problem, linkedTo: instead?.uuid ?? null });
    warnings.push(
      `entry ${cur.uuid} (line ${cur.line}) names a parent ${parent} that ${problem === 'cycle' ? 'makes a cycle' : 'is not in the file'}; ${instead ? `linked to the entry before it, ${instead.uuid} (line ${instead.line})` : 'history starts there'}`,
    );
    cur = instead;
  }
  return out.reverse();
}
