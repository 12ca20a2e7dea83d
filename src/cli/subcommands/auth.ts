// `agentd auth status|login|logout`: which credentials agentd would use, answered locally. The JSON has Claude
// Code 2.1.330's field names and values (the ACP adapter parses it at initialize, every session and every
// prompt), plus one `agentd` object with what Claude Code has no field for. Secrets are never printed: only
// where a credential comes from.
import { join } from 'node:path';
import { readEnv, readNetEnv, readProviderEnv } from '../../config/env.js';
import { claudeConfigRoot } from '../../store/paths.js';
import { parseArgv } from '../flags.js';
import { parseSubArgs } from './args.js';
import { type ApiProvider, type CredentialSource, resolveModelSetup, selectedProvider } from '../credentials.js';
import type { ProviderConfig } from '../../model/providers/types.js';
import { apiKeyHelperSetting } from '../settings.js';
import { readGlobalConfig } from '../../config/global-config.js';
import { resolveProjectTrust } from '../../config/project-trust.js';
import { globalConfigFile } from './global-config.js';
import { type Env, SUB_EXIT, type SubExit, type SubcommandIO, UsageError } from './types.js';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** A credential source that is set but that agentd does not use, and why. */
export interface UnusedSource {
  source: string;
  reason: string;
}

export interface AuthStatus {
  loggedIn: boolean;
  /** Claude Code's values: a bearer token is oauth_token, a cloud provider third_party. */
  authMethod: 'api_key' | 'oauth_token' | 'api_key_helper' | 'third_party' | 'none';
  apiProvider: ApiProvider;
  /** agentd sends no analytics or telemetry. */
  analyticsDisabled: true;
  projectsDirectory: string;
  configDirectory: string;
  loginExpiresAt: null;
  /** agentd has no sign-in flow to offer (absent for a cloud provider, as in Claude Code). */
  consoleProfileSignInOffered?: false;
  apiKeySource?: CredentialSource;
  agentd: {
    modelProvider: 'anthropic' | 'scripted';
    /** Credential sources agentd sends to the endpoint (names only), in precedence order. */
    credentials: CredentialSource[];
    /** The endpoint (null for the scripted model; the provider's default when not overridden). */
    baseUrl: string | null;
    unused: UnusedSource[];
  };
}


const PROVIDER_NAME: Record<Exclude<ApiProvider, 'firstParty'>, string> = { bedrock: 'Amazon Bedrock', vertex: 'Google Vertex AI', foundry: 'Microsoft Foundry' };

function providerBaseUrl(p: ProviderConfig): string {
  switch (p.kind) {
    case 'firstParty':
      return p.baseURL ?? DEFAULT_BASE_URL;
    case 'bedrock':
      return p.baseURL ?? `https://bedrock-runtime.${p.region}.amazonaws.com`;
    case 'vertex':
      return p.baseURL ?? (p.region === 'global' ? 'https://aiplatform.googleapis.com/v1' : `https://${p.region}-aiplatform.googleapis.com/v1`);
    case 'foundry':
      return p.baseURL ?? `https://${p.resource ?? ''}.services.ai.azure.com/anthropic/`;
  }
}

