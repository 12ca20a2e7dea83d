// The model client over the official SDKs: @anthropic-ai/sdk for the Anthropic API (this file is its only
// importer) and, through providers/build.ts, the Bedrock, Vertex and Foundry SDKs. The SDKs build the requests,
// authenticate and turn HTTP errors into typed ones; each is loaded lazily (its own bundle) so a daemon that never
// calls the model, or calls it late, does not pay for it before answering `initialize`. Deliberate departures from
// the SDKs' defaults:
//  - their own retries are off: agentd retries (session/model-call.ts) so every attempt shows as
//    system/api_retry and a broken stream's executor can be discarded;
//  - the response body is parsed here (model/sse.ts) instead of by the SDK's Stream, so each event's JSON text
//    is kept and spliced into stream_event frames unchanged (throughput), and HTTP goes through node:http
//    (model/http-fetch.ts) rather than undici (memory, per-request latency) unless a proxy is configured;
//  - an apiKeyHelper's key is fetched per request (cached by the source) and, on a 401, refreshed and the request
//    sent once more, as Claude Code re-runs the helper on a 401.
import { CONTEXT_1M_BETA, baseModelId, wantsOneM } from './names.js';
import type { NetConfig } from '../net/config.js';
import { type ModelAuth, authBetas, authHeaders } from './auth.js';
import { toModelError } from './error-map.js';
import type { BuiltClient } from './providers/build.js';
import type { ProviderConfig } from './providers/types.js';
import { jsonInChunks } from './request-body.js';
import { SseParser, type SseEvent } from './sse.js';
import type { ModelClient, ModelEndpoint, ModelRequest, ModelStream, RawStreamEvent, WithRaw } from './types.js';
import { ModelApiError, RAW_JSON, kindForStatus } from './types.js';
import { awsKind } from './error-map.js';

export { connectionCause } from './error-map.js';

export interface AnthropicClientOptions {
  provider: ProviderConfig;
  /** Extra headers (User-Agent suffix, session id). */
  headers: Record<string, string>;
  /** Per-request timeout for the HTTP exchange, ms. */
  timeoutMs: number;
  /** Proxy and client-certificate settings (net/config.ts); direct when absent. */
  net?: NetConfig;
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

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

interface Ready extends BuiltClient {
  http: HttpModule;
  /** The first-party client takes the chunked body (request-body.ts); provider middleware needs an object. */
  chunked: boolean;
}

export class AnthropicModelClient implements ModelClient {
  readonly provider: string;
  readonly endpoint: ModelEndpoint;
  private ready: Promise<Ready> | undefined;
  private readonly auth: ModelAuth;

  constructor(private readonly opts: AnthropicClientOptions) {
    this.provider = opts.provider.kind === 'firstParty' ? 'anthropic' : opts.provider.kind;
    this.auth = opts.provider.kind === 'firstParty' ? opts.provider.auth : { kind: 'none' };
    this.endpoint = { gatewayHost: gatewayHost(opts.provider.baseURL), credential: opts.provider.kind === 'firstParty' ? credentialOf(this.auth) : 'provider' };
  }

  private baseUrl(r?: Ready): string {
    return r?.client.baseURL ?? (this.opts.provider.kind === 'firstParty' ? this.opts.provider.baseURL ?? DEFAULT_BASE_URL : this.opts.provider.kind);
  }

