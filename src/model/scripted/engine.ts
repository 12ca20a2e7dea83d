// Turns a scenario and a request into a timed plan of Messages SSE events. Shared by the in-process scripted
// model and the loopback HTTP server of the tests, so both speak exactly the same script.
import type { ApiMessage, ModelRequest, RawStreamEvent, UserBlock } from '../types.js';
import { tokensForChars } from '../token-estimate.js';
import type { Reply, Rule, Scenario, ScriptedBlock, TextMatch, When } from './scenario.js';

export interface TimedEvent {
  delayMs: number;
  event: RawStreamEvent;
}

export type Plan =
  | { kind: 'error'; delayMs: number; status: number; type: string; message: string; retryAfterSec?: number }
  | { kind: 'stall' }
  | {
      kind: 'stream';
      /** Before message_start (time to first byte). */
      firstTokenMs: number;
      events: TimedEvent[];
      /** What happens after the last event: a clean end, an SSE error event, or a dropped connection. */
      end: { kind: 'complete' } | { kind: 'error'; type: string; message: string } | { kind: 'disconnect' };
      ruleName: string | undefined;
    };

interface RuleState {
  rule: Rule;
  used: number;
}

export interface RequestFacts {
  lastUserText: string;
  lastMessageText: string;
  toolResultIds: string[];
  lastToolResultText: string;
  assistantTurns: number;
  systemText: string;
  toolNames: string[];
}

/** `o[key]` when it is a string, else '' (a malformed block reads as empty, never as "[object Object]"). */
function stringField(o: unknown, key: string): string {
  const v: unknown = typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : '';
}

function isReminder(text: string): boolean {
  return text.startsWith('<system-reminder>\n# Environment\n') || text.startsWith('<system-reminder>\nInstructions from the memory files');
}

function blockText(b: UserBlock): string {
  if (b.type === 'text' && typeof (b as { text?: unknown }).text === 'string') return (b as { text: string }).text;
  if (b.type === 'tool_result') {
    const c = (b as { content?: unknown }).content;
    if (typeof c === 'string') return c;
    if (Array.isArray(c)) {
      return c
        .map((x: unknown) =>
          typeof x === 'object' && x !== null && (x as { type?: unknown }).type === 'text'
            ? stringField(x, 'text')
            : '',
        )
        .join('');
    }
  }
  return '';
}

function messageText(m: ApiMessage): string {
  if (m.role !== 'user') return '';
  if (typeof m.content === 'string') return m.content;
  return m.content.map(blockText).join('\n');
}

function isToolResultOnly(m: ApiMessage): boolean {
  return m.role === 'user' && Array.isArray(m.content) && m.content.length > 0 && m.content.every((b) => b.type === 'tool_result');
}

export function requestFacts(req: ModelRequest): RequestFacts {
  const msgs = req.messages;
  const last = msgs[msgs.length - 1];
  let lastUserText = '';
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m && m.role === 'user' && !isToolResultOnly(m)) {
      // What the user typed: not the tool results, nor the context agentd puts before a prompt (environment,
      // memory files), which travels as whole <system-reminder> blocks.
      lastUserText =
        typeof m.content === 'string'
          ? m.content
          : m.content
              .filter((b) => b.type !== 'tool_result' && !(b.type === 'text' && isReminder(blockText(b))))
              .map(blockText)
              .join('\n');
      break;
    }
  }
  const toolResults =
    last && last.role === 'user' && Array.isArray(last.content) ? last.content.filter((b) => b.type === 'tool_result') : [];
  return {
    lastUserText,
    lastMessageText: last ? messageText(last) : '',
    toolResultIds: toolResults.map((b) => stringField(b, 'tool_use_id')),
    lastToolResultText: toolResults.map(blockText).join('\n'),
    assistantTurns: msgs.filter((m) => m.role === 'assistant').length,
    systemText: (req.system ?? []).map((s) => s.text).join('\n'),
    toolNames: (req.tools ?? []).map((t) => t.name),
  };
}

function matchText(m: TextMatch, s: string): boolean {
  if (typeof m === 'string') return s.includes(m);
  return new RegExp(m.regex, m.flags).test(s);
}

