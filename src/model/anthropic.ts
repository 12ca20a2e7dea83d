// The only importer of @anthropic-ai/sdk, which builds and sends the requests, authenticates and turns HTTP
// errors into typed ones. Loaded lazily (its own bundle) so a daemon that never calls the model, or calls it
// late, does not pay for it before answering `initialize`. Two deliberate departures from the SDK's defaults:
//  - its own retries are off: agentd retries (session/model-call.ts) so every attempt shows as
//    system/api_retry and a broken stream's executor can be discarded;
//  - the response body is parsed here (model/sse.ts) instead of by the SDK's Stream, so each event's JSON text
//    is kept and spliced into stream_event frames unchanged (throughput), and HTTP goes through node:http
//    (model/http-fetch.ts) rather than undici (memory, per-request latency).
import { jsonInChunks } from './request-body.js';
import { SseParser, type SseEvent } from './sse.js';
import type { ModelClient, ModelRequest, ModelStream, RawStreamEvent, WithRaw } from './types.js';
import { ModelApiError, RAW_JSON, kindForStatus, parseRetryAfter } from './types.js';

export interface AnthropicClientOptions {
  apiKey: string | undefined;
  authToken: string | undefined;
  baseURL: string | undefined;
  /** Extra headers (User-Agent suffix, session id). */
  headers: Record<string, string>;
  /** Per-request timeout for the HTTP exchange, ms. */
  timeoutMs: number;
}

type SdkModule = typeof import('@anthropic-ai/sdk');
type HttpModule = typeof import('./http-fetch.js');

let sdkPromise: Promise<SdkModule> | undefined;
/** Starts loading the SDK in the background (called once the daemon has answered its first request). */
export function preloadAnthropicSdk(): void {
  sdkPromise ??= import('@anthropic-ai/sdk');
  sdkPromise.catch(() => undefined);
  void import('./http-fetch.js');
}

export class AnthropicModelClient implements ModelClient {
  readonly provider = 'anthropic';
  private client: InstanceType<SdkModule['default']> | undefined;
  private sdk: SdkModule | undefined;
  private http: HttpModule | undefined;

  constructor(private readonly opts: AnthropicClientOptions) {}

