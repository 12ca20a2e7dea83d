// The composition root's MCP part: reads the configuration (a bad --mcp-config is a start-up error), builds the
// hub with the process and environment policies tools get, and turns initialize's MCP fields into servers.
import { join } from 'node:path';
import type { InitializeRequest } from '../../protocol/src/index.js';
import { createMcpMessagePort } from '../control/mcp-port.js';
import type { ControlClient } from '../control/outbound.js';
import type { Logger } from '../log/logger.js';
import { McpConfigError, type McpServerSpec, parseServerEntry, resolveMcpServers } from '../mcp/config.js';
import { McpHub, type ToolSink } from '../mcp/hub.js';
import { McpAuth } from '../mcp/auth.js';
import { McpOAuthStore, oauthStorePath } from '../mcp/oauth-store.js';
import { netFetch } from '../net/fetch.js';
import { ruleNamesTool } from '../permissions/match.js';
import type { RuleSet } from '../permissions/rules.js';
import { childEnvironment, type ProcessGroupTracker } from '../tools/environment.js';
import { killGroup } from '../tools/process-groups.js';
import { AGENTD_VERSION } from '../version.js';
import type { EnvConfig } from '../config/env.js';
import type { AppIO } from './app.js';
import { type CliOptions, StartupError } from './options.js';
import type { AppConfig } from '../config/config.js';
import { howToTrust } from '../config/project-trust.js';

/**
 * MCP_TIMEOUT default: how long the first model request waits for pending servers, and (unless
 * MCP_CONNECT_TIMEOUT_MS says otherwise) how long a server's handshake may take. A server still connecting when
 * the wait ends joins with its tools at the next model round.
 */
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
/** MCP_TOOL_TIMEOUT default (as Claude Code: effectively none; a server's own `timeout` ≥ 1000 ms wins). */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 100_000_000;
/** MAX_MCP_OUTPUT_TOKENS default (as Claude Code); text beyond ~4 characters a token is cut with a marker. */
export const DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000;

export interface McpSetup {
  hub: McpHub;
  /** OAuth for remote servers (mcp_authenticate, mcp_oauth_callback_url, mcp_clear_auth). */
  auth: McpAuth;
  /** The project's .mcp.json servers nobody approved (listed `disabled`, never started), with the file. */
  withheld: { file: string; names: string[] } | undefined;
  /** MCP_TIMEOUT: how long the first model request waits for pending servers. */
  timeoutMs: number;
  /** Background work may begin: external servers connect. */
  start(): void;
  /** The host is there to answer `mcp_message` (or, in one-shot mode, never will be). */
  attachHost(): void;
  /** `mcp_set_servers`: entries parsed as `dynamic` servers (`{type:'sdk'}` ones as the host's). */
  setServers(servers: Record<string, unknown>): ReturnType<McpHub['setServers']>;
  /**
   * initialize's `sdkMcpServers` (with `sdkMcpServerConfigs`) and `mcpServers`; returns the reply's MCP fields:
   * `mcp_servers_applied` when `mcpServers` was given, `sdk_mcp_manifests_parked` when manifests were.
   */
  fromInitialize(req: InitializeRequest): InitializeMcpFields;
}

export interface InitializeMcpFields {
  mcp_servers_applied?: true;
  sdk_mcp_manifests_parked?: Record<string, 'not_honoured'>;
}

/**
 * An SDK server named in initialize, with its `sdkMcpServerConfigs` entry: `timeout` (a number, else ignored)
 * and `tools` (per-tool policies, read leniently by the hub). Other settings there are not agentd's to apply.
 */
export function sdkServerSpec(name: string, settings: unknown): McpServerSpec {
  const s = typeof settings === 'object' && settings !== null && !Array.isArray(settings) ? new Map<string, unknown>(Object.entries(settings)) : new Map<string, unknown>();
  const timeout = s.get('timeout');
  const tools = s.get('tools');
  return {
    kind: 'sdk',
    name,
    source: 'sdk',
    config: { type: 'sdk', name, ...(typeof timeout === 'number' ? { timeout } : {}), ...(tools !== undefined ? { tools } : {}) },
  };
}

/**
 * As the SDK documents `sdk_mcp_manifests_parked`: one answer per SDK server the request sent a manifest for.
 * agentd always does the real handshake over `mcp_message` (a manifest is never trusted alone): `not_honoured`.
 */
function manifestsParked(req: InitializeRequest): Record<string, 'not_honoured'> | undefined {
  const m = req.sdkMcpServerManifests;
  if (typeof m !== 'object' || m === null || Array.isArray(m) || !req.sdkMcpServers?.length) return undefined;
  const named = req.sdkMcpServers.filter((n) => Object.hasOwn(m, n));
  return named.length ? Object.fromEntries(named.map((n) => [n, 'not_honoured' as const])) : undefined;
}

