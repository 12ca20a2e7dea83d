// The Messages API vocabulary the core speaks, and the narrow port every model provider implements.
// Owned here (not imported from @anthropic-ai/sdk) so the core compiles and tests without the SDK.

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens?: number; ephemeral_5m_input_tokens?: number } | null;
  server_tool_use?: { web_search_requests?: number; web_fetch_requests?: number } | null;
  service_tier?: string | null;
}

export interface TextBlock {
  type: 'text';
  text: string;
  citations?: unknown[] | null;
}
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}
/** Server-side blocks (web search and the like) are carried through untouched. */
export interface ServerBlock {
  type: 'server_tool_use' | 'web_search_tool_result' | 'web_fetch_tool_result' | 'code_execution_tool_result';
  [k: string]: unknown;
}
export type AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ServerBlock;

export interface ImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
}
export interface DocumentBlock {
  type: 'document';
  source: Record<string, unknown>;
  title?: string;
}
export type ToolResultContent = string | Array<TextBlock | ImageBlock | DocumentBlock>;
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: ToolResultContent;
  is_error?: boolean;
  cache_control?: { type: 'ephemeral' };
}
/** A block the host sent that agentd passes to the model as is (validated only for its `type`). */
export interface OpaqueBlock {
  type: string;
  [k: string]: unknown;
}
export type UserBlock = TextBlock | ImageBlock | DocumentBlock | ToolResultBlock | OpaqueBlock;

export type ApiMessage =
  | { role: 'user'; content: string | UserBlock[] }
  | { role: 'assistant'; content: AssistantBlock[] };

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** A tool the API runs itself (web search). Only the secondary requests tools make (SideModel) carry one. */
export interface ServerToolDefinition {
  type: 'web_search_20250305';
  name: 'web_search';
  max_uses?: number;
  allowed_domains?: string[];
  blocked_domains?: string[];
}

/** How the API shows thinking in the answer (Claude Code's display modes; `updates` needs its beta). */
export type ThinkingDisplayMode = 'updates' | 'summarized' | 'omitted' | 'highlights';

export type ThinkingConfig =
  | { type: 'enabled'; budget_tokens: number; display?: ThinkingDisplayMode }
  | { type: 'adaptive'; display?: ThinkingDisplayMode }
  | { type: 'disabled' };

export interface SystemBlock {
  type: 'text';
  text: string;
  cache_control?: { type: 'ephemeral' };
}

export interface ModelRequest {
  model: string;
  max_tokens: number;
  system?: SystemBlock[];
  messages: ApiMessage[];
  tools?: Array<ToolDefinition | ServerToolDefinition>;
  thinking?: ThinkingConfig;
  /** Keeps the conversation's thinking blocks (sent whenever thinking is on, as Claude Code does). */
  context_management?: { edits: ReadonlyArray<{ type: string; keep: string }> };
  output_config?: { effort: 'low' | 'medium' | 'high' | 'xhigh' | 'max' };
  temperature?: number;
  metadata?: { user_id?: string };
  betas?: string[];
  /** Bedrock only: the body's `anthropic_beta` (Claude Code sends a list of its own there beside the header's). */
  bedrockBetas?: string[];
}

// ---- raw stream events (the Messages SSE protocol) ----

export type BlockStart =
  | { type: 'text'; text: string; citations?: unknown[] | null }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | ServerBlock;

export type BlockDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'citations_delta'; citation: unknown };

export interface MessageStartPayload {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: unknown[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: Usage;
}

export type RawStreamEvent =
  | { type: 'message_start'; message: MessageStartPayload }
  | { type: 'content_block_start'; index: number; content_block: BlockStart }
  | { type: 'content_block_delta'; index: number; delta: BlockDelta }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: string | null; stop_sequence: string | null };
      usage: Partial<Usage> & { output_tokens: number };
    }
  | { type: 'message_stop' }
  | { type: 'ping' };

/**
 * An event may carry its JSON text under this symbol (the SSE data as received, or precomputed by the scripted
 * model), so the projector can splice it into a stream_event frame instead of serializing the object again.
 * Symbol keys are invisible to JSON.stringify and structuredClone: the event object is otherwise unchanged.
 */
