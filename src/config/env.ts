// The one place that knows agentd's environment variables (Claude Code's names where they exist, AGENTD_* for
// agentd's own). Everything else gets typed values from here; the core never reads the environment. Exceptions,
// by necessity: the launcher (cli/launch.ts, cli/native.ts runs before Node options are set) and the children's
// environment itself (tools/environment.ts removes credentials from the whole record it is given).
type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, ...names: string[]): number | undefined {
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && /^\d+$/.test(v)) return Number(v);
  }
  return undefined;
}
function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

export type SessionStateMode = 'visible' | 'host_only' | 'none';

/** What the environment says, typed. Unset or unparsable numbers are undefined, so defaults apply. */
export interface EnvConfig {
  /** CLAUDE_CONFIG_DIR (default ~/.claude). */
  configDir: string | undefined;
  /** AGENTD_MANAGED_SETTINGS_DIR: the admin policy's directory when /etc/claude-code holds none (config.ts). */
  managedSettingsDir: string | undefined;
  /** AGENTD_TRUST_WORKSPACE (1, true, yes, on): --trust-workspace's twin for CI (config/project-trust.ts). */
  trustWorkspace: boolean;
  anthropic: {
    apiKey: string | undefined;
    authToken: string | undefined;
    baseUrl: string | undefined;
    model: string | undefined;
    timeoutMs: number | undefined;
  };
  /** CLAUDE_AGENT_SDK_CLIENT_APP: appended to the user agent. */
  clientApp: string | undefined;
  retry: { maxRetries: number | undefined; baseDelayMs: number | undefined; firstEventTimeoutMs: number | undefined; idleTimeoutMs: number | undefined };
  maxToolConcurrency: number | undefined;
  /** ANTHROPIC_SMALL_FAST_MODEL, else ANTHROPIC_DEFAULT_HAIKU_MODEL: the model tools ask on the model's behalf. */
  smallFastModel: string | undefined;
  /** What model names resolve against (model/names.ts). */
  models: {
    /** ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL, with their _NAME and _DESCRIPTION. */
    overrides: Partial<Record<'opus' | 'sonnet' | 'haiku' | 'fable', { id: string; name: string | undefined; description: string | undefined }>>;
    /** ANTHROPIC_DEFAULT_MODEL: what `default` means. */
    defaultModel: string | undefined;
    /** CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP: retired Opus 4 / 4.1 ids are sent as typed. */
    legacyRemap: boolean;
  };
  maxOutputTokens: number | undefined;
  maxThinkingTokens: number | undefined;
  /** CLAUDE_CODE_EFFORT_LEVEL, as written (cli/request-options.ts checks it; `auto`/`unset`: no effort). */
  effortLevel: string | undefined;
  /** CLAUDE_CODE_SUBAGENT_EFFORT, as written: the effort of a subagent's requests. */
  subagentEffort: string | undefined;
  /** CLAUDE_CODE_DISABLE_THINKING: requests carry no thinking parameter. */
  disableThinking: boolean;
  sessionState: SessionStateMode;
  mcp: {
    timeoutMs: number | undefined;
    connectTimeoutMs: number | undefined;
    toolTimeoutMs: number | undefined;
    maxOutputTokens: number | undefined;
    /** MCP_OAUTH_CALLBACK_PORT: the loopback port of an MCP OAuth redirect (Claude Code's name). */
    oauthCallbackPort: number | undefined;
  };
  /** AGENTD_READONLY_SANDBOX, parsed by tools/sandbox. */
  readOnlySandbox: string | undefined;
  /**
   * USE_BUILTIN_RIPGREP set to 0, false, no or off (Claude Code's variable and values): an `rg` on PATH is run
   * before the one agentd ships (tools/ripgrep.ts).
   */
  ripgrepPreferSystem: boolean;
  path: string | undefined;
  home: string | undefined;
  logLevel: string | undefined;
  modelProvider: string | undefined;
  scenario: string | undefined;
  scenarioRecord: string | undefined;
  usageFrames: boolean;
  /** AGENTD_TEST_FAULT: test-only fault injection (cli/fatal.ts); inert unless set. */
  testFault: string | undefined;
}

