// The JSONL line format of Claude Code transcripts (protocol.md §9.3): what agentd writes, and the schemas it
// reads lines back with. Readers are liberal (loose objects, unknown types skipped); writers copy the field
// names and order of CLI 2.1.330 so every reader of Claude Code transcripts reads agentd's unchanged.
import * as z from 'zod/mini';
import type { AssistantBlock, UserBlock } from '../model/types.js';
import type { DecisionMeta, ModelUsageTotals } from '../thread/events.js';
import type { RewindReason } from '../thread/recorder.js';

/** The CLI version agentd's transcripts claim to come from (the protocol version agentd implements). */
export const TRANSCRIPT_VERSION = '2.1.330';
/** Model name Claude Code gives messages it made up itself (API errors); never sent back to the model. */
export const SYNTHETIC_MODEL = '<synthetic>';
/** agentd's own metadata line: cumulative model usage, so a resumed session continues its cost totals. */
export const USAGE_ENTRY_TYPE = 'agentd-usage';

/** The fields every conversation entry of one session shares. */
export interface EntryContext {
  sessionId: string;
  cwd: string;
  entrypoint: string;
  version: string;
  /** Set for a subagent's sidechain transcript (`<session>/subagents/agent-<id>.jsonl`): entries say `isSidechain: true`. */
  agentId?: string;
}

export interface ApiAssistantMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AssistantBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: unknown;
}

interface Tail {
  userType: 'external';
  entrypoint: string;
  cwd: string;
  sessionId: string;
  version: string;
  agentId?: string;
}

export interface UserEntry extends Tail {
  parentUuid: string | null;
  isSidechain: boolean;
  type: 'user';
  message: { role: 'user'; content: string | UserBlock[] };
  uuid: string;
  timestamp: string;
  isMeta?: true;
  toolUseResult?: unknown;
  sourceToolAssistantUUID?: string;
  permissionDecision?: DecisionMeta;
}

export interface AssistantEntry extends Tail {
  parentUuid: string | null;
  isSidechain: boolean;
  message: ApiAssistantMessage;
  requestId?: string;
  type: 'assistant';
  uuid: string;
  timestamp: string;
  isApiErrorMessage?: true;
  error?: string;
}

function tail(ctx: EntryContext): Tail {
  return {
    userType: 'external',
    entrypoint: ctx.entrypoint,
    cwd: ctx.cwd,
    sessionId: ctx.sessionId,
    version: ctx.version,
    ...(ctx.agentId !== undefined ? { agentId: ctx.agentId } : {}),
  };
}

export function userEntry(
  ctx: EntryContext,
  e: {
    uuid: string;
    parentUuid: string | null;
    timestamp: string;
    content: string | UserBlock[];
    isMeta?: boolean;
    toolUseResult?: unknown;
    sourceToolAssistantUUID?: string;
    permissionDecision?: DecisionMeta;
  },
): UserEntry {
  return {
    parentUuid: e.parentUuid,
    isSidechain: ctx.agentId !== undefined,
    type: 'user',
    message: { role: 'user', content: e.content },
    uuid: e.uuid,
    timestamp: e.timestamp,
    ...(e.isMeta ? { isMeta: true as const } : {}),
    ...(e.toolUseResult !== undefined ? { toolUseResult: e.toolUseResult } : {}),
    ...(e.sourceToolAssistantUUID !== undefined ? { sourceToolAssistantUUID: e.sourceToolAssistantUUID } : {}),
    ...(e.permissionDecision !== undefined ? { permissionDecision: e.permissionDecision } : {}),
    ...tail(ctx),
  };
}

/** Claude Code's compaction boundary: a system entry that starts a new chain (parentUuid null). */
export function compactBoundaryEntry(
  ctx: EntryContext,
  e: { uuid: string; logicalParentUuid: string | null; timestamp: string; trigger: 'manual' | 'auto'; preTokens: number; postTokens: number; durationMs: number },
): object {
  return {
    parentUuid: null,
    logicalParentUuid: e.logicalParentUuid,
    isSidechain: false,
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    isMeta: false,
    timestamp: e.timestamp,
    uuid: e.uuid,
    level: 'info',
    compactMetadata: { trigger: e.trigger, preTokens: e.preTokens, postTokens: e.postTokens, durationMs: e.durationMs },
    ...tail(ctx),
  };
}

/** agentd's system entry for a thread that went back (thread/recorder.ts 'rewind'). */
export const REWIND_SUBTYPE = 'agentd_rewind';

const REWIND_TEXT: Record<RewindReason, string> = {
  prompt_too_long:
    'The API refused the request as too long for the context window: the prompt above, and what followed it, are not part of the conversation from here on.',
};

/**
 * A rewind, on the chain like any entry (so every reader still shows the refused prompt, as Claude Code's
 * transcript would), naming in `rewindTo` the entry the conversation continues from; agentd's resume drops the
 * entries between (session-store.ts applyRewinds). Claude Code's readers skip a system subtype they do not know.
 */
export function rewindEntry(ctx: EntryContext, e: { uuid: string; parentUuid: string | null; timestamp: string; to: string | null; reason: RewindReason }): object {
  return {
    parentUuid: e.parentUuid,
    isSidechain: ctx.agentId !== undefined,
    type: 'system',
    subtype: REWIND_SUBTYPE,
    content: REWIND_TEXT[e.reason],
    isMeta: false,
    timestamp: e.timestamp,
    uuid: e.uuid,
    level: 'info',
    rewindTo: e.to,
    reason: e.reason,
    ...tail(ctx),
  };
}

