// Which API the model client talks to and with which credentials, resolved once from the environment and the
// settings (apiKeyHelper). Shared by the daemon (model client, initialize.account, system/init apiKeySource) and
// `agentd auth status`, so both always agree. Only names of sources are reported, never values.
//
// Precedence, as Claude Code documents it: a cloud provider (CLAUDE_CODE_USE_BEDROCK, then _FOUNDRY, then _VERTEX,
// Claude Code's order) uses that provider's credentials; otherwise ANTHROPIC_AUTH_TOKEN and ANTHROPIC_API_KEY
// (both sent when both are set, as Claude Code 2.1.330), then apiKeyHelper, then CLAUDE_CODE_OAUTH_TOKEN.
import { DEFAULT_BEDROCK_REGION, type ProviderEnv, readProviderEnv, selectedProvider as providerOf } from '../config/env.js';
import type { ModelAuth } from '../model/auth.js';
import { bedrockRegionPrefix } from '../model/providers/model-ids.js';
import type { ProviderConfig } from '../model/providers/types.js';
import { ApiKeyHelper, DEFAULT_HELPER_TIMEOUT_MS, DEFAULT_HELPER_TTL_MS } from './api-key-helper.js';
import { StartupError } from './options.js';
import type { ApiKeyHelperSetting } from './settings.js';

type Env = Readonly<Record<string, string | undefined>>;

export type ApiProvider = 'firstParty' | 'bedrock' | 'vertex' | 'foundry';

/** initialize.account as Claude Code fills it: for a cloud provider only apiProvider (auth is external). */
export interface AccountReport {
  apiProvider: ApiProvider;
  tokenSource?: 'ANTHROPIC_AUTH_TOKEN' | 'CLAUDE_CODE_OAUTH_TOKEN' | 'none';
  apiKeySource?: 'ANTHROPIC_API_KEY' | 'apiKeyHelper' | 'none';
}

export type CredentialSource = 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN' | 'apiKeyHelper' | 'CLAUDE_CODE_OAUTH_TOKEN';

export interface ModelSetup {
  provider: ProviderConfig;
  account: AccountReport;
  /** First-party credential sources in use (names only), in precedence order. */
  credentials: CredentialSource[];
  /** The apiKeyHelper in use, if any. */
  helper: ApiKeyHelperSetting | undefined;
}

/** The cloud provider the environment selects (Claude Code's order), or firstParty. */
export function selectedProvider(env: Env): ApiProvider {
  return providerOf(env);
}

export interface HelperRuntime {
  cwd: string;
  /** The environment the helper runs with (agentd's own credentials removed). */
  childEnv: Record<string, string | undefined>;
  secrets: readonly string[];
}

/**
 * Resolves the provider and credentials. `helper` is the apiKeyHelper the settings name; `runtime` is needed only
 * to run it (absent for `auth status`, which never runs it). Throws StartupError for a configuration that cannot
 * work (nothing is silently ignored).
 */