export function readEnv(env: Env): EnvConfig {
  return {
    configDir: str(env, 'CLAUDE_CONFIG_DIR'),
    managedSettingsDir: str(env, 'AGENTD_MANAGED_SETTINGS_DIR'),
    trustWorkspace: truthy(env, 'AGENTD_TRUST_WORKSPACE'),
    anthropic: {
      apiKey: str(env, 'ANTHROPIC_API_KEY'),
      authToken: str(env, 'ANTHROPIC_AUTH_TOKEN'),
      baseUrl: str(env, 'ANTHROPIC_BASE_URL'),
      model: str(env, 'ANTHROPIC_MODEL'),
      timeoutMs: int(env, 'API_TIMEOUT_MS'),
    },
    clientApp: str(env, 'CLAUDE_AGENT_SDK_CLIENT_APP'),
    retry: {
      maxRetries: int(env, 'AGENTD_MAX_RETRIES'),
      baseDelayMs: int(env, 'AGENTD_RETRY_BASE_DELAY_MS'),
      firstEventTimeoutMs: int(env, 'AGENTD_FIRST_EVENT_TIMEOUT_MS'),
      idleTimeoutMs: int(env, 'AGENTD_STREAM_IDLE_TIMEOUT_MS'),
    },
    maxToolConcurrency: int(env, 'AGENTD_MAX_TOOL_USE_CONCURRENCY', 'CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY'),
    smallFastModel: str(env, 'ANTHROPIC_SMALL_FAST_MODEL') ?? str(env, 'ANTHROPIC_DEFAULT_HAIKU_MODEL'),
    models: {
      overrides: Object.fromEntries(
        (['opus', 'sonnet', 'haiku', 'fable'] as const).flatMap((f) => {
          const v = `ANTHROPIC_DEFAULT_${f.toUpperCase()}_MODEL`;
          const id = str(env, v);
          return id === undefined ? [] : [[f, { id, name: str(env, `${v}_NAME`), description: str(env, `${v}_DESCRIPTION`) }]];
        }),
      ),
      defaultModel: str(env, 'ANTHROPIC_DEFAULT_MODEL'),
      legacyRemap: !truthy(env, 'CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP'),
    },
    maxOutputTokens: int(env, 'CLAUDE_CODE_MAX_OUTPUT_TOKENS'),
    maxThinkingTokens: int(env, 'MAX_THINKING_TOKENS'),
    effortLevel: str(env, 'CLAUDE_CODE_EFFORT_LEVEL'),
    subagentEffort: str(env, 'CLAUDE_CODE_SUBAGENT_EFFORT'),
    disableThinking: truthy(env, 'CLAUDE_CODE_DISABLE_THINKING'),
    sessionState: env['CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS'] === '1' ? 'visible' : env['CLAUDE_CODE_SDK_READS_SESSION_STATE'] === '1' ? 'host_only' : 'none',
    mcp: {
      timeoutMs: int(env, 'MCP_TIMEOUT'),
      connectTimeoutMs: int(env, 'MCP_CONNECT_TIMEOUT_MS'),
      toolTimeoutMs: int(env, 'MCP_TOOL_TIMEOUT'),
      maxOutputTokens: int(env, 'MAX_MCP_OUTPUT_TOKENS'),
      oauthCallbackPort: int(env, 'MCP_OAUTH_CALLBACK_PORT'),
    },
    readOnlySandbox: env['AGENTD_READONLY_SANDBOX'],
    ripgrepPreferSystem: /^(0|false|no|off)$/i.test((env['USE_BUILTIN_RIPGREP'] ?? '').trim()),
    path: env['PATH'],
    home: str(env, 'HOME'),
    logLevel: env['AGENTD_LOG_LEVEL'],
    modelProvider: env['AGENTD_MODEL_PROVIDER'],
    scenario: str(env, 'AGENTD_SCENARIO'),
    scenarioRecord: env['AGENTD_SCENARIO_RECORD'],
    usageFrames: env['AGENTD_USAGE_FRAMES'] === '1',
    testFault: str(env, 'AGENTD_TEST_FAULT'),
  };
}

const truthy = (env: Env, name: string): boolean => /^(1|true|yes|on)$/i.test((env[name] ?? '').trim());

/** The model provider's variables, Claude Code's names; cli/credentials.ts resolves them with the settings. Empty is unset. */
export interface ProviderEnv {
  /** CLAUDE_CODE_USE_BEDROCK / _FOUNDRY / _VERTEX (1, true, yes, on). */
  use: { bedrock: boolean; foundry: boolean; vertex: boolean };
  anthropic: { apiKey: string | undefined; authToken: string | undefined; baseUrl: string | undefined; oauthToken: string | undefined };
  bedrock: {
    /** AWS_REGION, else AWS_DEFAULT_REGION. */
    region: string | undefined;
    /** ANTHROPIC_BEDROCK_BASE_URL, else AWS_ENDPOINT_URL_BEDROCK_RUNTIME, else AWS_ENDPOINT_URL. */
    baseUrl: string | undefined;
    skipAuth: boolean;
    bearerToken: string | undefined;
    regionPrefix: string | undefined;
  };
  vertex: { region: string | undefined; projectId: string | undefined; baseUrl: string | undefined; skipAuth: boolean };
  foundry: { apiKey: string | undefined; baseUrl: string | undefined; resource: string | undefined; skipAuth: boolean };
  /** The apiKeyHelper's timings, as written (cli/credentials.ts refuses a value that is not whole milliseconds). */
  helper: { ttlMs: { name: string; value: string | undefined }; timeoutMs: { name: string; value: string | undefined } };
}