/** The rewind a chain entry records: the entry the conversation continues from (null: from nothing); else undefined. */
export function rewindTarget(raw: Record<string, unknown>): { to: string | null } | undefined {
  if (raw['type'] !== 'system' || raw['subtype'] !== REWIND_SUBTYPE) return undefined;
  const to = raw['rewindTo'];
  return typeof to === 'string' || to === null ? { to } : undefined;
}

/** The summary a compacted chain starts from (Claude Code marks it isCompactSummary). */
export function compactSummaryEntry(ctx: EntryContext, e: { uuid: string; parentUuid: string | null; timestamp: string; text: string }): object {
  return { ...userEntry(ctx, { uuid: e.uuid, parentUuid: e.parentUuid, timestamp: e.timestamp, content: e.text }), isCompactSummary: true, isVisibleInTranscriptOnly: true };
}

export function assistantEntry(
  ctx: EntryContext,
  e: { uuid: string; parentUuid: string | null; timestamp: string; message: ApiAssistantMessage; requestId?: string; error?: string },
): AssistantEntry {
  const apiError = e.message.model === SYNTHETIC_MODEL && e.error !== undefined;
  return {
    parentUuid: e.parentUuid,
    isSidechain: ctx.agentId !== undefined,
    message: e.message,
    ...(e.requestId !== undefined ? { requestId: e.requestId } : {}),
    type: 'assistant',
    uuid: e.uuid,
    timestamp: e.timestamp,
    ...(apiError ? { isApiErrorMessage: true as const } : {}),
    ...(e.error !== undefined ? { error: e.error } : {}),
    ...tail(ctx),
  };
}

// ---- reading ----

const ParentUuid = z.lazy(() => z.optional(z.nullable(z.string())));
const OpaqueBlock = z.lazy(() => z.looseObject({ type: z.string() }));

/** Any line that takes part in the parentUuid chain (user, assistant, system, attachment, progress). */
export const LinkedEntry = z.lazy(() => z.looseObject({
  type: z.string(),
  uuid: z.string(),
  parentUuid: ParentUuid,
  isSidechain: z.optional(z.boolean()),
  teamName: z.optional(z.unknown()),
}));
export type LinkedEntry = z.infer<typeof LinkedEntry>;

export const UserEntryIn = z.lazy(() => z.looseObject({
  type: z.literal('user'),
  uuid: z.string(),
  parentUuid: ParentUuid,
  isMeta: z.optional(z.boolean()),
  isVisibleInTranscriptOnly: z.optional(z.boolean()),
  /** The summary a compacted chain starts from: marked transcript-only, but it is what the model continues from. */
  isCompactSummary: z.optional(z.boolean()),
  message: z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(OpaqueBlock)]) }),
}));
export type UserEntryIn = z.infer<typeof UserEntryIn>;

export const AssistantEntryIn = z.lazy(() => z.looseObject({
  type: z.literal('assistant'),
  uuid: z.string(),
  parentUuid: ParentUuid,
  isApiErrorMessage: z.optional(z.boolean()),
  message: z.looseObject({
    id: z.optional(z.string()),
    role: z.literal('assistant'),
    model: z.optional(z.string()),
    content: z.array(z.unknown()),
  }),
}));
export type AssistantEntryIn = z.infer<typeof AssistantEntryIn>;

const TextBlockIn = z.lazy(() => z.looseObject({ type: z.literal('text'), text: z.string() }));
const ThinkingBlockIn = z.lazy(() => z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }));
const RedactedThinkingBlockIn = z.lazy(() => z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }));
const ToolUseBlockIn = z.lazy(() => z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }));
const ServerBlockIn = z.lazy(() => z.looseObject({
  type: z.enum(['server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result']),
}));
const AssistantBlockIn = z.lazy(() => z.union([TextBlockIn, ThinkingBlockIn, RedactedThinkingBlockIn, ToolUseBlockIn, ServerBlockIn]));

/** An assistant content block the API accepts back, or undefined (unknown or malformed block). */
export function parseAssistantBlock(raw: unknown): AssistantBlock | undefined {
  const r = AssistantBlockIn.safeParse(raw);
  return r.success ? r.data : undefined;
}

const ToolResultRef = z.lazy(() => z.looseObject({ type: z.literal('tool_result'), tool_use_id: z.string() }));

/** The tool_use id a user content block answers, if it is a tool_result. */
export function toolResultId(block: unknown): string | undefined {
  const r = ToolResultRef.safeParse(block);
  return r.success ? r.data.tool_use_id : undefined;
}

const ModelUsageTotalsIn = z.lazy(() => z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  webSearchRequests: z.number(),
  costUSD: z.number(),
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
  costBasis: z.string(),
}));

export const UsageEntryIn = z.lazy(() => z.looseObject({
  type: z.literal(USAGE_ENTRY_TYPE),
  modelUsage: z.record(z.string(), ModelUsageTotalsIn),
}));

export function parseModelUsage(raw: unknown): Record<string, ModelUsageTotals> | undefined {
  const r = UsageEntryIn.safeParse(raw);
  return r.success ? r.data.modelUsage : undefined;
}
