// Which API agentd's model client talks to, resolved at the edge (cli/provider-config.ts). Each third-party
// provider goes through its official SDK package; the Messages request and the SSE events are the same.
import type { ModelAuth } from '../auth.js';

export type ProviderConfig =
  | { kind: 'firstParty'; baseURL: string | undefined; auth: ModelAuth }
  | {
      kind: 'bedrock';
      region: string;
      /** ANTHROPIC_BEDROCK_BASE_URL (or an AWS_ENDPOINT_URL_* variable). */
      baseURL: string | undefined;
      /** CLAUDE_CODE_SKIP_BEDROCK_AUTH: no signing (a gateway signs). */
      skipAuth: boolean;
      /** AWS_BEARER_TOKEN_BEDROCK: a Bedrock API key, sent as Authorization: Bearer instead of SigV4. */
      bearerToken: string | undefined;
      /** The cross-region inference prefix for model ids (model-ids.ts). */
      regionPrefix: string;
    }
  | { kind: 'vertex'; region: string; projectId: string | undefined; baseURL: string | undefined; skipAuth: boolean }
  | { kind: 'foundry'; resource: string | undefined; baseURL: string | undefined; apiKey: string | undefined; skipAuth: boolean };

export type ProviderKind = ProviderConfig['kind'];