  private async ensure(): Promise<{ sdk: SdkModule; client: InstanceType<SdkModule['default']>; http: HttpModule }> {
    if (this.sdk && this.client && this.http) return { sdk: this.sdk, client: this.client, http: this.http };
    sdkPromise ??= import('@anthropic-ai/sdk');
    const sdk = await sdkPromise;
    // node:http/https (and tls) are loaded here, with the first model call, not at start-up (initialize).
    const http = await import('./http-fetch.js');
    // An API key is sent as Claude Code sends it, `x-api-key` (the SDK would send `Authorization: Bearer`, which
    // gateways and proxies that check x-api-key refuse); a token as `Authorization: Bearer`. With both variables
    // set, Claude Code sends both (checked against 2.1.330) and the endpoint decides; so does agentd. The SDK
    // gets only the token: the key rides as a default header.
    let client: InstanceType<SdkModule['default']>;
    try {
      client = new sdk.default({
        apiKey: null,
        authToken: this.opts.authToken ?? null,
        ...(this.opts.baseURL ? { baseURL: this.opts.baseURL } : {}),
        maxRetries: 0,
        timeout: this.opts.timeoutMs,
        defaultHeaders: this.opts.apiKey !== undefined ? { ...this.opts.headers, 'x-api-key': this.opts.apiKey } : this.opts.headers,
        fetch: http.createHttpFetch(),
      });
    } catch (err) {
      // A client that cannot be built fails the same way every time: never a retryable error.
      throw new ModelApiError('invalid_request', `The model client could not be configured: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    this.sdk = sdk;
    this.client = client;
    this.http = http;
    return { sdk, client, http };
  }

  async open(request: ModelRequest, signal: AbortSignal): Promise<ModelStream> {
    if (!this.opts.apiKey && !this.opts.authToken) {
      throw new ModelApiError(
        'missing_auth',
        'No credentials: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or select the scripted model with --model-provider scripted).',
      );
    }
    const { sdk, client, http } = await this.ensure();
    const { betas, ...body } = request;
    let response: Response;
    try {
      // What client.beta.messages.create sends, with the body serialised in chunks (request-body.ts) rather than
      // by the SDK's JSON.stringify: a long conversation would otherwise be one large string per request.
      const chunks = jsonInChunks({ ...body, stream: true });
      response = await client
        .post('/v1/messages', {
          // The abort signal rides with the body, not as the SDK's `signal` option (see chunkedRequestBody).
          body: http.chunkedRequestBody(chunks, signal),
          headers: { 'content-type': 'application/json', ...(betas && betas.length ? { 'anthropic-beta': betas.join(',') } : {}) },
          stream: true,
        })
        .asResponse();
    } catch (err) {
      throw toModelError(err, sdk, signal, false, this.opts.baseURL ?? DEFAULT_BASE_URL);
    }
    const responseBody = http.nodeBodyOf(response) ?? (response.body as AsyncIterable<Uint8Array> | null);
    if (!responseBody) throw new ModelApiError('stream_interrupted', 'The model API answered without a body.');
    return {
      requestId: response.headers.get('request-id') ?? undefined,
      events: events(responseBody as AsyncIterable<Uint8Array>),
      mapError: (err) => toModelError(err, sdk, signal, true, this.opts.baseURL ?? DEFAULT_BASE_URL),
    };
  }
}

function isEvent(v: unknown): v is RawStreamEvent {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

async function* events(body: AsyncIterable<Uint8Array>): AsyncGenerator<WithRaw<RawStreamEvent>> {
  const parser = new SseParser();
  const parsed: SseEvent[] = [];
  const emit = (ev: SseEvent): void => void parsed.push(ev);
  for await (const chunk of body) {
    parser.push(chunk, emit);
    for (const sse of parsed) {
      const ev = toStreamEvent(sse);
      if (ev) yield ev;
    }
    parsed.length = 0;
  }
  parser.end(emit);
  for (const sse of parsed) {
    const ev = toStreamEvent(sse);
    if (ev) yield ev;
  }
}

function toStreamEvent(sse: SseEvent): WithRaw<RawStreamEvent> | undefined {
  if (sse.event === 'ping') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(sse.data);
  } catch {
    throw new ModelApiError('stream_interrupted', `The model API sent an unreadable event (${sse.event}).`);
  }
  if (sse.event === 'error') {
    const e = (parsed as { error?: { type?: unknown; message?: unknown } }).error;
    const type = typeof e?.type === 'string' ? e.type : 'api_error';
    const message = typeof e?.message === 'string' ? e.message : 'The model API reported an error mid-stream.';
    throw new ModelApiError(kindForStatus(null, type, message), message);
  }
  if (!isEvent(parsed)) return undefined;
  // The SSE data is one line of JSON from the API (a multi-line data field was joined with \n by the parser);
  // it can go into a frame as is. U+2028/U+2029 are escaped by the writer.
  const ev: WithRaw<RawStreamEvent> = parsed;
  if (sse.data.indexOf('\n') === -1 && sse.data.indexOf('\r') === -1) ev[RAW_JSON] = sse.data;
  return ev;
}

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

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

function toModelError(err: unknown, sdk: SdkModule, signal: AbortSignal | undefined, midStream: boolean, baseUrl: string): unknown {
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
    const message = err.apiMessage ?? err.message;
    const kind = kindForStatus(status, err.type ?? undefined, message);
    const resetsAt = get('anthropic-ratelimit-requests-reset') ?? get('anthropic-ratelimit-tokens-reset') ?? undefined;
    const retryAfterMs = parseRetryAfter(get, Date.now());
    return new ModelApiError(kind, message, {
      status,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(resetsAt ? { resetsAt } : {}),
      ...(err.requestID ? { requestId: err.requestID } : {}),
      cause: err,
    });
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
