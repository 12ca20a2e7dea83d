// Assembles content blocks from raw stream events. A block is handed out the moment its content_block_stop
// arrives, which is what lets tools start while the model is still streaming.
import type { AssistantBlock, RawStreamEvent, ToolUseBlock, Usage } from '../model/types.js';
import { mergeUsage } from './usage.js';

interface BlockState {
  block: AssistantBlock;
  json: string;
  complete: boolean;
  parseError?: string;
}

export interface CompletedBlock {
  index: number;
  block: AssistantBlock;
  /** Set for a tool_use whose streamed input was not a JSON object. */
  parseError?: string;
}

/** Claude Code's marker for tool input that did not parse; sent back to the API so the history stays valid. */
export function unparsedInput(raw: string): Record<string, unknown> {
  return { __unparsedToolInput: { raw: raw.slice(0, 10_000), len: raw.length } };
}

export class MessageAccumulator {
  id: string | undefined;
  model: string | undefined;
  usage: Usage = { input_tokens: 0, output_tokens: 0 };
  stopReason: string | null = null;
  stopSequence: string | null = null;
  started = false;
  stopped = false;
  private readonly blocks: Array<BlockState | undefined> = [];

  /** Applies one event; returns the block it completed, if any. */
  push(ev: RawStreamEvent): CompletedBlock | undefined {
    switch (ev.type) {
      case 'message_start':
        this.started = true;
        this.id = ev.message.id;
        this.model = ev.message.model;
        this.usage = { ...ev.message.usage };
        return undefined;
      case 'content_block_start': {
        const cb = ev.content_block;
        let block: AssistantBlock;
        if (cb.type === 'text') block = { type: 'text', text: cb.text ?? '' };
        else if (cb.type === 'thinking') block = { type: 'thinking', thinking: cb.thinking ?? '', signature: cb.signature ?? '' };
        else if (cb.type === 'tool_use') block = { type: 'tool_use', id: cb.id, name: cb.name, input: {} };
        else block = { ...cb };
        this.blocks[ev.index] = { block, json: '', complete: false };
        return undefined;
      }
      case 'content_block_delta': {
        const st = this.blocks[ev.index];
        if (!st) return undefined;
        const d = ev.delta;
        const b = st.block;
        if (d.type === 'text_delta' && b.type === 'text') b.text += d.text;
        else if (d.type === 'thinking_delta' && b.type === 'thinking') b.thinking += d.thinking;
        else if (d.type === 'signature_delta' && b.type === 'thinking') b.signature += d.signature;
        else if (d.type === 'input_json_delta') st.json += d.partial_json;
        else if (d.type === 'citations_delta' && b.type === 'text') (b.citations ??= []).push(d.citation);
        return undefined;
      }
      case 'content_block_stop': {
        const st = this.blocks[ev.index];
        if (!st || st.complete) return undefined;
        st.complete = true;
        if (st.block.type === 'tool_use') this.finishToolInput(st, st.block);
        return { index: ev.index, block: st.block, ...(st.parseError ? { parseError: st.parseError } : {}) };
      }
      case 'message_delta':
        this.stopReason = ev.delta.stop_reason;
        this.stopSequence = ev.delta.stop_sequence;
        this.usage = mergeUsage(this.usage, ev.usage);
        return undefined;
      case 'message_stop':
        this.stopped = true;
        return undefined;
      case 'ping':
        return undefined;
    }
  }

  private finishToolInput(st: BlockState, block: ToolUseBlock): void {
    const raw = st.json;
    if (raw.trim() === '') {
      block.input = {};
      return;
    }
    try {
      const v: unknown = JSON.parse(raw);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
        block.input = v as Record<string, unknown>;
        return;
      }
      st.parseError = 'the input is valid JSON but not an object';
    } catch (e) {
      st.parseError = e instanceof Error ? e.message : String(e);
    }
    block.input = unparsedInput(raw);
  }

  /** Completed blocks in index order (what a finished message holds). */
  completedBlocks(): AssistantBlock[] {
    return this.blocks.filter((s): s is BlockState => !!s && s.complete).map((s) => s.block);
  }

  /**
   * The blocks worth keeping from a message cut short: complete blocks, plus a partial text block. A partial
   * tool_use (input incomplete) or thinking (no signature) block would make the next API request invalid.
   */
  keptOnAbort(): { blocks: AssistantBlock[]; partialText: { index: number; block: AssistantBlock } | undefined } {
    const blocks: AssistantBlock[] = [];
    let partialText: { index: number; block: AssistantBlock } | undefined;
    this.blocks.forEach((s, index) => {
      if (!s) return;
      if (s.complete) blocks.push(s.block);
      else if (s.block.type === 'text' && s.block.text.length > 0) {
        blocks.push(s.block);
        partialText = { index, block: s.block };
      }
    });
    return { blocks, partialText };
  }

  /** Index the next block would have had (Claude Code reports it as abandoned_blocks.from_block_index). */
  get nextIndex(): number {
    return this.blocks.length;
  }

  openBlockIndexes(): number[] {
    const out: number[] = [];
    this.blocks.forEach((s, i) => {
      if (s && !s.complete) out.push(i);
    });
    return out;
  }
}
