// The model client's wiring: network settings (proxy, client certificate), provider and credentials resolved
// once at start-up (net/config.ts, cli/credentials.ts), then the client. Anything that cannot be honoured is a
// start-up error with the reason, never a silent fallback.
import { NetConfigError, type NetConfig, resolveNetConfig } from '../net/config.js';
import { configureNetwork } from '../net/fetch.js';
import type { ModelClient } from '../model/types.js';
import type { RequestProfile } from '../model/request-defaults.js';
import type { ModelNames } from '../model/model-allowlist.js';
import type { Logger } from '../log/logger.js';
import { claudeConfigRoot } from '../store/paths.js';
import { childEnvironment, secretValues } from '../tools/environment.js';
import type { AppConfig } from '../config/config.js';
import type { AppIO } from './app.js';
import { buildModel } from './app-support.js';
import { type AccountReport, resolveModelSetup } from './credentials.js';
import { type CliOptions, StartupError } from './options.js';
import { apiKeyHelperSetting } from './settings.js';

export interface ModelWiring {
  model: ModelClient;
  /** initialize.account. */
  account: AccountReport;
  /** system/init apiKeySource. */
  apiKeySource: string;
  net: NetConfig;
  /** The provider and whether a subscription token signs requests: what request defaults depend on. */
  profile: RequestProfile;
}

/**
 * --fallback-model resolved like any model name (its first entry: agentd walks no chain yet); one availableModels
 * leaves out is not used, as Claude Code does not use it (measured), and said on stderr.
 */
export function fallbackModelOf(name: string | undefined, names: ModelNames, logger: Logger): string | undefined {
  if (name === undefined || name.trim() === '') return undefined;
  const choice = names.resolve(name);
  if (names.allows(name, choice)) return choice.model;
  logger.warn({ model: name }, 'fallback model not in availableModels; no fallback');
  return undefined;
}

export function setUpModel(opts: CliOptions, io: AppIO, config: AppConfig, sessionId: string): ModelWiring {
  let net: NetConfig;
  try {
    net = resolveNetConfig(io.env);
  } catch (e) {
    if (e instanceof NetConfigError) throw new StartupError(e.code, e.message);
    throw e;
  }
  // WebFetch and remote MCP servers use the same settings (net/fetch.ts netFetch).
  configureNetwork(net);
  if (opts.modelProvider === 'scripted') {
    const apiKeySource = config.env.anthropic.apiKey ? 'ANTHROPIC_API_KEY' : 'none';
    return { model: buildModel(opts, config, io.cwd, sessionId), account: { apiProvider: 'firstParty', tokenSource: 'none', apiKeySource }, apiKeySource, net, profile: { provider: 'firstParty', oauth: false } };
  }
  const helper = apiKeyHelperSetting({
    sources: opts.settingSources ?? ['user', 'project', 'local'],
    flagSettings: opts.settings,
    configDir: claudeConfigRoot(io.env),
    cwd: io.cwd,
    repositoryTrusted: config.trust.kind === 'trusted',
  });
  // An untrusted repository's helper is said once, with its file's other skipped keys (app-config.ts).
  const setup = resolveModelSetup(io.env, helper.use, { cwd: io.cwd, childEnv: childEnvironment(io.env), secrets: secretValues(io.env) });
  const p = setup.provider;
  const profile: RequestProfile = { provider: p.kind, oauth: p.kind === 'firstParty' && p.auth.kind === 'oauth' };
  return { model: buildModel(opts, config, io.cwd, sessionId, setup, net), account: setup.account, apiKeySource: setup.account.apiKeySource ?? 'none', net, profile };
}
