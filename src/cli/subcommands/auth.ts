// `agentd auth status|login|logout`: which credentials agentd would use, answered locally. The JSON has Claude
// Code 2.1.330's field names and values (the ACP adapter parses it at initialize, every session and every
// prompt), plus one `agentd` object with what Claude Code has no field for. Secrets are never printed: only
// where a credential comes from.
import { join } from 'node:path';
import { claudeConfigRoot } from '../../store/paths.js';
import { parseArgv } from '../flags.js';
import { parseSubArgs } from './args.js';
import { settingsLayers } from './settings-peek.js';
import { type Env, SUB_EXIT, type SubExit, type SubcommandIO, UsageError } from './types.js';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** A credential source that is set but that agentd does not use, and why. */
export interface UnusedSource {
  source: string;
  reason: string;
}

export interface AuthStatus {
  loggedIn: boolean;
  authMethod: 'api_key' | 'oauth_token' | 'none';
  /** agentd speaks the Anthropic Messages API only (at ANTHROPIC_BASE_URL). */
  apiProvider: 'firstParty';
  /** agentd sends no analytics or telemetry. */
  analyticsDisabled: true;
  projectsDirectory: string;
  configDirectory: string;
  loginExpiresAt: null;
  /** agentd has no sign-in flow to offer. */
  consoleProfileSignInOffered: false;
  apiKeySource?: 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN';
  agentd: {
    modelProvider: 'anthropic' | 'scripted';
    /** Environment variables whose values agentd sends to the endpoint (names only). */
    credentials: Array<'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN'>;
    /** The Messages endpoint (null for the scripted model). */
    baseUrl: string | null;
    unused: UnusedSource[];
  };
}

const set = (env: Env, name: string): boolean => (env[name] ?? '') !== '';
const truthy = (env: Env, name: string): boolean => /^(1|true|yes|on)$/i.test(env[name] ?? '');

/** What a daemon started with these global flags and this environment would use. Reads files, never the network. */
export function authStatus(io: Pick<SubcommandIO, 'env' | 'cwd' | 'globalArgs'>): AuthStatus {
  const env = io.env;
  const global = parseArgv(io.globalArgs);
  const provider = global.values.get('model-provider')?.at(-1) ?? env['AGENTD_MODEL_PROVIDER'];
  const scenario = global.values.get('scenario')?.at(-1) ?? env['AGENTD_SCENARIO'];
  const modelProvider = provider === 'scripted' || (provider === undefined && (scenario ?? '') !== '') ? 'scripted' : 'anthropic';
  const configDirectory = claudeConfigRoot(env);

  const credentials: AuthStatus['agentd']['credentials'] = [];
  const unused: UnusedSource[] = [];
  if (modelProvider === 'anthropic') {
    if (set(env, 'ANTHROPIC_API_KEY')) credentials.push('ANTHROPIC_API_KEY');
    if (set(env, 'ANTHROPIC_AUTH_TOKEN')) credentials.push('ANTHROPIC_AUTH_TOKEN');
    if (set(env, 'CLAUDE_CODE_OAUTH_TOKEN')) {
      unused.push({ source: 'CLAUDE_CODE_OAUTH_TOKEN', reason: 'agentd does not use Claude subscription tokens; set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN' });
    }
    for (const layer of settingsLayers(configDirectory, io.cwd, io.globalArgs)) {
      if (layer.peeked.kind === 'ok' && typeof layer.peeked.value['apiKeyHelper'] === 'string') {
        unused.push({ source: `apiKeyHelper (${layer.where})`, reason: 'agentd does not run apiKeyHelper; export the key as ANTHROPIC_API_KEY' });
      }
    }
    for (const [flag, name] of [
      ['CLAUDE_CODE_USE_BEDROCK', 'Amazon Bedrock'],
      ['CLAUDE_CODE_USE_VERTEX', 'Google Vertex AI'],
      ['CLAUDE_CODE_USE_FOUNDRY', 'Azure AI Foundry'],
    ] as const) {
      if (truthy(env, flag)) unused.push({ source: flag, reason: `agentd does not support ${name}; it calls the Anthropic Messages API at ANTHROPIC_BASE_URL` });
    }
  }
  const loggedIn = modelProvider === 'scripted' || credentials.length > 0;
  // Claude Code's mapping: a bearer token makes the method oauth_token (even next to an API key); a key alone is
  // api_key, and apiKeySource names it.
  const authMethod = credentials.includes('ANTHROPIC_AUTH_TOKEN') ? 'oauth_token' : credentials.includes('ANTHROPIC_API_KEY') ? 'api_key' : 'none';
  return {
    loggedIn,
    authMethod,
    apiProvider: 'firstParty',
    analyticsDisabled: true,
    projectsDirectory: join(configDirectory, 'projects'),
    configDirectory,
    loginExpiresAt: null,
    consoleProfileSignInOffered: false,
    // Claude Code names only an API key here. A bearer token alone is named too (a value claude-agent-acp knows):
    // without it the adapter shows "Not logged in" for a daemon that has working credentials.
    ...(credentials.length ? { apiKeySource: credentials[0] } : {}),
    agentd: {
      modelProvider,
      credentials,
      baseUrl: modelProvider === 'scripted' ? null : env['ANTHROPIC_BASE_URL'] || DEFAULT_BASE_URL,
      unused,
    },
  };
}

const HOW_TO_SET = [
  'agentd reads its credentials from the environment (it has no login flow and stores no credentials):',
  '  export ANTHROPIC_API_KEY=sk-ant-...      an Anthropic Console API key (sent as x-api-key)',
  '  export ANTHROPIC_AUTH_TOKEN=...          a bearer token, e.g. for an LLM gateway or proxy',
  '  export ANTHROPIC_BASE_URL=https://...    another Messages API endpoint (default https://api.anthropic.com)',
  'In an editor, set them in the agent server\'s "env" (e.g. Zed: agent_servers.<name>.env).',
];

/** Claude Code's `auth status --text` lines, then agentd's own notes. */
export function authStatusText(s: AuthStatus, env: Env): string[] {
  const lines: string[] = [];
  if (s.agentd.modelProvider === 'scripted') lines.push('Model provider: scripted (agentd\'s scripted model; no credentials needed)');
  if (s.agentd.credentials.includes('ANTHROPIC_AUTH_TOKEN')) lines.push('Auth token: ANTHROPIC_AUTH_TOKEN');
  if (s.agentd.credentials.includes('ANTHROPIC_API_KEY')) lines.push('API key: ANTHROPIC_API_KEY');
  if (s.agentd.modelProvider === 'anthropic' && set(env, 'ANTHROPIC_BASE_URL')) lines.push(`Anthropic base URL: ${env['ANTHROPIC_BASE_URL'] ?? ''}`);
  if (set(env, 'NODE_EXTRA_CA_CERTS')) lines.push(`Additional CA cert(s): ${env['NODE_EXTRA_CA_CERTS'] ?? ''}`);
  for (const u of s.agentd.unused) lines.push(`Not used by agentd: ${u.source} (${u.reason})`);
  if (!s.loggedIn) lines.push('Not logged in. Set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (run agentd auth login for details).');
  return lines;
}

export const AUTH_HELP = {
  auth: [
    'Usage: agentd auth [command]',
    '',
    'Credentials (agentd reads them from the environment; it has no login flow)',
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