function matches(when: When | undefined, req: ModelRequest, f: RequestFacts, index: number): boolean {
  if (!when) return true;
  if (when.lastUserText !== undefined && !matchText(when.lastUserText, f.lastUserText)) return false;
  if (when.lastMessageText !== undefined && !matchText(when.lastMessageText, f.lastMessageText)) return false;
  if (when.toolResultFor !== undefined && !f.toolResultIds.includes(when.toolResultFor)) return false;
  if (when.hasToolResults !== undefined && when.hasToolResults !== f.toolResultIds.length > 0) return false;
  if (when.requestIndex !== undefined && when.requestIndex !== index) return false;
  if (when.assistantTurns !== undefined && when.assistantTurns !== f.assistantTurns) return false;
  if (when.system !== undefined && !matchText(when.system, f.systemText)) return false;
  if (when.model !== undefined && when.model !== req.model) return false;
  if (when.hasTool !== undefined && !f.toolNames.includes(when.hasTool)) return false;
  return true;
}

function fill(template: string, req: ModelRequest, f: RequestFacts, index: number, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => {
    const v = vars[key];
    if (v !== undefined) return v;
    switch (key) {
      case 'lastUserText':
        return f.lastUserText;
      case 'lastToolResult':
        return f.lastToolResultText;
      case 'requestIndex':
        return String(index);
      case 'model':
        return req.model;
      case 'toolNames':
        return f.toolNames.join(', ');
      default:
        return whole;
    }
  });
}

