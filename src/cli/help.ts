// `agentd --help`: every flag, generated from the flag table so the two cannot drift apart.
import { PROTOCOL_LEVEL } from '../../protocol/src/runtime.js';
import { AGENTD_VERSION } from '../version.js';
import { FLAGS } from './flags.js';
import { SUBCOMMANDS } from './subcommands/index.js';

export function versionLine(): string {
  // The SDKs parse a leading semver: report the Claude Code protocol level agentd speaks.
  return `${PROTOCOL_LEVEL} (Claude Code compatible; agentd ${AGENTD_VERSION})`;
}

export function helpText(): string {
  const rows = FLAGS.map((f) => {
    const names = [`--${f.name}`, ...(f.aliases ?? []).map((a) => (a.length === 1 ? `-${a}` : `--${a}`))].join(', ');
    const arg = f.kind === 'boolean' ? '' : f.optionalValue ? ' [value]' : ' <value>';
    const status = f.status === 'no' ? ' [accepted, not implemented]' : f.status === 'ignored' ? ' [accepted, no effect]' : '';
    return `  ${(names + arg).padEnd(48)} ${f.help}${status}`;
  });
  return [
    `agentd ${AGENTD_VERSION}: a headless agent daemon speaking Claude Code's stream-json protocol (level ${PROTOCOL_LEVEL}).`,
    '',
    'Usage:',
    '  agentd --input-format stream-json --output-format stream-json [flags]   (how the Agent SDKs run it)',
    '  agentd -p "prompt" [--output-format text|json|stream-json] [flags]     (one-shot, for CI; or the prompt on stdin)',
    '  agentd <command> [options]                                             (answered locally, never by a model)',
    '',
    'agentd has no interactive mode: without -p a word that is not a command is an error (exit 2).',
    '',
    'Commands (agentd <command> --help for details):',
    ...SUBCOMMANDS.map((c) => `  ${[c.name, ...(c.aliases ?? [])].join('|').padEnd(48)} ${c.summary}`),
    '  help [command]                                   Help for a command',
    '',
    'Flags (both --flag value and --flag=value; values may be empty):',
    ...rows,
    '',
    'Environment: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, CLAUDE_CONFIG_DIR,',
    'AGENTD_MODEL_PROVIDER, AGENTD_SCENARIO, AGENTD_SCENARIO_RECORD, AGENTD_LOG_LEVEL, AGENTD_MAX_TOOL_USE_CONCURRENCY,',
    'AGENTD_READONLY_SANDBOX (required|auto|off), BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS, USE_BUILTIN_RIPGREP',
    '(0: an rg on PATH before the one agentd ships). See README.md.',
    'Models: ANTHROPIC_DEFAULT_MODEL, ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL, ANTHROPIC_SMALL_FAST_MODEL,',
    'CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP; settings availableModels, enforceAvailableModels.',
    'Repository trust: AGENTD_TRUST_WORKSPACE=1 (as --trust-workspace: the repository\'s hooks, MCP servers, helpers and env apply).',
    'Credentials: CLAUDE_CODE_OAUTH_TOKEN, apiKeyHelper (settings; CLAUDE_CODE_API_KEY_HELPER_TTL_MS), CLAUDE_CODE_USE_BEDROCK /',
    '_VERTEX / _FOUNDRY (+ AWS_REGION, CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID, ANTHROPIC_FOUNDRY_RESOURCE, …).',
    'Requests: CLAUDE_CODE_EFFORT_LEVEL (or auto), CLAUDE_CODE_SUBAGENT_EFFORT, MAX_THINKING_TOKENS, CLAUDE_CODE_DISABLE_THINKING,',
    'CLAUDE_CODE_MAX_OUTPUT_TOKENS; settings effortLevel, maxEffortLevel, modelSettings, alwaysThinkingEnabled, showThinkingSummaries.',
    'Network: HTTPS_PROXY, HTTP_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS, CLAUDE_CODE_CLIENT_CERT / _KEY / _KEY_PASSPHRASE.',
    'Starting: AGENTD_NODE (the node bin/agentd runs; else node on PATH), AGENTD_NATIVE_CACHE (where the native',
    'executable extracts its files; else $XDG_CACHE_HOME/agentd or ~/.cache/agentd).',
    '',
  ].join('\n');
}