/** What a daemon started with these global flags and this environment would use. Reads files, never the network; runs no helper. */
export function authStatus(io: Pick<SubcommandIO, 'env' | 'cwd' | 'home' | 'globalArgs'>): AuthStatus {
  const env = io.env;
  const global = parseArgv(io.globalArgs);
  const typed = readEnv(env);
  const provider = global.values.get('model-provider')?.at(-1) ?? typed.modelProvider;
  const scenario = global.values.get('scenario')?.at(-1) ?? typed.scenario;
  const modelProvider = provider === 'scripted' || (provider === undefined && (scenario ?? '') !== '') ? 'scripted' : 'anthropic';
  const configDirectory = claudeConfigRoot(env);
  const common = { analyticsDisabled: true as const, projectsDirectory: join(configDirectory, 'projects'), configDirectory, loginExpiresAt: null };
  if (modelProvider === 'scripted') {
    return { loggedIn: true, authMethod: 'none', apiProvider: 'firstParty', ...common, consoleProfileSignInOffered: false, agentd: { modelProvider, credentials: [], baseUrl: null, unused: [] } };
  }
  const sources = global.values.get('setting-sources')?.at(-1)?.split(',').map((x) => x.trim()).filter((x): x is 'user' | 'project' | 'local' => x === 'user' || x === 'project' || x === 'local');
  // As a session started here would decide it (config/project-trust.ts).
  const trustFlag = global.values.get('trust-workspace')?.at(-1);
  const file = globalConfigFile(io);
  const trust = resolveProjectTrust({ cwd: io.cwd, home: io.home, globalConfigFile: file, globalConfig: readGlobalConfig(file), flag: trustFlag !== undefined && !['false', '0', 'no'].includes(trustFlag.toLowerCase()), env: typed.trustWorkspace });
  const helper = apiKeyHelperSetting({ sources: sources ?? ['user', 'project', 'local'], flagSettings: global.values.get('settings')?.at(-1), configDir: configDirectory, cwd: io.cwd, repositoryTrusted: trust.kind === 'trusted' });
  const unused: UnusedSource[] = helper.ignored.map((h) => ({ source: `apiKeyHelper (${h.where})`, reason: 'the repository is not trusted, so its settings cannot name the helper agentd runs; trust it (agentd trust), or set the helper in the user settings or --settings' }));
  let setup;
  try {
    setup = resolveModelSetup(env, helper.use);
  } catch (e) {
    const kind = selectedProvider(env);
    unused.push({ source: kind === 'firstParty' ? 'environment' : `CLAUDE_CODE_USE_${kind.toUpperCase()}`, reason: e instanceof Error ? e.message : String(e) });
    return { loggedIn: false, authMethod: 'none', apiProvider: kind, ...common, agentd: { modelProvider, credentials: [], baseUrl: null, unused } };
  }
  const baseUrl = providerBaseUrl(setup.provider);
  if (setup.provider.kind !== 'firstParty') {
    return { loggedIn: true, authMethod: 'third_party', apiProvider: setup.provider.kind, ...common, agentd: { modelProvider, credentials: [], baseUrl, unused } };
  }
  const credentials = setup.credentials;
  const first = credentials[0];
  // Lower-precedence sources that are set but lose (cli/credentials.ts has the order).
  if (first !== undefined && first !== 'apiKeyHelper' && helper.use) unused.push({ source: `apiKeyHelper (${helper.use.where})`, reason: `${first} takes precedence` });
  if (first !== undefined && first !== 'CLAUDE_CODE_OAUTH_TOKEN' && readProviderEnv(env).anthropic.oauthToken !== undefined) unused.push({ source: 'CLAUDE_CODE_OAUTH_TOKEN', reason: `${first} takes precedence` });
  // Claude Code's mapping: a bearer token makes the method oauth_token (even next to an API key).
  const authMethod = credentials.includes('ANTHROPIC_AUTH_TOKEN') || first === 'CLAUDE_CODE_OAUTH_TOKEN' ? 'oauth_token' : first === 'ANTHROPIC_API_KEY' ? 'api_key' : first === 'apiKeyHelper' ? 'api_key_helper' : 'none';
  return {
    loggedIn: credentials.length > 0,
    authMethod,
    apiProvider: 'firstParty',
    ...common,
    consoleProfileSignInOffered: false,
    // Claude Code names only an API key (or the helper) here. A bearer token alone is named too (a value
    // claude-agent-acp knows): without it the adapter shows "Not logged in" for a daemon with working credentials.
    ...(first !== undefined ? { apiKeySource: first } : {}),
    agentd: { modelProvider, credentials, baseUrl, unused },
  };
}

const HOW_TO_SET = [
  'agentd reads its credentials from the environment and settings (it has no login flow and stores no credentials):',
  '  export ANTHROPIC_API_KEY=sk-ant-...      an Anthropic Console API key (sent as x-api-key)',
  '  export ANTHROPIC_AUTH_TOKEN=...          a bearer token, e.g. for an LLM gateway or proxy',
  '  "apiKeyHelper": "<command>"             in ~/.claude/settings.json: a command that prints the key',
  '  export CLAUDE_CODE_OAUTH_TOKEN=...       a Claude subscription token (claude setup-token)',
  '  export CLAUDE_CODE_USE_BEDROCK=1 | CLAUDE_CODE_USE_VERTEX=1 | CLAUDE_CODE_USE_FOUNDRY=1   a cloud provider',
  '  export ANTHROPIC_BASE_URL=https://...    another Messages API endpoint (default https://api.anthropic.com)',
  'In an editor, set them in the agent server\'s "env" (e.g. Zed: agent_servers.<name>.env).',
];

