// Which API the model client talks to and with which credentials, resolved once from the environment and the
// settings (apiKeyHelper). Shared by the daemon (model client, initialize.account, system/init apiKeySource) and
// `agentd auth status`, so both always agree. Only names of sources are reported, never values.
//
// Precedence, as Claude Code documents it: a cloud provider (CLAUDE_CODE_USE_BEDROCK, then _FOUNDRY, then _VERTEX,
// Claude Code's order) uses that provider's credentials; otherwise ANTHROPIC_AUTH_TOKEN and ANTHROPIC_API_KEY
// (both sent when both are set, as Claude Code 2.1.330), then apiKeyHelper, then CLAUDE_CODE_OAUTH_TOKEN.
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

const set = (env: Env, name: string): boolean => (env[name] ?? '') !== '';
export const truthy = (env: Env, name: string): boolean => /^(1|true|yes|on)$/i.test((env[name] ?? '').trim());

/** The cloud provider the environment selects (Claude Code's order), or firstParty. */
export function selectedProvider(env: Env): ApiProvider {
  if (truthy(env, 'CLAUDE_CODE_USE_BEDROCK')) return 'bedrock';
  if (truthy(env, 'CLAUDE_CODE_USE_FOUNDRY')) return 'foundry';
  if (truthy(env, 'CLAUDE_CODE_USE_VERTEX')) return 'vertex';
  return 'firstParty';
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
  const opt = (name: string): string | undefined => env[name] || undefined;
  switch (kind) {
    case 'bedrock': {
      const region = opt('AWS_REGION') ?? opt('AWS_DEFAULT_REGION') ?? 'us-east-1';
      return {
        provider: {
          kind,
          region,
          baseURL: opt('ANTHROPIC_BEDROCK_BASE_URL') ?? opt('AWS_ENDPOINT_URL_BEDROCK_RUNTIME') ?? opt('AWS_ENDPOINT_URL'),
          skipAuth: truthy(env, 'CLAUDE_CODE_SKIP_BEDROCK_AUTH'),
          bearerToken: opt('AWS_BEARER_TOKEN_BEDROCK'),
          regionPrefix: bedrockRegionPrefix(region, opt('ANTHROPIC_BEDROCK_REGION_PREFIX')),
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
          region: opt('CLOUD_ML_REGION')?.trim() || 'us-east5',
          projectId: opt('ANTHROPIC_VERTEX_PROJECT_ID'),
          baseURL: opt('ANTHROPIC_VERTEX_BASE_URL'),
          skipAuth: truthy(env, 'CLAUDE_CODE_SKIP_VERTEX_AUTH'),
        },
        account: { apiProvider: kind },
        credentials: [],
        helper: undefined,
      };
    case 'foundry': {
      const skipAuth = truthy(env, 'CLAUDE_CODE_SKIP_FOUNDRY_AUTH');
      const apiKey = opt('ANTHROPIC_FOUNDRY_API_KEY');
      const baseURL = opt('ANTHROPIC_FOUNDRY_BASE_URL');
      const resource = opt('ANTHROPIC_FOUNDRY_RESOURCE');
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
  const apiKey = opt('ANTHROPIC_API_KEY');
  const authToken = opt('ANTHROPIC_AUTH_TOKEN');
  const oauth = opt('CLAUDE_CODE_OAUTH_TOKEN');
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
    auth = runtime ? { kind: 'helper', source: helperSource(env, helper, runtime) } : { kind: 'none' };
    account = { apiProvider: 'firstParty', tokenSource: 'none', apiKeySource: 'apiKeyHelper' };
  } else if (oauth !== undefined) {
    credentials.push('CLAUDE_CODE_OAUTH_TOKEN');
    auth = { kind: 'oauth', token: oauth };
    account = { apiProvider: 'firstParty', tokenSource: 'CLAUDE_CODE_OAUTH_TOKEN', apiKeySource: 'none' };
  } else {
    auth = { kind: 'none' };
    account = { apiProvider: 'firstParty', tokenSource: 'none', apiKeySource: 'none' };
  }
  return { provider: { kind: 'firstParty', baseURL: opt('ANTHROPIC_BASE_URL'), auth }, account, credentials, helper: used };
}

function envMs(env: Env, name: string, fallback: number): number {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v)) throw new StartupError('config_env_invalid', `${name}=${v} is not a whole number of milliseconds.`);
  return Number(v);
}

function helperSource(env: Env, helper: ApiKeyHelperSetting, runtime: HelperRuntime): ApiKeyHelper {
  return new ApiKeyHelper({
    command: helper.command,
    where: helper.where,
    cwd: runtime.cwd,
    env: runtime.childEnv,
    ttlMs: envMs(env, 'CLAUDE_CODE_API_KEY_HELPER_TTL_MS', DEFAULT_HELPER_TTL_MS),
    timeoutMs: envMs(env, 'AGENTD_API_KEY_HELPER_TIMEOUT_MS', DEFAULT_HELPER_TIMEOUT_MS),
    secrets: runtime.secrets,
  });
}

/** Whether a first-party setup has anything to authenticate with. */
export function hasCredentials(s: ModelSetup): boolean {
  return s.provider.kind !== 'firstParty' || s.credentials.length > 0;
}

export { set as envSet };
