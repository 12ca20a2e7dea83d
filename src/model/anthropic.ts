// The only importer of @anthropic-ai/sdk. Loaded lazily (dynamic import) so a daemon that never calls the
// model, or calls it late, does not pay ~100 ms of module loading before answering `initialize`.
// The SDK's own retries are off: agentd retries itself (session/retry.ts) so every attempt is visible as a
// system/api_retry frame and a broken stream's executor can be discarded.
import type { ModelClient, ModelRequest, ModelStream, RawStreamEvent } from './types.js';
import { ModelApiError, kindForStatus, parseRetryAfter } from './types.js';

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

let sdkPromise: Promise<SdkModule> | undefined;
/** Starts loading the SDK in the background (called once the daemon is idle after start-up). */
export function preloadAnthropicSdk(): void {
  sdkPromise ??= import('@anthropic-ai/sdk');
  sdkPromise.catch(() => undefined);
}

export class AnthropicModelClient implements ModelClient {
  readonly provider = 'anthropic';
  private client: InstanceType<SdkModule['default']> | undefined;
  private sdk: SdkModule | undefined;

  constructor(private readonly opts: AnthropicClientOptions) {}

  private async ensure(): Promise<{ sdk: SdkModule; client: InstanceType<SdkModule['default']> }> {
    if (this.sdk && this.client) return { sdk: this.sdk, client: this.client };
    sdkPromise ??= import('@anthropic-ai/sdk');
    const sdk = await sdkPromise;
    const client = new sdk.default({
      apiKey: this.opts.apiKey ?? null,
      authToken: this.opts.authToken ?? null,
      ...(this.opts.baseURL ? { baseURL: this.opts.baseURL } : {}),
      maxRetries: 0,
      timeout: this.opts.timeoutMs,
      defaultHeaders: this.opts.headers,
    });
    this.sdk = sdk;
    this.client = client;
    return { sdk, client };
  }

  async open(request: ModelRequest, signal: AbortSignal): Promise<ModelStream> {
    if (!this.opts.apiKey && !this.opts.authToken) {
      throw new ModelApiError(
        'missing_auth',
        'No credentials: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or select the scripted model with --model-provider scripted).',
      );
    }
    const { sdk, client } = await this.ensure();
    const { betas, ...body } = request;
    try {
      const { data, request_id } = await client.beta.messages
        .create(
          // The request is built by the session from the same vocabulary the SDK types describe.
          { ...body, stream: true, ...(betas && betas.length ? { betas } : {}) } as Parameters<
            typeof client.beta.messages.create
          >[0] & { stream: true },
          { signal },
        )
        .withResponse();
      return { requestId: request_id ?? undefined, events: mapEvents(data as AsyncIterable<unknown>, sdk) };
    } catch (err) {
      throw toModelError(err, sdk, signal);
    }
  }
}

async function* mapEvents(stream: AsyncIterable<unknown>, sdk: SdkModule): AsyncGenerator<RawStreamEvent> {
  try {
    for await (const ev of stream) {
      // The SDK yields the raw SSE payloads, already JSON-decoded and typed as the same six event kinds.
      yield ev as RawStreamEvent;
    }
  } catch (err) {
    throw toModelError(err, sdk, undefined, true);
  }
}

function toModelError(err: unknown, sdk: SdkModule, signal: AbortSignal | undefined, midStream = false): unknown {
  if (signal?.aborted) return signal.reason;
  if (err instanceof sdk.APIUserAbortError) return err;
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return new ModelApiError('timeout', 'The request to the model API timed out.', { cause: err });
  }
  if (err instanceof sdk.APIConnectionError) {
    return new ModelApiError(midStream ? 'stream_interrupted' : 'connection', `Connection error: ${err.message}`, {
      cause: err,
    });
  }
  if (err instanceof sdk.APIError) {
    const status = typeof err.status === 'number' ? err.status : null;
    const headers = err.headers;
    const get = (name: string): string | null => headers?.get(name) ?? null;
    const message = err.apiMessage ?? err.message;
    const kind = kindForStatus(status, err.type ?? undefined, message);
    const resetsAt = get('anthropic-ratelimit-requests-reset') ?? get('anthropic-ratelimit-tokens-reset') ?? undefined;
    return new ModelApiError(kind, message, {
      status,
      ...(parseRetryAfter(get, Date.now()) !== undefined ? { retryAfterMs: parseRetryAfter(get, Date.now()) } : {}),
      ...(resetsAt ? { resetsAt } : {}),
      ...(err.requestID ? { requestId: err.requestID } : {}),
      cause: err,
    });
  }
  if (midStream && err instanceof Error) {
    return new ModelApiError('stream_interrupted', `The response stream broke: ${err.message}`, { cause: err });
  }
  return err;
}
