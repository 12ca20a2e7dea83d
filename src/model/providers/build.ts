// Builds the official SDK client for a third-party provider (each SDK loaded from its own bundle, lazily). The
// clients are BaseAnthropic subclasses: agentd posts the same Messages request to each, and each SDK's middleware
// rewrites it into its provider's wire format (Bedrock: /model/{id}/invoke-with-response-stream, SigV4, AWS
// event-stream responses transcoded back to SSE; Vertex: :streamRawPredict with Google auth; Foundry: the Messages
// API under /anthropic with an api key).
import type { BaseAnthropic } from '@anthropic-ai/sdk';
import type { ProviderConfig } from './types.js';
import { providerModelId } from './model-ids.js';

type SdkErrors = typeof import('./bedrock-entry.js');
export type ErrorClasses = Pick<SdkErrors, 'AnthropicError' | 'APIError' | 'APIConnectionError' | 'APIConnectionTimeoutError' | 'APIUserAbortError'>;

export interface CommonClientOptions {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  timeoutMs: number;
  headers: Record<string, string>;
}

export interface BuiltClient {
  client: BaseAnthropic;
  errors: ErrorClasses;
  /** The id to send for a model name (model-ids.ts). */
  mapModel(model: string): string;
  /** Body fields the provider needs that the SDK would otherwise fill differently. */
  bodyExtra: Record<string, unknown>;
}

// The API versions Claude Code 2.1.330 puts in the body for these providers (its strings); the current SDKs
// would copy the first-party anthropic-version header instead, which Bedrock and Vertex do not accept.
const BEDROCK_VERSION = 'bedrock-2023-05-31';
const VERTEX_VERSION = 'vertex-2023-10-16';

export type ThirdPartyConfig = Exclude<ProviderConfig, { kind: 'firstParty' }>;

export async function buildProviderClient(cfg: ThirdPartyConfig, common: CommonClientOptions): Promise<BuiltClient> {
  // The SDKs' own retries are off: agentd retries (session/model-call.ts).
  const base = { maxRetries: 0, timeout: common.timeoutMs, fetch: common.fetch } as const;
  switch (cfg.kind) {
    case 'bedrock': {
      const m = await import('./bedrock-entry.js');
      const client = new m.Client({
        ...base,
        defaultHeaders: common.headers,
        awsRegion: cfg.region,
        ...(cfg.baseURL ? { baseURL: cfg.baseURL } : {}),
        skipAuth: cfg.skipAuth,
        // Explicitly null when unset: the SDK would otherwise read AWS_BEARER_TOKEN_BEDROCK from process.env.
        apiKey: cfg.bearerToken ?? null,
      });
      return { client, errors: m, mapModel: (model) => providerModelId(model, 'bedrock', cfg.regionPrefix), bodyExtra: { anthropic_version: BEDROCK_VERSION } };
    }
    case 'vertex': {
      const m = await import('./vertex-entry.js');
      // CLAUDE_CODE_SKIP_VERTEX_AUTH: an auth client that adds no headers (a gateway authenticates), so
      // google-auth-library never looks for credentials or contacts a metadata server.
      const noAuth = { projectId: undefined, getRequestHeaders: async () => new Headers() };
      type AuthClientOption = NonNullable<ConstructorParameters<typeof m.Client>[0]>['authClient'];
      const client = new m.Client({
        ...base,
        defaultHeaders: common.headers,
        region: cfg.region,
        projectId: cfg.projectId ?? null,
        ...(cfg.baseURL ? { baseURL: cfg.baseURL } : {}),
        // eslint-disable-next-line no-restricted-syntax -- CLAUDE_CODE_SKIP_VERTEX_AUTH: a stand-in for google-auth's client, whose type has dozens of members agentd never calls
        ...(cfg.skipAuth ? { authClient: noAuth as unknown as AuthClientOption } : {}),
      });
      return { client, errors: m, mapModel: (model) => providerModelId(model, 'vertex'), bodyExtra: { anthropic_version: VERTEX_VERSION } };
    }
    case 'foundry': {
      const m = await import('./foundry-entry.js');
      const client = new m.Client({
        ...base,
        // CLAUDE_CODE_SKIP_FOUNDRY_AUTH: the SDK needs a credential to start; the header it would make is removed.
        defaultHeaders: cfg.skipAuth ? { ...common.headers, 'x-api-key': null } : common.headers,
        ...(cfg.baseURL ? { baseURL: cfg.baseURL, resource: null } : { resource: cfg.resource ?? null }),
        apiKey: cfg.apiKey ?? 'skip-auth',
      });
      return { client, errors: m, mapModel: (model) => providerModelId(model, 'foundry'), bodyExtra: {} };
    }
  }
}