export function setupMcp(d: {
  opts: CliOptions;
  io: AppIO;
  env: EnvConfig;
  tools: ToolSink;
  rules: RuleSet;
  tracker: ProcessGroupTracker;
  logger: Logger;
  oneShot: () => boolean;
  client: () => ControlClient;
  disabledProjectServers: readonly string[];
  /** The repository's trust and the global config file already read; the user's approvals of .mcp.json servers. */
  config: Pick<AppConfig, 'trust' | 'globalConfig'>;
  projectApproval: { readonly all: boolean; readonly names: readonly string[] };
  /** The config directory: OAuth grants live in `<configDir>/agentd/mcp-oauth.json` (0600). */
  configDir: string;
}): McpSetup {
  let specs: McpServerSpec[];
  const trust = d.config.trust;
  try {
    specs = resolveMcpServers({
      flags: d.opts.mcpConfig,
      strict: d.opts.strictMcpConfig,
      sources: d.opts.settingSources ?? ['user', 'project', 'local'],
      cwd: d.io.cwd,
      globalConfigFile: d.config.globalConfig.file,
      globalConfig: d.config.globalConfig.read,
      env: d.io.env,
      disabledProjectServers: d.disabledProjectServers,
      projectApproval: {
        all: trust.kind === 'trusted' || d.projectApproval.all,
        names: d.projectApproval.names,
        why: (name) =>
          trust.kind === 'trusted'
            ? ''
            : `Not started: the repository is not trusted, so its servers do not run. To start it, ${howToTrust(trust)}; or approve this server in your own settings (user settings or --settings): "enabledMcpjsonServers": [${JSON.stringify(name)}], or "enableAllProjectMcpServers": true.`,
      },
    });
  } catch (e) {
    if (e instanceof McpConfigError) throw new StartupError('mcp_config_invalid', e.message);
    throw e;
  }
  const timeoutMs = d.env.mcp.timeoutMs || DEFAULT_MCP_TIMEOUT_MS;
  const oauthStore = new McpOAuthStore(oauthStorePath(d.configDir));
  const hub = new McpHub({
    oauthStore,
    tools: d.tools,
    // Bare deny rules (`mcp__srv`, `mcp__srv__*`, `mcp__srv__tool`) keep the tools from the model, as for built-ins.
    isRemoved: (name) => d.rules.byBehavior('deny').some((r) => r.ruleContent === undefined && ruleNamesTool(r, name, 'none', undefined, true)),
    logger: d.logger,
    cwd: d.io.cwd,
    childEnv: childEnvironment(d.io.env),
    trackProcessGroup: (pgid) => d.tracker.track(pgid),
    killGroup: (pgid) => killGroup(pgid, { graceMs: 2000 }),
    connectTimeoutMs: d.env.mcp.connectTimeoutMs || timeoutMs,
    toolTimeoutMs: d.env.mcp.toolTimeoutMs || DEFAULT_MCP_TOOL_TIMEOUT_MS,
    maxOutputChars: (d.env.mcp.maxOutputTokens || DEFAULT_MAX_MCP_OUTPUT_TOKENS) * 4,
    clientVersion: AGENTD_VERSION,
  });
  hub.add(specs);
  const auth = new McpAuth({
    hub,
    store: oauthStore,
    fetch: netFetch,
    clientVersion: AGENTD_VERSION,
    logger: d.logger,
    ...(d.env.mcp.oauthCallbackPort !== undefined ? { callbackPort: d.env.mcp.oauthCallbackPort } : {}),
    load: () => import('../mcp/lazy-entry.js'),
  });
  const withheld = specs.filter((s) => s.kind === 'withheld').map((s) => s.name);
  const setup: McpSetup = {
    hub,
    auth,
    withheld: withheld.length ? { file: join(d.io.cwd, '.mcp.json'), names: withheld } : undefined,
    timeoutMs,
    start: () => hub.start(),
    attachHost: () => {
      if (d.oneShot()) hub.noHost('one-shot mode (-p) has no SDK host to serve an SDK MCP server');
      else hub.attachHost(createMcpMessagePort(d.client()));
    },
    setServers: (servers) => {
      setup.start();
      setup.attachHost();
      return hub.setServers(Object.entries(servers).map(([name, raw]) => parseServerEntry(name, raw, 'dynamic', d.io.env)));
    },
    fromInitialize: (req) => {
      const configs = req.sdkMcpServerConfigs ?? {};
      hub.add((req.sdkMcpServers ?? []).map((name) => sdkServerSpec(name, Object.hasOwn(configs, name) ? configs[name] : undefined)));
      const servers = req.mcpServers ?? undefined;
      if (servers) hub.add(Object.entries(servers).map(([name, raw]) => parseServerEntry(name, raw, 'dynamic', d.io.env)));
      // After the reply is written: the host must be able to answer our mcp_message requests, and spawning
      // servers must not delay the reply. The frame writer flushes on the setImmediate its first write
      // queues, which comes after this one: hence the second hop.
      setImmediate(() =>
        setImmediate(() => {
          setup.start();
          setup.attachHost();
        }),
      );
      const parked = manifestsParked(req);
      return { ...(servers !== undefined ? { mcp_servers_applied: true as const } : {}), ...(parked ? { sdk_mcp_manifests_parked: parked } : {}) };
    },
  };
  return setup;
}
