// How a model API error is named to the host: the result's error category, the synthetic assistant message's
// text and its `error` field (Claude Code's vocabulary).
import type { ModelApiError } from '../model/types.js';
import type { ErrorCategory } from '../thread/events.js';

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

export function apiErrorText(e: ModelApiError): string {
  if (e.kind === 'missing_auth' || e.kind === 'authentication') return `Authentication failed: ${e.message} · Please run /login or set ANTHROPIC_API_KEY.`;
  return `API Error${e.status ? ` ${e.status}` : ''}: ${e.message}`;
}

export function assistantErrorName(e: ModelApiError): string {
  switch (e.kind) {
    case 'missing_auth':
    case 'authentication':
      return 'authentication_failed';
    case 'rate_limit':
      return 'rate_limit';
    case 'overloaded':
      return 'overloaded';
    case 'invalid_request':
    case 'context_overflow':
    case 'request_too_large':
      return 'invalid_request';
    case 'not_found':
      return 'model_not_found';
    case 'server_error':
      return 'server_error';
    default:
      return 'unknown';
  }
}
