// Errors from any of the official SDK clients (first-party, Bedrock, Vertex, Foundry) mapped into agentd's one
// taxonomy (ModelApiError kinds → session ErrorCategory). Each provider's SDK bundle carries its own copy of the
// SDK's error classes, so the classes to test against are passed in.
import type { ErrorClasses } from './providers/build.js';
import { ModelApiError, type ModelErrorKind, kindForStatus, parseRetryAfter } from './types.js';

/**
 * The system error under a connection failure, as `CODE address:port` (`ECONNREFUSED 127.0.0.1:9`,
 * `ENOTFOUND api.example`), found down the `cause` chain (the SDK wraps the socket's error); else the innermost
 * message. The SDK's own text ("Connection error.") names neither the host nor the cause.
 */
export function connectionCause(err: unknown): string | undefined {
  let innermost: string | undefined;
  let e: unknown = err;
  for (let depth = 0; depth < 6 && typeof e === 'object' && e !== null; depth++) {
    const o = e as { code?: unknown; address?: unknown; port?: unknown; hostname?: unknown; message?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && /^E[A-Z_]+$/.test(o.code)) {
      const where = typeof o.address === 'string' ? `${o.address}${typeof o.port === 'number' ? `:${o.port}` : ''}` : typeof o.hostname === 'string' ? o.hostname : '';
      return where ? `${o.code} ${where}` : o.code;
    }
    if (typeof o.message === 'string' && o.message) innermost = o.message;
    e = o.cause;
  }
  return innermost;
}

function connectionMessage(prefix: string, err: Error, baseUrl: string): string {
  const cause = connectionCause(err.cause) ?? err.message;
  return `${prefix} (${baseUrl}): ${cause}`;
}

export function toModelError(err: unknown, sdk: ErrorClasses, signal: AbortSignal | undefined, midStream: boolean, baseUrl: string): unknown {
  if (signal?.aborted) return signal.reason;
  if (err instanceof ModelApiError) return err;
  if (err instanceof sdk.APIUserAbortError) return err;
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return new ModelApiError('timeout', 'The request to the model API timed out.', { cause: err });
  }
  if (err instanceof sdk.APIConnectionError) {
    return new ModelApiError(midStream ? 'stream_interrupted' : 'connection', connectionMessage('Connection error', err, baseUrl), { cause: err });
  }
  if (err instanceof sdk.APIError) {
    const status = typeof err.status === 'number' ? err.status : null;
    const headers: unknown = err.headers;
    const get = (name: string): string | null => (headers instanceof Headers ? headers.get(name) : null);
    const message = err.apiMessage ?? bodyMessage(err.error) ?? err.message;
    // AWS services name the error in a header (Bedrock: x-amzn-errortype "ThrottlingException:…").
    const awsType = get('x-amzn-errortype')?.split(':')[0];
    const kind = (awsType ? awsKind(awsType) : undefined) ?? kindForStatus(status, err.type ?? undefined, message);
    const resetsAt = get('anthropic-ratelimit-requests-reset') ?? get('anthropic-ratelimit-tokens-reset') ?? undefined;
    const retryAfterMs = parseRetryAfter(get, Date.now());
    return new ModelApiError(kind, message, {
      status,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(resetsAt ? { resetsAt } : {}),
      ...(err.requestID ? { requestId: err.requestID } : {}),
      ...(err.type ? { apiType: err.type } : {}),
      cause: err,
    });
  }
  // The AWS credential chain found nothing usable: the same every time, never retried.
  if (err instanceof Error && err.name === 'CredentialsProviderError') {
    return new ModelApiError('missing_auth', `No AWS credentials for Bedrock: ${err.message} (set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_BEARER_TOKEN_BEDROCK, or CLAUDE_CODE_SKIP_BEDROCK_AUTH=1 behind a gateway that signs).`, { cause: err });
  }
  // The SDK's own errors that are not API or connection errors (a credential it cannot use, a bad option)
  // fail the same way every time: never retried.
  if (err instanceof sdk.AnthropicError && !midStream) {
    return new ModelApiError('invalid_request', `The model client refused the request: ${err.message}`, { cause: err });
  }
  if (err instanceof Error) {
    const cause = connectionCause(err) ?? err.message;
    return new ModelApiError(midStream ? 'stream_interrupted' : 'connection', `${midStream ? 'The response stream broke' : 'Connection error'} (${baseUrl}): ${cause}`, { cause: err });
  }
  return err;
}

/**
 * Bedrock's exception names (HTTP x-amzn-errortype, or a mid-stream exception frame that its SDK turns into an SSE
 * `error` event typed with the camel-cased name) as kinds; undefined for a name it does not know.
 */
export function awsKind(type: string): ModelErrorKind | undefined {
  switch (type.charAt(0).toUpperCase() + type.slice(1)) {
    case 'ThrottlingException':
    case 'TooManyRequestsException':
      return 'rate_limit';
    case 'ServiceUnavailableException':
    case 'ModelNotReadyException':
      return 'overloaded';
    case 'AccessDeniedException':
      return 'permission';
    case 'UnrecognizedClientException':
    case 'ExpiredTokenException':
    case 'InvalidSignatureException':
      return 'authentication';
    case 'ValidationException':
      return 'invalid_request';
    case 'ResourceNotFoundException':
      return 'not_found';
    case 'ModelTimeoutException':
      return 'timeout';
    case 'InternalServerException':
    case 'ModelStreamErrorException':
      return 'server_error';
    default:
      return undefined;
  }
}

/** `message` of an error body that is not the Messages API's shape (Bedrock, Vertex and gateways answer `{message}`). */
function bodyMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('message' in body)) return undefined;
  const m = body.message;
  return typeof m === 'string' && m ? m : undefined;
}