export const RAW_JSON: unique symbol = Symbol('agentd.rawJson');
export type WithRaw<T> = T & { [RAW_JSON]?: string };

export interface ModelStream {
  /** The API's `request-id` header, when there was one. */
  requestId: string | undefined;
  events: AsyncIterable<WithRaw<RawStreamEvent>>;
  /** Maps an error thrown while iterating `events` to a ModelApiError (or the abort reason). */
  mapError?: (err: unknown) => unknown;
}

/**
 * Where a client sends its requests and with which credential: the facts Claude Code's error texts name (a
 * gateway's host on a server error, "Fix external API key" for a refused ANTHROPIC_API_KEY).
 */
export interface ModelEndpoint {
  /** The host of a base URL the user set (a gateway); undefined for the provider's own endpoint. */
  gatewayHost: string | undefined;
  /** First party: the credential sent (api_key also for apiKeyHelper's key); `provider` for Bedrock/Vertex/Foundry. */
  credential: 'api_key' | 'token' | 'none' | 'provider';
}

/** The port. `open` resolves once the response has started, so HTTP errors surface as a rejected promise. */
export interface ModelClient {
  readonly provider: string;
  /** Undefined for a client that talks to no endpoint (the scripted model). */
  readonly endpoint?: ModelEndpoint;
  open(request: ModelRequest, signal: AbortSignal): Promise<ModelStream>;
}

// ---- errors ----

export type ModelErrorKind =
  | 'missing_auth'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'invalid_request'
  | 'request_too_large'
  | 'context_overflow'
  | 'rate_limit'
  | 'overloaded'
  | 'server_error'
  | 'connection'
  | 'timeout'
  | 'stream_interrupted'
  | 'stalled';

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set([
  'rate_limit',
  'overloaded',
  'server_error',
  'connection',
  'timeout',
  'stream_interrupted',
  'stalled',
]);

export class ModelApiError extends Error {
  readonly kind: ModelErrorKind;
  readonly status: number | null;
  readonly retryAfterMs: number | undefined;
  readonly resetsAt: string | undefined;
  readonly requestId: string | undefined;
  /** The API's own name for the error (`invalid_request_error`, `overloaded_error`, …), where it gave one. */
  readonly apiType: string | undefined;

  constructor(
    kind: ModelErrorKind,
    message: string,
    opts: { status?: number | null; retryAfterMs?: number; resetsAt?: string; requestId?: string; apiType?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ModelApiError';
    this.kind = kind;
    this.status = opts.status ?? null;
    this.retryAfterMs = opts.retryAfterMs;
    this.resetsAt = opts.resetsAt;
    this.requestId = opts.requestId;
    this.apiType = opts.apiType;
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/** Maps an HTTP status and API error type to a kind (shared by the real adapter and the scripted model). */
export function kindForStatus(status: number | null, apiType?: string, message?: string): ModelErrorKind {
  if (apiType === 'overloaded_error' || status === 529) return 'overloaded';
  if (status === 401 || apiType === 'authentication_error') return 'authentication';
  if (status === 403 || apiType === 'permission_error') return 'permission';
  if (status === 404 || apiType === 'not_found_error') return 'not_found';
  if (status === 413 || apiType === 'request_too_large') return 'request_too_large';
  if (status === 429 || apiType === 'rate_limit_error') return 'rate_limit';
  if (status === 400 || apiType === 'invalid_request_error') {
    return /prompt is too long|context window|too many tokens/i.test(message ?? '') ? 'context_overflow' : 'invalid_request';
  }
  if (status !== null && status >= 500) return 'server_error';
  if (apiType === 'api_error') return 'server_error';
  return 'server_error';
}

/** Parses `retry-after` (seconds or HTTP date) and `retry-after-ms` headers. */
export function parseRetryAfter(get: (name: string) => string | null | undefined, now: number): number | undefined {
  const ms = get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  const ra = get('retry-after');
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000);
  const t = Date.parse(ra);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}