function chunks(s: string, size: number): string[] {
  if (s.length === 0) return [];
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/** A rough, deterministic token estimate (model/token-estimate.ts's rule, at least one). */
export function estimateTokens(s: string): number {
  return Math.max(1, tokensForChars(s.length));
}

export class ScenarioEngine {
  private readonly rules: RuleState[];
  private requestCount = 0;
  /**
   * Every request the model was asked, in order (what the tests assert on), when recording. The daemon's
   * scripted model does not record: each request holds the whole conversation so far, and keeping them all
   * grew a long session's memory by hundreds of KiB a turn.
   */
  readonly requests: ModelRequest[] = [];

  constructor(
    private readonly scenario: Scenario,
    /** Extra template variables, e.g. {{cwd}} (the daemon's working directory). */
    private readonly vars: Readonly<Record<string, string>> = {},
    private readonly opts: { record?: boolean } = {},
  ) {
    this.rules = scenario.rules.map((rule) => ({ rule, used: 0 }));
  }

  plan(req: ModelRequest): Plan {
    const index = this.requestCount++;
    if (this.opts.record) this.requests.push(req);
    const f = requestFacts(req);
    for (const st of this.rules) {
      const { rule } = st;
      const limit = rule.replies ? rule.replies.length : (rule.times ?? Number.POSITIVE_INFINITY);
      if (st.used >= limit || (rule.times !== undefined && st.used >= rule.times)) continue;
      if (!matches(rule.when, req, f, index)) continue;
      const reply = rule.replies ? rule.replies[st.used] : rule.reply;
      st.used++;
      if (reply) return this.build(reply, req, f, index, rule.name);
    }
    const fallback: Reply = this.scenario.fallback ?? {
      content: [{ type: 'text', text: `[scripted model] no rule matched request ${index}: ${f.lastMessageText.slice(0, 200)}` }],
    };
    return this.build(fallback, req, f, index, undefined);
  }

  private build(reply: Reply, req: ModelRequest, f: RequestFacts, index: number, ruleName: string | undefined): Plan {
    const defaults = this.scenario.defaults;
    const delays = { ...defaults?.delays, ...reply.delays };
    if (reply.error) {
      return {
        kind: 'error',
        delayMs: delays.firstTokenMs ?? 0,
        status: reply.error.status,
        type: reply.error.type ?? defaultErrorType(reply.error.status),
        message: reply.error.message ?? `Scripted ${reply.error.status} error`,
        ...(reply.error.retryAfter !== undefined ? { retryAfterSec: reply.error.retryAfter } : {}),
      };
    }
    if (reply.stall) return { kind: 'stall' };

    const chunkSize = reply.chunkSize ?? defaults?.chunkSize ?? 32;
    const chunkMs = delays.chunkMs ?? 0;
    const content: ScriptedBlock[] = reply.content ?? [{ type: 'text', text: '' }];
    const hasToolUse = content.some((b) => b.type === 'tool_use');
    const stopReason = reply.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn');
    // Estimated only when the scenario gives no figure (serialising a long conversation is not free).
    const inputTokens =
      reply.usage?.input_tokens ?? defaults?.usage?.input_tokens ?? estimateTokens(JSON.stringify(req.messages) + (req.system ?? []).map((s) => s.text).join(''));
    const msgId = `msg_scripted_${String(index + 1).padStart(4, '0')}`;
    const events: TimedEvent[] = [];
    const push = (delayMs: number, event: RawStreamEvent): void => {
      events.push({ delayMs, event });
    };
    push(0, {
      type: 'message_start',
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model: this.scenario.model ?? req.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    });
    let outputChars = 0;
    const cutAt = reply.disconnectAfterBlocks ?? reply.streamErrorAfterBlocks;
    let end: Extract<Plan, { kind: 'stream' }>['end'] = { kind: 'complete' };
    for (let i = 0; i < content.length; i++) {
      const b = content[i] as ScriptedBlock;
      const partial = reply.disconnectAfterBlocks !== undefined && i === reply.disconnectAfterBlocks;
      if (cutAt !== undefined && i >= cutAt && !partial) break;
      const deltas: RawStreamEvent[] = [];
      if (b.type === 'text') {
        const text = fill(b.text, req, f, index, this.vars);
        outputChars += text.length;
        push(0, { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } });
        for (const c of chunks(text, chunkSize)) deltas.push({ type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: c } });
      } else if (b.type === 'thinking') {
        const text = fill(b.thinking, req, f, index, this.vars);
        outputChars += text.length;
        push(0, { type: 'content_block_start', index: i, content_block: { type: 'thinking', thinking: '', signature: '' } });
        for (const c of chunks(text, chunkSize)) deltas.push({ type: 'content_block_delta', index: i, delta: { type: 'thinking_delta', thinking: c } });
        deltas.push({ type: 'content_block_delta', index: i, delta: { type: 'signature_delta', signature: b.signature ?? `scripted-signature-${i}` } });
      } else {
        const id = b.id ?? `toolu_scripted_${index + 1}_${i}`;
        const json = b.rawInput ?? JSON.stringify(fillDeep(b.input ?? {}, (t) => fill(t, req, f, index, this.vars)));
        outputChars += json.length;
        push(0, { type: 'content_block_start', index: i, content_block: { type: 'tool_use', id, name: b.name, input: {} } });
        for (const c of chunks(json, chunkSize)) deltas.push({ type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: c } });
      }
      if (partial) {
        for (const d of deltas.slice(0, Math.ceil(deltas.length / 2))) push(chunkMs, d);
        end = { kind: 'disconnect' };
        break;
      }
      for (const d of deltas) push(chunkMs, d);
      push(0, { type: 'content_block_stop', index: i });
      const after = delays.afterBlockMs?.[String(i)] ?? delays.afterBlockMs?.['*'];
      if (after) events.push({ delayMs: after, event: { type: 'ping' } });
    }
    if (end.kind === 'complete' && reply.streamErrorAfterBlocks !== undefined) {
      end = { kind: 'error', type: 'overloaded_error', message: 'Overloaded (scripted stream error)' };
    }
    if (end.kind === 'complete') {
      const outputTokens = reply.usage?.output_tokens ?? defaults?.usage?.output_tokens ?? Math.max(1, tokensForChars(outputChars));
      push(0, { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } });
      push(0, { type: 'message_stop' });
    }
    return { kind: 'stream', firstTokenMs: delays.firstTokenMs ?? 0, events, end, ruleName };
  }
}

function defaultErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return 'api_error';
  }
}

/** Applies `fill` to every string inside a tool input. */
function fillDeep(v: unknown, fillOne: (s: string) => string): unknown {
  if (typeof v === 'string') return fillOne(v);
  if (Array.isArray(v)) return v.map((x) => fillDeep(x, fillOne));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fillDeep(x, fillOne)]));
  return v;
}