/** The region Bedrock is called in when neither AWS_REGION nor AWS_DEFAULT_REGION is set. */
export const DEFAULT_BEDROCK_REGION = 'us-east-1';

/** The provider CLAUDE_CODE_USE_* selects (Bedrock first, then Foundry, then Vertex, as Claude Code). */
export function selectedProvider(env: Env): 'firstParty' | 'bedrock' | 'vertex' | 'foundry' {
  const use = readProviderEnv(env).use;
  if (use.bedrock) return 'bedrock';
  if (use.foundry) return 'foundry';
  if (use.vertex) return 'vertex';
  return 'firstParty';
}

export function readProviderEnv(env: Env): ProviderEnv {
  const raw = (name: string): { name: string; value: string | undefined } => ({ name, value: env[name] });
  return {
    use: { bedrock: truthy(env, 'CLAUDE_CODE_USE_BEDROCK'), foundry: truthy(env, 'CLAUDE_CODE_USE_FOUNDRY'), vertex: truthy(env, 'CLAUDE_CODE_USE_VERTEX') },
    anthropic: { apiKey: str(env, 'ANTHROPIC_API_KEY'), authToken: str(env, 'ANTHROPIC_AUTH_TOKEN'), baseUrl: str(env, 'ANTHROPIC_BASE_URL'), oauthToken: str(env, 'CLAUDE_CODE_OAUTH_TOKEN') },
    bedrock: {
      region: str(env, 'AWS_REGION') ?? str(env, 'AWS_DEFAULT_REGION'),
      baseUrl: str(env, 'ANTHROPIC_BEDROCK_BASE_URL') ?? str(env, 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME') ?? str(env, 'AWS_ENDPOINT_URL'),
      skipAuth: truthy(env, 'CLAUDE_CODE_SKIP_BEDROCK_AUTH'),
      bearerToken: str(env, 'AWS_BEARER_TOKEN_BEDROCK'),
      regionPrefix: str(env, 'ANTHROPIC_BEDROCK_REGION_PREFIX'),
    },
    vertex: { region: str(env, 'CLOUD_ML_REGION'), projectId: str(env, 'ANTHROPIC_VERTEX_PROJECT_ID'), baseUrl: str(env, 'ANTHROPIC_VERTEX_BASE_URL'), skipAuth: truthy(env, 'CLAUDE_CODE_SKIP_VERTEX_AUTH') },
    foundry: { apiKey: str(env, 'ANTHROPIC_FOUNDRY_API_KEY'), baseUrl: str(env, 'ANTHROPIC_FOUNDRY_BASE_URL'), resource: str(env, 'ANTHROPIC_FOUNDRY_RESOURCE'), skipAuth: truthy(env, 'CLAUDE_CODE_SKIP_FOUNDRY_AUTH') },
    helper: { ttlMs: raw('CLAUDE_CODE_API_KEY_HELPER_TTL_MS'), timeoutMs: raw('AGENTD_API_KEY_HELPER_TIMEOUT_MS') },
  };
}

/** The network variables Claude Code reads (net/config.ts checks and resolves them). '' = unset. */
export interface NetEnv {
  /** HTTP_PROXY / HTTPS_PROXY / NO_PROXY, either case; the lower-case one wins, as curl and undici. */
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
  clientCert: string;
  clientKey: string;
  clientKeyPassphrase: string | undefined;
  /** NODE_EXTRA_CA_CERTS: Node itself applies it; reported by `auth status`. */
  extraCaCerts: string | undefined;
}

export function readNetEnv(env: Env): NetEnv {
  const pick = (name: string): string => env[name.toLowerCase()] || env[name] || '';
  return {
    httpProxy: pick('HTTP_PROXY'),
    httpsProxy: pick('HTTPS_PROXY'),
    noProxy: pick('NO_PROXY'),
    clientCert: env['CLAUDE_CODE_CLIENT_CERT'] || '',
    clientKey: env['CLAUDE_CODE_CLIENT_KEY'] || '',
    clientKeyPassphrase: str(env, 'CLAUDE_CODE_CLIENT_KEY_PASSPHRASE'),
    extraCaCerts: str(env, 'NODE_EXTRA_CA_CERTS'),
  };
}
