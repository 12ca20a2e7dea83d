// How a model API error is named to the host: the result's error category (agentd's `agentd_error`), and what
// Claude Code 2.1.330 says — the synthetic assistant message's text (also the result's `result`), its `error`
// field and the result's terminal reason. The wording is Claude Code's, measured by driving the binary against a
// loopback API (test/measure/api-error-results.measure.ts): hosts and the ACP adapters read it, e.g. an
// adapter asks the editor to sign in when the text says "run /login".
import type { ModelApiError, ModelEndpoint } from '../model/types.js';
import type { ErrorCategory, TerminalReason } from '../thread/events.js';

export function errorCategoryOf(e: ModelApiError): ErrorCategory {
  switch (e.kind) {
    case 'missing_auth':
    case 'authentication':
    case 'permission':
      return 'authentication';
    case 'rate_limit':
      return 'rate_limit';
    case 'overloaded':
      return 'overloaded';
    case 'context_overflow':
    case 'request_too_large':
      return 'context_overflow';
    case 'invalid_request':
    case 'not_found':
      return 'invalid_request';
    case 'server_error':
      return 'server_error';
    case 'timeout':
    case 'stalled':
      return 'timeout';
    case 'connection':
    case 'stream_interrupted':
      return 'connection';
  }
}

/** What the texts depend on besides the error: the model asked for, and where the request went. */
export interface ApiErrorContext {
  model: string;
  /** The client's provider name (`anthropic`, `bedrock`, `vertex`, `foundry`, `scripted`). */
  provider: string;
  endpoint: ModelEndpoint | undefined;
  /** CLAUDE_CODE_ENTRYPOINT (SessionDeps.entrypoint); `sdk-cli`: a user at the CLI, told which flag to use. */
  entrypoint: string | undefined;
}

/** The assistant message `error` values a model API error is reported with (Claude Code's vocabulary). */
export type ApiErrorName = 'authentication_failed' | 'rate_limit' | 'invalid_request' | 'model_not_found' | 'server_error' | 'unknown';

export interface ApiErrorReport {
  /** The synthetic assistant message's text, and the result's `result`. */
  text: string;
  error: ApiErrorName;
  terminalReason: Extract<TerminalReason, 'api_error' | 'prompt_too_long' | 'image_error'>;
}

/** Claude Code's texts (2.1.330), kept verbatim: adapters match on them ("run /login"). */
export const NOT_LOGGED_IN = 'Not logged in · Please run /login';
export const INVALID_API_KEY = 'Invalid API key · Fix external API key';
export const PROMPT_TOO_LONG = 'Prompt is too long';
/**
 * Claude Code 2.1.330's text for a prompt too long in a single-exchange conversation, which it does not try to
 * compact (measured, test/measure/reliability.measure.ts and test/fixtures/claude-code-api-errors.json): the
 * API's counts, and whether the conversation itself or the rest (system prompt, tools) is most of the request.
 * Just PROMPT_TOO_LONG when the API's message gives no counts.
 */
export function singleExchangeTooLong(apiMessage: string, conversationTokens: number): string {
  const m = /(\d+) tokens > (\d+) maximum/.exec(apiMessage);
  if (!m) return PROMPT_TOO_LONG;
  const [requested, limit] = [Number(m[1]), Number(m[2])];
  return conversationTokens * 2 >= requested
    ? `${PROMPT_TOO_LONG} · the request is ~${requested} tokens (limit ${limit}) and this conversation's own content is most of it. A single-exchange conversation cannot be compacted; start with less content (smaller files or pasted text).`
    : `${PROMPT_TOO_LONG} · the request is ~${requested} tokens (limit ${limit}) but this conversation is only ~${conversationTokens} tokens — the rest is system prompt, tool definitions, and attachment content. A single-exchange conversation cannot be compacted; reduce attached files/tools or start with less context.`;
}
const REQUEST_TOO_LARGE =
  'Request too large (max 32MB). Accumulated images and attachments in the conversation pushed the request over the limit. Remove older images or compact the conversation.';
const SERVER_SIDE = 'This is a server-side issue, usually temporary — try again in a moment.';
const PROVIDER_NAMES: Record<string, string> = { bedrock: 'Amazon Bedrock', vertex: 'Google Vertex AI', foundry: 'Microsoft Foundry' };

/** Where to look when a server error persists (Claude Code names the gateway, the status page or the provider). */
function persistsHint(ctx: ApiErrorContext): string {
  if (ctx.provider === 'anthropic') {
    const host = ctx.endpoint?.gatewayHost;
    return host ? ` If it persists, check your inference gateway (${host}).` : ' If it persists, check https://status.claude.com.';
  }
  const name = PROVIDER_NAMES[ctx.provider];
  return name ? ` If it persists, check your ${name} service status.` : '';
}

/** The API's status and message, as Claude Code quotes them ("400 messages.0.content: field required"). */
function quoted(e: ModelApiError): string {
  return e.status !== null ? `${e.status} ${e.message}` : e.message;
}

export function describeApiError(e: ModelApiError, ctx: ApiErrorContext): ApiErrorReport {
  const report = (text: string, error: ApiErrorName, terminalReason: ApiErrorReport['terminalReason'] = 'api_error'): ApiErrorReport => ({ text, error, terminalReason });
  switch (e.kind) {
    case 'missing_auth':
      // First party without any credential: Claude Code's sign-in hint (what the ACP adapters turn into
      // authRequired). A provider whose credential chain found nothing quotes the chain's own explanation.
      return ctx.provider === 'anthropic' ? report(NOT_LOGGED_IN, 'authentication_failed') : report(`API Error: ${e.message}`, 'authentication_failed');
    case 'authentication':
      // The API refused the key itself ("invalid x-api-key"): Claude Code points at the variable or the login.
      if (/x-api-key/i.test(e.message)) return report(ctx.endpoint?.credential === 'api_key' ? INVALID_API_KEY : NOT_LOGGED_IN, 'authentication_failed');
      return report(`Failed to authenticate. API Error: ${quoted(e)}`, 'authentication_failed');
    case 'permission':
      return report(`Failed to authenticate. API Error: ${quoted(e)}`, 'authentication_failed');
    case 'not_found':
      return report(
        `There's an issue with the selected model (${ctx.model}). It may not exist or you may not have access to it.${ctx.entrypoint === 'sdk-cli' ? ' Run --model to pick a different model.' : ''}`,
        'model_not_found',
      );
    case 'request_too_large':
      return report(REQUEST_TOO_LARGE, 'invalid_request', 'image_error');
    case 'context_overflow':
      return report(PROMPT_TOO_LONG, 'invalid_request', 'prompt_too_long');
    case 'rate_limit':
      return report(`API Error: Request rejected (429) · ${e.message || `this may be a temporary capacity issue.${persistsHint(ctx)}`}`, 'rate_limit');
    case 'overloaded':
    case 'server_error':
      // 529 too: Claude Code's text and `error` are those of any server error (its api_retry frames say overloaded).
      if (e.status !== null && e.status >= 500) return report(`API Error: ${e.status} ${e.message.replace(/[.!?…]+$/, '')}. ${SERVER_SIDE}${persistsHint(ctx)}`, 'server_error');
      return report(`API Error: ${e.message}`, 'server_error');
    case 'invalid_request':
      return report(`API Error: ${quoted(e)}`, 'unknown');
    case 'timeout':
    case 'stalled':
    case 'connection':
    case 'stream_interrupted':
      return report(`API Error: ${e.message}`, 'server_error');
  }
}
