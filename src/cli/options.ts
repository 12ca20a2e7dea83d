// Typed, validated options from argv and the environment. A bad value is a StartupError (exit code 2 and one
// JSON error line), never a crash and never a silently ignored mistake.
import { readFileSync } from 'node:fs';
import { isUuid } from '../util/ids.js';
import type { LogLevel } from '../log/logger.js';
import { type PermissionModeName, normalizeMode } from '../permissions/modes.js';
import { type ParsedArgs, splitRuleList } from './flags.js';
import { readEnv } from '../config/env.js';
import { EFFORT_LEVELS, type EffortLevel, parseEffortLevel } from '../model/request-defaults.js';

import { StartupError } from '../config/errors.js';

export { StartupError };

export interface CliOptions {
  outputFormat: 'text' | 'json' | 'stream-json';
  inputFormat: 'text' | 'stream-json';
  print: boolean;
  prompt: string | undefined;
  includePartialMessages: boolean;
  includeHookEvents: boolean;
  usageFrames: boolean;
  replayUserMessages: boolean;
  showVersion: boolean;
  showHelp: boolean;
  model: string | undefined;
  fallbackModel: string | undefined;
  maxTurns: number | undefined;
  maxBudgetUsd: number | undefined;
  /** `--thinking` (enabled and adaptive are one: on, as the model takes it). */
  thinking: 'on' | 'off' | undefined;
  /** `--max-thinking-tokens` (0: off). */
  maxThinkingTokens: number | undefined;
  /** `--thinking-display`. */
  thinkingDisplay: 'summarized' | 'omitted' | 'highlights' | undefined;
  /** `--effort` (the SDK's `effort` option). */
  effort: EffortLevel | undefined;
  /** `--verbose`: with `-p --output-format json` the thinking display is the SDK's (cli/request-options.ts). */
  verbose: boolean;
  betas: string[];
  jsonSchema: Record<string, unknown> | undefined;
  systemPrompt: string | undefined;
  appendSystemPrompt: string | undefined;
  permissionMode: PermissionModeName | undefined;
  permissionPromptTool: string | undefined;
  permissionPrompts: 'host' | 'none';
  permissionPromptTimeoutMs: number | undefined;
  allowDangerouslySkipPermissions: boolean;
  allowedTools: string[];
  disallowedTools: string[];
  tools: string[] | undefined;
  addDirs: string[];
  settingSources: Array<'user' | 'project' | 'local'> | undefined;
  settings: string | undefined;
  /** `--managed-settings` (the SDK's `managedSettings`): JSON or a path; the policy tier (src/config). */
  managedSettings: string | undefined;
  /** `--trust-workspace`: the host trusts the working directory's repository for this run (config/project-trust.ts). */
  trustWorkspace: boolean;
  /** `--mcp-config` values (JSON or file paths), in order; parsed by src/mcp/config.ts. */
  mcpConfig: string[];
  strictMcpConfig: boolean;
  /** `--plugin-dir` / `--plugin-dir-no-mcp` folders, in order (src/project). */
  pluginDirs: Array<{ path: string; skipMcp: boolean }>;
  /** `--agents` JSON text (src/project/agents.ts parses it; bad JSON is a warning). */
  agentsJson: string | undefined;
  /** `--agent <name>`: the main thread runs as that agent (src/cli/app-agents.ts applyMainAgent). */
  mainAgent: string | undefined;
  continueSession: boolean;
  resume: string | undefined;
  forkSession: boolean;
  sessionId: string | undefined;
  resumeSessionAt: string | undefined;
  noSessionPersistence: boolean;
  logLevel: LogLevel;
  debugFile: string | undefined;
  modelProvider: 'anthropic' | 'scripted';
  scenario: string | undefined;
  scenarioRecord: string | undefined;
  maxLineBytes: number;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

function last(p: ParsedArgs, name: string): string | undefined {
  const v = p.values.get(name);
  return v ? v[v.length - 1] : undefined;
}
function flag(p: ParsedArgs, name: string): boolean {
  const v = last(p, name);
  if (v === undefined) return false;
  return !['false', '0', 'no'].includes(v.toLowerCase());
}
function all(p: ParsedArgs, name: string): string[] {
  return (p.values.get(name) ?? []).flatMap((v) => splitRuleList(v));
}

function intOpt(p: ParsedArgs, name: string, min: number): number | undefined {
  const v = last(p, name);
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw new StartupError('invalid_flag_value', `--${name} must be an integer, got ${JSON.stringify(v)}.`);
  const n = Number(v);
  if (n < min) throw new StartupError('invalid_flag_value', `--${name} must be at least ${min}, got ${n}.`);
  return n;
}

function oneOf<T extends string>(p: ParsedArgs, name: string, allowed: readonly T[], def: T): T {
  const v = last(p, name);
  if (v === undefined || v === '') return def;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new StartupError('invalid_flag_value', `--${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}.`);
  }
  return v as T;
}

function readTextFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new StartupError('config_file_unreadable', `Cannot read ${what} ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function resolveOptions(p: ParsedArgs, rawEnv: Readonly<Record<string, string | undefined>>): CliOptions {
  const env = readEnv(rawEnv);
  const print = flag(p, 'print');
  const inputFormat = oneOf(p, 'input-format', ['text', 'stream-json'] as const, 'text');
  // Without an explicit --output-format, stream-json input implies stream-json output (the SDK case).
  const outputFormat = oneOf(p, 'output-format', ['text', 'json', 'stream-json'] as const, inputFormat === 'stream-json' ? 'stream-json' : 'text');
  // Frames in, plain text or one JSON document out has no meaning; Claude Code refuses it too.
  if (inputFormat === 'stream-json' && outputFormat !== 'stream-json') {
    throw new StartupError('invalid_flag_value', '--input-format stream-json requires --output-format stream-json.');
  }

  const budget = last(p, 'max-budget-usd');
  let maxBudgetUsd: number | undefined;
  if (budget !== undefined && budget !== '') {
    maxBudgetUsd = Number(budget);
    if (!Number.isFinite(maxBudgetUsd) || maxBudgetUsd < 0) {
      throw new StartupError('invalid_flag_value', `--max-budget-usd must be a non-negative number, got ${JSON.stringify(budget)}.`);
    }
  }

  const thinkingFlag = last(p, 'thinking');
  const thinking = thinkingFlag === undefined || thinkingFlag === '' ? undefined : oneOf(p, 'thinking', ['enabled', 'adaptive', 'disabled'] as const, 'adaptive');
  const displayFlag = last(p, 'thinking-display');
  const thinkingDisplay = displayFlag === undefined || displayFlag === '' ? undefined : oneOf(p, 'thinking-display', ['summarized', 'omitted', 'highlights'] as const, 'summarized');
  // Claude Code warns about an unknown --effort and runs at the default; a mistyped level is refused here
  // instead (protocol/CHANGELOG.md), so it never silently costs more or thinks less than asked.
  const effortFlag = last(p, 'effort');
  const effort = effortFlag === undefined || effortFlag === '' ? undefined : parseEffortLevel(effortFlag, { ultracode: true });
  if (effortFlag !== undefined && effortFlag !== '' && effort === undefined) {
    throw new StartupError('invalid_flag_value', `--effort must be one of ${EFFORT_LEVELS.join(', ')}, got ${JSON.stringify(effortFlag)}.`);
  }

  let jsonSchema: Record<string, unknown> | undefined;
  const js = last(p, 'json-schema');
  if (js !== undefined && js !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(js);
    } catch {
      throw new StartupError('invalid_flag_value', '--json-schema is not valid JSON.');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new StartupError('invalid_flag_value', '--json-schema must be a JSON object (a JSON Schema).');
    }
    jsonSchema = parsed as Record<string, unknown>;
  }

  let systemPrompt = last(p, 'system-prompt');
  const spf = last(p, 'system-prompt-file');
  if (spf) systemPrompt = readTextFile(spf, 'system prompt file');
  let appendSystemPrompt = last(p, 'append-system-prompt');
  const aspf = last(p, 'append-system-prompt-file');
  if (aspf) appendSystemPrompt = readTextFile(aspf, 'append system prompt file');

  const pmRaw = last(p, 'permission-mode');
  let permissionMode: PermissionModeName | undefined;
  if (pmRaw !== undefined && pmRaw !== '') {
    permissionMode = normalizeMode(pmRaw);
    if (!permissionMode) throw new StartupError('invalid_flag_value', `--permission-mode: unknown mode ${JSON.stringify(pmRaw)}.`);
  }
  const dangerouslySkip = flag(p, 'dangerously-skip-permissions');
  if (dangerouslySkip) permissionMode = 'bypassPermissions';
  const allowDangerouslySkipPermissions = dangerouslySkip || flag(p, 'allow-dangerously-skip-permissions');
  if (permissionMode === 'bypassPermissions' && !allowDangerouslySkipPermissions) {
    throw new StartupError(
      'bypass_not_allowed',
      '--permission-mode bypassPermissions needs --allow-dangerously-skip-permissions (or --dangerously-skip-permissions).',
    );
  }

  const toolsRaw = p.values.get('tools');
  const tools = toolsRaw === undefined ? undefined : toolsRaw.flatMap((v) => splitRuleList(v));

  const ssRaw = p.values.get('setting-sources');
  let settingSources: CliOptions['settingSources'];
  if (ssRaw !== undefined) {
    settingSources = [];
    for (const s of ssRaw.flatMap((v) => splitRuleList(v))) {
      if (s !== 'user' && s !== 'project' && s !== 'local') throw new StartupError('invalid_flag_value', `--setting-sources: unknown source ${JSON.stringify(s)}.`);
      settingSources.push(s);
    }
  }

  // Managed settings delivered in the initialize request would arrive after the policy must already bind (the
  // settings files are read at start-up): refused rather than run without them (nothing fails open).
  if (flag(p, 'managed-settings-in-initialize')) {
    throw new StartupError(
      'managed_settings_not_delivered',
      '--managed-settings-in-initialize is not supported by agentd: pass the managed settings with --managed-settings (the SDK\'s default delivery).',
    );
  }
  if (p.values.has('initialize-fields')) {
    throw new StartupError('initialize_fields_not_delivered', '--initialize-fields is not supported by agentd: pass --settings and --disallowedTools on the command line (the SDK\'s default delivery).');
  }

  const sessionId = last(p, 'session-id');
  if (sessionId !== undefined && sessionId !== '' && !isUuid(sessionId)) {
    throw new StartupError('invalid_flag_value', `--session-id must be a UUID, got ${JSON.stringify(sessionId)}.`);
  }
  const resume = last(p, 'resume');
  const continueSession = flag(p, 'continue');
  if (sessionId && (resume || continueSession) && !flag(p, 'fork-session')) {
    throw new StartupError('invalid_flag_value', '--session-id with --resume/--continue also needs --fork-session.');
  }

  const debug = p.values.has('debug');
  const logLevelRaw = last(p, 'log-level') ?? env.logLevel;
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
  if (logLevelRaw !== undefined && !(levels as readonly string[]).includes(logLevelRaw)) {
    throw new StartupError('invalid_flag_value', `--log-level must be one of ${levels.join(', ')}.`);
  }
  const logLevel: LogLevel = (logLevelRaw as LogLevel | undefined) ?? (debug ? 'debug' : 'warn');

  const providerRaw = last(p, 'model-provider') ?? env.modelProvider;
  if (providerRaw !== undefined && providerRaw !== 'anthropic' && providerRaw !== 'scripted') {
    throw new StartupError('invalid_flag_value', `--model-provider must be anthropic or scripted, got ${JSON.stringify(providerRaw)}.`);
  }
  const scenario = last(p, 'scenario') ?? env.scenario;
  const modelProvider = providerRaw ?? (scenario ? 'scripted' : 'anthropic');

  // Without -p a word is a subcommand (dispatched before this) or a mistake: agentd has no interactive UI to hand
  // it to, and sending it to the model would be a paid request nobody asked for.
  const showHelp = flag(p, 'help');
  const showVersion = flag(p, 'version');
  const first = p.positionals[0];
  if (!print && first !== undefined && !showHelp && !showVersion) {
    throw new StartupError(
      'unknown_command',
      `unknown command '${first}'. agentd has no interactive mode: to send a prompt, use agentd -p ${JSON.stringify(p.positionals.join(' '))} (agentd --help lists the commands).`,
    );
  }
  const prompt = p.positionals.length ? p.positionals.join(' ') : undefined;
  if (print && prompt !== undefined && prompt.trim() === '') throw new StartupError('empty_prompt', 'The prompt is empty: give -p a prompt argument or pipe one on stdin.');

  const prompts = oneOf(p, 'permission-prompts', ['host', 'none'] as const, 'host');
  const ppt = last(p, 'permission-prompt-tool');

  return {
    outputFormat,
    inputFormat,
    print,
    prompt,
    includePartialMessages: flag(p, 'include-partial-messages'),
    includeHookEvents: flag(p, 'include-hook-events'),
    usageFrames: flag(p, 'usage-frames') || env.usageFrames,
    replayUserMessages: flag(p, 'replay-user-messages'),
    showVersion,
    showHelp,
    // ANTHROPIC_MODEL and the settings `model` come below the flag (src/config/config.ts).
    model: last(p, 'model') || undefined,
    fallbackModel: last(p, 'fallback-model')?.split(',')[0] || undefined,
    maxTurns: intOpt(p, 'max-turns', 1),
    maxBudgetUsd,
    thinking: thinking === undefined ? undefined : thinking === 'disabled' ? 'off' : 'on',
    maxThinkingTokens: intOpt(p, 'max-thinking-tokens', 0),
    thinkingDisplay,
    effort,
    verbose: flag(p, 'verbose'),
    betas: all(p, 'betas'),
    jsonSchema,
    systemPrompt,
    appendSystemPrompt: appendSystemPrompt || undefined,
    permissionMode,
    permissionPromptTool: ppt || undefined,
    permissionPrompts: prompts,
    permissionPromptTimeoutMs: intOpt(p, 'permission-prompt-timeout-ms', 1),
    allowDangerouslySkipPermissions,
    allowedTools: all(p, 'allowedTools'),
    disallowedTools: all(p, 'disallowedTools'),
    tools,
    addDirs: (p.values.get('add-dir') ?? []).filter((d) => d !== ''),
    settingSources,
    settings: last(p, 'settings') || undefined,
    managedSettings: last(p, 'managed-settings') || undefined,
    trustWorkspace: flag(p, 'trust-workspace'),
    mcpConfig: (p.values.get('mcp-config') ?? []).filter((v) => v.trim() !== ''),
    strictMcpConfig: flag(p, 'strict-mcp-config'),
    pluginDirs: [
      ...(p.values.get('plugin-dir') ?? []).filter((d) => d !== '').map((path) => ({ path, skipMcp: false })),
      ...(p.values.get('plugin-dir-no-mcp') ?? []).filter((d) => d !== '').map((path) => ({ path, skipMcp: true })),
    ],
    agentsJson: last(p, 'agents') || undefined,
    mainAgent: last(p, 'agent') || undefined,
    continueSession,
    resume: resume || undefined,
    forkSession: flag(p, 'fork-session'),
    sessionId: sessionId || undefined,
    resumeSessionAt: last(p, 'resume-session-at') || undefined,
    noSessionPersistence: flag(p, 'no-session-persistence'),
    logLevel,
    debugFile: last(p, 'debug-file') || undefined,
    modelProvider,
    scenario: scenario || undefined,
    scenarioRecord: last(p, 'scenario-record') ?? env.scenarioRecord ?? undefined,
    maxLineBytes: intOpt(p, 'max-line-bytes', 1024) ?? DEFAULT_MAX_LINE_BYTES,
  };
}

/** One-shot mode (text input, with or without -p) with no prompt argument: the prompt must come from stdin. */
export function needsPromptFromStdin(opts: Pick<CliOptions, 'inputFormat' | 'prompt'>): boolean {
  return opts.inputFormat === 'text' && opts.prompt === undefined;
}