/** Claude Code's `auth status --text` lines, then agentd's own notes. */
export function authStatusText(s: AuthStatus, env: Env): string[] {
  const lines: string[] = [];
  const p = readProviderEnv(env);
  const net = readNetEnv(env);
  if (s.agentd.modelProvider === 'scripted') lines.push('Model provider: scripted (agentd\'s scripted model; no credentials needed)');
  if (s.apiProvider !== 'firstParty') {
    lines.push(`API provider: ${PROVIDER_NAME[s.apiProvider]}`);
    if (s.apiProvider === 'bedrock') lines.push(`AWS region: ${p.bedrock.region ?? 'us-east-1 (default)'}`);
    if (s.apiProvider === 'vertex') lines.push(`GCP project: ${p.vertex.projectId ?? '(from Google credentials)'}`, `Vertex region: ${p.vertex.region ?? 'us-east5 (default)'}`);
    if (s.agentd.baseUrl) lines.push(`Endpoint: ${s.agentd.baseUrl}`);
  }
  if (s.agentd.credentials.includes('ANTHROPIC_AUTH_TOKEN')) lines.push('Auth token: ANTHROPIC_AUTH_TOKEN');
  if (s.agentd.credentials.includes('ANTHROPIC_API_KEY')) lines.push('API key: ANTHROPIC_API_KEY');
  if (s.agentd.credentials.includes('apiKeyHelper')) lines.push('API key: apiKeyHelper');
  if (s.agentd.credentials.includes('CLAUDE_CODE_OAUTH_TOKEN')) lines.push('OAuth token: CLAUDE_CODE_OAUTH_TOKEN');
  const proxy = net.httpsProxy || net.httpProxy;
  if (proxy) lines.push(`Proxy: ${proxy.replace(/\/\/[^@/]*@/, '//***@')}`);
  if (s.agentd.modelProvider === 'anthropic' && s.apiProvider === 'firstParty' && p.anthropic.baseUrl !== undefined) lines.push(`Anthropic base URL: ${p.anthropic.baseUrl}`);
  if (net.extraCaCerts !== undefined) lines.push(`Additional CA cert(s): ${net.extraCaCerts}`);
  for (const u of s.agentd.unused) lines.push(`Not used by agentd: ${u.source} (${u.reason})`);
  if (!s.loggedIn) lines.push('Not logged in. Set ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN or apiKeyHelper, or select a cloud provider (run agentd auth login for details).');
  return lines;
}

export const AUTH_HELP = {
  auth: [
    'Usage: agentd auth [command]',
    '',
    'Credentials (agentd reads them from the environment and settings; it has no login flow)',
    '',
    'Commands:',
    '  status [--json|--text]   Which credentials and endpoint agentd would use (JSON by default; exit 1 when none)',
    '  login                    Explain which environment variables to set (exit 0 when credentials are set, else 1)',
    '  logout                   agentd stores no credentials: says what to unset (exit 0)',
  ],
  status: [
    'Usage: agentd auth status [options]',
    '',
    'Show which credentials and endpoint agentd would use. Exit 0 when it has credentials, 1 when not.',
    '',
    'Options:',
    '  -h, --help  Display help for command',
    '  --json      Output as JSON (default)',
    '  --text      Output as plain text',
  ],
  login: ['Usage: agentd auth login [options]', '', ...HOW_TO_SET, '', 'Accepted for compatibility and ignored: --claudeai, --console, --sso, --email <email>.'],
  logout: ['Usage: agentd auth logout', '', 'agentd stores no credentials, so there is nothing to log out of; unset the environment variables instead.'],
} as const;

const print = (io: SubcommandIO, lines: readonly string[]): void => {
  io.stdout.write(`${lines.join('\n')}\n`);
};
const help = (io: SubcommandIO, lines: readonly string[]): SubExit => {
  print(io, lines);
  return SUB_EXIT.ok;
};

export function runAuth(args: readonly string[], io: SubcommandIO): SubExit {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    print(io, AUTH_HELP.auth);
    // Claude Code: `claude auth` alone prints its help and exits 1; `--help` exits 0.
    return sub === undefined ? SUB_EXIT.no : SUB_EXIT.ok;
  }
  switch (sub) {
    case 'status': {
      const a = parseSubArgs(rest, { booleans: ['json', 'text'] });
      if (a.flags.has('help')) return help(io, AUTH_HELP.status);
      if (a.positionals.length) throw new UsageError(`too many arguments for 'status'. Expected 0 arguments but got ${a.positionals.length}.`);
      const s = authStatus(io);
      // As Claude Code: --text wins when both are given; JSON is pretty-printed.
      if (a.flags.has('text')) print(io, authStatusText(s, io.env));
      else print(io, [JSON.stringify(s, null, 2)]);
      return s.loggedIn ? SUB_EXIT.ok : SUB_EXIT.no;
    }
    case 'login': {
      const a = parseSubArgs(rest, { booleans: ['claudeai', 'console', 'sso'], strings: ['email'] });
      if (a.flags.has('help')) return help(io, AUTH_HELP.login);
      const s = authStatus(io);
      print(io, [...HOW_TO_SET, '', 'Now:', ...authStatusText(s, io.env).map((l) => `  ${l}`)]);
      return s.loggedIn ? SUB_EXIT.ok : SUB_EXIT.no;
    }
    case 'logout': {
      const a = parseSubArgs(rest);
      if (a.flags.has('help')) return help(io, AUTH_HELP.logout);
      const s = authStatus(io);
      const using = s.agentd.credentials.length ? ` It currently uses ${s.agentd.credentials.join(' and ')} from its environment: unset ${s.agentd.credentials.length > 1 ? 'them' : 'it'} to stop.` : '';
      // Exit 0, as Claude Code's logout (idempotent): the ACP adapter runs it on `logout` and fails on non-zero.
      print(io, [`agentd stores no credentials, so there is nothing to log out of.${using}`]);
      return SUB_EXIT.ok;
    }
    default:
      throw new UsageError(`unknown command '${sub}' (agentd auth has: status, login, logout)`);
  }
}