export function resolveModelSetup(env: Env, helper: ApiKeyHelperSetting | undefined, runtime?: HelperRuntime): ModelSetup {
  const kind = selectedProvider(env);
  const e = readProviderEnv(env);
  switch (kind) {
    case 'bedrock': {
      const region = e.bedrock.region ?? DEFAULT_BEDROCK_REGION;
      return {
        provider: {
          kind,
          region,
          baseURL: e.bedrock.baseUrl,
          skipAuth: e.bedrock.skipAuth,
          bearerToken: e.bedrock.bearerToken,
          regionPrefix: bedrockRegionPrefix(region, e.bedrock.regionPrefix),
        },
        account: { apiProvider: kind },
        credentials: [],
        helper: undefined,
      };
    }
    case 'vertex':
      return {
        provider: {
          kind,
          region: e.vertex.region?.trim() || 'us-east5',
          projectId: e.vertex.projectId,
          baseURL: e.vertex.baseUrl,
          skipAuth: e.vertex.skipAuth,
        },
        account: { apiProvider: kind },
        credentials: [],
        helper: undefined,
      };
    case 'foundry': {
      const { skipAuth, apiKey, baseUrl: baseURL, resource } = e.foundry;
      if (!baseURL && !resource) {
        throw new StartupError('provider_config_invalid', 'CLAUDE_CODE_USE_FOUNDRY is set but neither ANTHROPIC_FOUNDRY_RESOURCE nor ANTHROPIC_FOUNDRY_BASE_URL names the Foundry resource.');
      }
      if (!apiKey && !skipAuth) {
        // Claude Code falls back to Microsoft Entra ID (DefaultAzureCredential); agentd does not bundle Azure identity.
        throw new StartupError(
          'provider_auth_unsupported',
          'CLAUDE_CODE_USE_FOUNDRY: agentd authenticates to Foundry with ANTHROPIC_FOUNDRY_API_KEY only (Microsoft Entra ID is not supported); set it, or CLAUDE_CODE_SKIP_FOUNDRY_AUTH=1 behind a gateway that authenticates.',
        );
      }
      return {
        provider: { kind, resource: baseURL ? undefined : resource, baseURL, apiKey, skipAuth },
        account: { apiProvider: kind },
        credentials: [],
        helper: undefined,
      };
    }
    case 'firstParty':
      break;
  }
  const { apiKey, authToken, oauthToken: oauth } = e.anthropic;
  const credentials: CredentialSource[] = [];
  let auth: ModelAuth;
  let account: AccountReport;
  let used: ApiKeyHelperSetting | undefined;
  if (apiKey !== undefined || authToken !== undefined) {
    if (apiKey !== undefined) credentials.push('ANTHROPIC_API_KEY');
    if (authToken !== undefined) credentials.push('ANTHROPIC_AUTH_TOKEN');
    auth = { kind: 'env', apiKey, authToken };
    account = { apiProvider: 'firstParty', tokenSource: authToken !== undefined ? 'ANTHROPIC_AUTH_TOKEN' : 'none', apiKeySource: apiKey !== undefined ? 'ANTHROPIC_API_KEY' : 'none' };
  } else if (helper) {
    credentials.push('apiKeyHelper');
    used = helper;
    auth = runtime ? { kind: 'helper', source: helperSource(e, helper, runtime) } : { kind: 'none' };
    account = { apiProvider: 'firstParty', tokenSource: 'none', apiKeySource: 'apiKeyHelper' };
  } else if (oauth !== undefined) {
    credentials.push('CLAUDE_CODE_OAUTH_TOKEN');
    auth = { kind: 'oauth', token: oauth };
    account = { apiProvider: 'firstParty', tokenSource: 'CLAUDE_CODE_OAUTH_TOKEN', apiKeySource: 'none' };
  } else {
    auth = { kind: 'none' };
    account = { apiProvider: 'firstParty', tokenSource: 'none', apiKeySource: 'none' };
  }
  return { provider: { kind: 'firstParty', baseURL: e.anthropic.baseUrl, auth }, account, credentials, helper: used };
}

function envMs({ name, value }: { name: string; value: string | undefined }, fallback: number): number {
  const v = value?.trim();
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v)) throw new StartupError('config_env_invalid', `${name}=${v} is not a whole number of milliseconds.`);
  return Number(v);
}

function helperSource(e: ProviderEnv, helper: ApiKeyHelperSetting, runtime: HelperRuntime): ApiKeyHelper {
  return new ApiKeyHelper({
    command: helper.command,
    where: helper.where,
    cwd: runtime.cwd,
    env: runtime.childEnv,
    ttlMs: envMs(e.helper.ttlMs, DEFAULT_HELPER_TTL_MS),
    timeoutMs: envMs(e.helper.timeoutMs, DEFAULT_HELPER_TIMEOUT_MS),
    secrets: runtime.secrets,
  });
}

/** Whether a first-party setup has anything to authenticate with. */
export function hasCredentials(s: ModelSetup): boolean {
  return s.provider.kind !== 'firstParty' || s.credentials.length > 0;
}

