// The scenario file format of the scripted model (documented in docs/scripted-model.md).
// A scenario is a list of rules; the first rule whose `when` matches the request and that has replies left
// answers it. Replies are streamed as real Messages SSE events, with optional delays and errors.
import * as z from 'zod/mini';

const TextMatch = z.lazy(() => z.union([z.string(), z.strictObject({ regex: z.string(), flags: z.optional(z.string()) })]));
export type TextMatch = z.infer<typeof TextMatch>;

export const When = z.lazy(() => z.strictObject({
  /** Substring (or {regex}) of the text of the last user message that is not only tool results. */
  lastUserText: z.optional(TextMatch),
  /** Substring (or {regex}) of the text of the very last user message, tool results included. */
  lastMessageText: z.optional(TextMatch),
  /** The last message carries a tool_result for this tool_use id. */
  toolResultFor: z.optional(z.string()),
  /** The last message carries tool results (true) or not (false). */
  hasToolResults: z.optional(z.boolean()),
  /** 0-based index of this request among all requests the model has received. */
  requestIndex: z.optional(z.number()),
  /** Number of assistant messages already in the conversation. */
  assistantTurns: z.optional(z.number()),
  /** Substring (or {regex}) of the system prompt text. */
  system: z.optional(TextMatch),
  /** Exact model id requested. */
  model: z.optional(z.string()),
  /** A tool with this name is offered to the model. */
  hasTool: z.optional(z.string()),
}));
export type When = z.infer<typeof When>;

export const ScriptedBlock = z.lazy(() => z.union([
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.optional(z.string()) }),
  z.strictObject({
    type: z.literal('tool_use'),
    id: z.optional(z.string()),
    name: z.string(),
    input: z.optional(z.record(z.string(), z.unknown())),
    /** Streams this text as the input JSON instead of `input` (for malformed-JSON tests). */
    rawInput: z.optional(z.string()),
  }),
]));
export type ScriptedBlock = z.infer<typeof ScriptedBlock>;

export const Delays = z.lazy(() => z.strictObject({
  /** Before the response starts (HTTP status and message_start). */
  firstTokenMs: z.optional(z.number()),
  /** Between two delta chunks. */
  chunkMs: z.optional(z.number()),
  /** After the content_block_stop of each block, indexed by block position ("*" for every block). */
  afterBlockMs: z.optional(z.record(z.string(), z.number())),
}));

export const ApiErrorSpec = z.lazy(() => z.strictObject({
  status: z.number(),
  type: z.optional(z.string()),
  message: z.optional(z.string()),
  /** Sent as the retry-after header, in seconds. */
  retryAfter: z.optional(z.number()),
}));

export const Reply = z.lazy(() => z.strictObject({
  content: z.optional(z.array(ScriptedBlock)),
  stopReason: z.optional(z.enum(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal'])),
  usage: z.optional(z.strictObject({ input_tokens: z.optional(z.number()), output_tokens: z.optional(z.number()) })),
  /** Characters per delta chunk (default 32). */
  chunkSize: z.optional(z.number().check(z.int(), z.gte(1))),
  delays: z.optional(Delays),
  /** Answer with an HTTP error instead of a stream. */
  error: z.optional(ApiErrorSpec),
  /** Stream this many complete blocks, then send an SSE `error` event. */
  streamErrorAfterBlocks: z.optional(z.number()),
  /** Stream this many complete blocks (plus half of the next one's deltas), then drop the connection. */
  disconnectAfterBlocks: z.optional(z.number()),
  /** Send nothing at all (no headers, no events) until the client gives up. */
  stall: z.optional(z.boolean()),
}));
export type Reply = z.infer<typeof Reply>;

export const Rule = z.lazy(() => z.strictObject({
  name: z.optional(z.string()),
  when: z.optional(When),
  /** Replies used in order, one per matching request; the rule is spent when they run out. */
  replies: z.optional(z.array(Reply)),
  /** A single reply, used every time the rule matches (unless `times` limits it). */
  reply: z.optional(Reply),
  times: z.optional(z.number().check(z.int(), z.gte(1))),
}));
export type Rule = z.infer<typeof Rule>;

export const Scenario = z.lazy(() => z.strictObject({
  $schema: z.optional(z.string()),
  description: z.optional(z.string()),
  /** Model id reported in message_start (default: the requested model). */
  model: z.optional(z.string()),
  defaults: z.optional(
    z.strictObject({
      chunkSize: z.optional(z.number().check(z.int(), z.gte(1))),
      delays: z.optional(Delays),
      usage: z.optional(z.strictObject({ input_tokens: z.optional(z.number()), output_tokens: z.optional(z.number()) })),
    }),
  ),
  rules: z.array(Rule),
  /** Used when no rule matches (default: a text naming the unmatched request). */
  fallback: z.optional(Reply),
}));
export type Scenario = z.infer<typeof Scenario>;

export function parseScenario(value: unknown): { ok: true; scenario: Scenario } | { ok: false; message: string } {
  const r = Scenario.safeParse(value);
  if (r.success) return { ok: true, scenario: r.data };
  return {
    ok: false,
    message: r.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; '),
  };
}