  private async build(): Promise<Ready> {
    // node:http/https (and tls) are loaded here, with the first model call, not at start-up (initialize).
    const http = await import('./http-fetch.js');
    const fetch = http.createHttpFetch(this.opts.net);
    const p = this.opts.provider;
    try {
      if (p.kind !== 'firstParty') {
        const { buildProviderClient } = await import('./providers/build.js');
        return { ...(await buildProviderClient(p, { fetch, timeoutMs: this.opts.timeoutMs, headers: this.opts.headers })), http, chunked: false };
      }
      sdkPromise ??= import('@anthropic-ai/sdk');
      const sdk = await sdkPromise;
      // Credentials ride as per-request headers (auth.ts: an API key as x-api-key, as Claude Code sends it; a token
      // as Authorization: Bearer), never as the SDK's apiKey (which it would send as a bearer token).
      const client = new sdk.default({
        apiKey: null,
        authToken: null,
        ...(p.baseURL ? { baseURL: p.baseURL } : {}),
        maxRetries: 0,
        timeout: this.opts.timeoutMs,
        defaultHeaders: this.opts.headers,
        fetch,
      });
      return { client, errors: sdk, mapModel: (m) => m, bodyExtra: {}, http, chunked: true };
    } catch (err) {
      if (err instanceof ModelApiError) throw err;
      // A client that cannot be built fails the same way every time: never a retryable error.
      throw new ModelApiError('invalid_request', `The model client could not be configured: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  private async ensure(): Promise<Ready> {
    this.ready ??= this.build();
    try {
      return await this.ready;
    } catch (err) {
      this.ready = undefined;
      throw err;
    }
  }

  async open(request: ModelRequest, signal: AbortSignal): Promise<ModelStream> {
    if (this.opts.provider.kind === 'firstParty' && this.auth.kind === 'none') {
      throw new ModelApiError(
        'missing_auth',
        'No credentials: set ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN, configure apiKeyHelper in settings, select a provider (CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY), or select the scripted model with --model-provider scripted.',
      );
    }
    const r = await this.ensure();
    const first = await this.send(r, request, signal);
    if (first.ok) return first.stream;
    // A key from apiKeyHelper the endpoint refused: run the helper again (it may have rotated) and retry once.
    const e = first.error;
    if (this.auth.kind === 'helper' && e instanceof ModelApiError && e.kind === 'authentication') {
      this.auth.source.invalidate();
      const second = await this.send(r, request, signal);
      if (second.ok) return second.stream;
      throw second.error;
    }
    throw e;
  }

  private async send(r: Ready, request: ModelRequest, signal: AbortSignal): Promise<{ ok: true; stream: ModelStream } | { ok: false; error: unknown }> {
    const key = this.auth.kind === 'helper' ? await this.helperKey(signal) : undefined;
    const { betas: requestBetas = [], bedrockBetas, ...rest } = request;
    // A `[1m]` name (model/names.ts) goes out as its id with the context-1m beta, as Claude Code sends it (the main
    // loop's request lists it already; a side or compaction request may not).
    const oneM = wantsOneM(rest.model) && !requestBetas.includes(CONTEXT_1M_BETA);
    // The credential's beta leads unless the request already places it (the main loop lists Claude Code's order).
    const betas = [...authBetas(this.auth).filter((b) => !requestBetas.includes(b)), ...requestBetas, ...(oneM ? [CONTEXT_1M_BETA] : [])];
    const body = { ...rest, model: r.mapModel(baseModelId(rest.model)), stream: true, ...r.bodyExtra, ...(bedrockBetas && this.opts.provider.kind === 'bedrock' ? { anthropic_beta: bedrockBetas } : {}) };
    const headers: Record<string, string> = { 'content-type': 'application/json', ...authHeaders(this.auth, key), ...(betas.length ? { 'anthropic-beta': betas.join(',') } : {}) };
    let response: Response;
    try {
      response = await r.client
        // The Anthropic API and Foundry: Claude Code's path (the beta Messages endpoint, `?beta=true`); Bedrock's
        // and Vertex's middleware rewrites the path and takes no query.
        .post(this.opts.provider.kind === 'firstParty' || this.opts.provider.kind === 'foundry' ? '/v1/messages?beta=true' : '/v1/messages', {
          // What client.beta.messages.create sends. First party: the body serialised in chunks (request-body.ts)
          // rather than by the SDK's JSON.stringify (a long conversation would otherwise be one large string per
          // request), the abort signal riding with it (see chunkedRequestBody). Providers: an object, which their
          // middleware rewrites (model into the path, betas into the body).
          ...(r.chunked ? { body: r.http.chunkedRequestBody(jsonInChunks(body), signal) } : { body, signal }),
          headers,
          stream: true,
        })
        .asResponse();
    } catch (err) {
      return { ok: false, error: toModelError(err, r.errors, signal, false, this.baseUrl(r)) };
    }
    const responseBody = r.http.nodeBodyOf(response) ?? (response.body as AsyncIterable<Uint8Array> | null);
    if (!responseBody) return { ok: false, error: new ModelApiError('stream_interrupted', 'The model API answered without a body.') };
    return {
      ok: true,
      stream: {
        requestId: response.headers.get('request-id') ?? response.headers.get('x-amzn-requestid') ?? undefined,
        events: events(responseBody as AsyncIterable<Uint8Array>),
        mapError: (err) => toModelError(err, r.errors, signal, true, this.baseUrl(r)),
      },
    };
  }

  private async helperKey(signal: AbortSignal): Promise<string> {
    if (this.auth.kind !== 'helper') return '';
    try {
      return await this.auth.source.get(signal);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      // The helper's failure is already explained (ApiKeyHelperError); as a model error it is an authentication
      // failure the user must fix, never retried.
      throw new ModelApiError('authentication', err instanceof Error ? err.message : String(err), { cause: err });
    }
  }
}

/** The host of a base URL the user set, unless it is the provider's own endpoint. */
function gatewayHost(baseURL: string | undefined): string | undefined {
  if (baseURL === undefined || baseURL.replace(/\/+$/, '') === DEFAULT_BASE_URL) return undefined;
  try {
    return new URL(baseURL).host || baseURL;
  } catch {
    return baseURL;
  }
}

function credentialOf(auth: ModelAuth): ModelEndpoint['credential'] {
  switch (auth.kind) {
    case 'env':
      return auth.apiKey !== undefined ? 'api_key' : 'token';
    case 'helper':
      return 'api_key';
    case 'oauth':
      return 'token';
    case 'none':
      return 'none';
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
    throw new ModelApiError(awsKind(type) ?? kindForStatus(null, type, message), message, { apiType: type });
  }
  if (!isEvent(parsed)) return undefined;
  // The SSE data is one line of JSON from the API (a multi-line data field was joined with \n by the parser);
  // it can go into a frame as is. U+2028/U+2029 are escaped by the writer.
  const ev: WithRaw<RawStreamEvent> = parsed;
  if (sse.data.indexOf('\n') === -1 && sse.data.indexOf('\r') === -1) ev[RAW_JSON] = sse.data;
  return ev;
}
