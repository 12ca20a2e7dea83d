// Every flag the official SDKs (TS 0.2.x/0.3.x, Python) and claude-agent-acp pass (protocol.md §2.3, §10.4),
// plus agentd's own. Accepted in `--flag value` and `--flag=value` forms, with empty values. A flag that is
// accepted but not implemented is logged once on stderr, never fatal.

export type FlagKind = 'boolean' | 'value' | 'multi';

export interface FlagSpec {
  name: string;
  kind: FlagKind;
  aliases?: string[];
  /** 'yes': implemented; 'ignored': accepted and deliberately without effect; 'no': not implemented yet. */
  status: 'yes' | 'ignored' | 'no';
  help: string;
  /** For value flags: the value may be omitted (`--debug` alone). */
  optionalValue?: boolean;
}

export const FLAGS: readonly FlagSpec[] = [
  // I/O and mode
  { name: 'output-format', kind: 'value', status: 'yes', help: 'text | json | stream-json (stream-json for SDK hosts)' },
  { name: 'input-format', kind: 'value', status: 'yes', help: 'text | stream-json (stream-json: NDJSON frames on stdin)' },
  { name: 'print', kind: 'boolean', aliases: ['p'], status: 'yes', help: 'One-shot mode: answer the prompt argument (or stdin) and exit' },
  { name: 'verbose', kind: 'boolean', status: 'yes', help: 'stream-json output is always complete; with -p --output-format json, thinking is asked to be shown' },
  { name: 'include-partial-messages', kind: 'boolean', status: 'yes', help: 'Emit stream_event frames while the model streams' },
  { name: 'include-hook-events', kind: 'boolean', status: 'yes', help: 'Emit system/hook_started and system/hook_response frames' },
  { name: 'replay-user-messages', kind: 'boolean', status: 'yes', help: 'Echo each consumed user message back (isReplay)' },
  { name: 'version', kind: 'boolean', aliases: ['v'], status: 'yes', help: 'Print the version line and exit' },
  { name: 'help', kind: 'boolean', aliases: ['h'], status: 'yes', help: 'Print this help and exit' },
  // model
  { name: 'model', kind: 'value', status: 'yes', help: "Model: an alias (opus, sonnet, haiku, fable, best, opusplan, default; [1m] for 1M context) resolved as Claude Code's, or any id" },
  { name: 'fallback-model', kind: 'value', status: 'yes', help: 'Model used after repeated overload errors (a name as for --model)' },
  { name: 'max-turns', kind: 'value', status: 'yes', help: 'Maximum model round trips per turn' },
  { name: 'max-budget-usd', kind: 'value', status: 'yes', help: 'Stop before a model call once this much has been spent' },
  { name: 'task-budget', kind: 'value', status: 'ignored', help: 'Accepted; agentd has no task budgets' },
  { name: 'effort', kind: 'value', status: 'yes', help: 'low | medium | high | xhigh | max (default: the model\'s; a level it lacks runs as high)' },
  { name: 'thinking', kind: 'value', status: 'yes', help: 'enabled | adaptive (the default: as the model takes it) | disabled' },
  { name: 'max-thinking-tokens', kind: 'value', status: 'yes', help: 'Thinking budget for budget-thinking models (0 disables thinking)' },
  { name: 'thinking-display', kind: 'value', status: 'yes', help: 'summarized | omitted | highlights (default: what the output shows)' },
  { name: 'betas', kind: 'multi', status: 'yes', help: 'Comma-separated API beta headers' },
  { name: 'json-schema', kind: 'value', status: 'yes', help: 'JSON Schema the final answer must match (structured_output)' },
  // system prompt (Python SDK)
  { name: 'system-prompt', kind: 'value', status: 'yes', help: 'Custom system prompt ("" = minimal identity prompt)' },
  { name: 'system-prompt-file', kind: 'value', status: 'yes', help: 'Read the custom system prompt from a file' },
  { name: 'append-system-prompt', kind: 'value', status: 'yes', help: 'Text appended to the system prompt' },
  { name: 'append-system-prompt-file', kind: 'value', status: 'yes', help: 'Read the appended text from a file' },
  // permissions
  { name: 'permission-mode', kind: 'value', status: 'yes', help: 'default | acceptEdits | plan | bypassPermissions | dontAsk | auto' },
  { name: 'permission-prompt-tool', kind: 'value', status: 'yes', help: '"stdio": ask the host (can_use_tool); mcp__server__tool: ask that MCP tool' },
  { name: 'permission-prompts', kind: 'value', status: 'yes', help: 'host | none (none: deny instead of asking)' },
  { name: 'allow-dangerously-skip-permissions', kind: 'boolean', status: 'yes', help: 'Allow bypassPermissions mode' },
  { name: 'dangerously-skip-permissions', kind: 'boolean', status: 'yes', help: 'Start in bypassPermissions mode' },
  { name: 'allowedTools', kind: 'multi', aliases: ['allowed-tools'], status: 'yes', help: 'Allow rules, e.g. Read,Bash(git status:*)' },
  { name: 'disallowedTools', kind: 'multi', aliases: ['disallowed-tools'], status: 'yes', help: 'Deny rules; bare names remove the tool' },
  { name: 'tools', kind: 'multi', status: 'yes', help: 'Base tool set ("default", a list, or "" for none)' },
  { name: 'add-dir', kind: 'multi', status: 'yes', help: 'Additional directory tools may use (repeatable)' },
  { name: 'setting-sources', kind: 'multi', status: 'yes', help: 'Which settings files to read: user,project,local' },
  { name: 'settings', kind: 'value', status: 'yes', help: 'Settings JSON or a path to a settings file' },
  { name: 'trust-workspace', kind: 'boolean', status: 'yes', help: "Trust the working directory's repository for this run: its hooks, MCP servers, helpers and env apply (env AGENTD_TRUST_WORKSPACE=1; `agentd trust` records it)" },
  { name: 'managed-settings', kind: 'value', status: 'yes', help: 'Policy-tier settings (JSON or a path): deny/ask rules and locks no other layer can loosen' },
  // MCP, agents, plugins
  { name: 'mcp-config', kind: 'multi', status: 'yes', help: 'MCP servers: JSON or a file path (repeatable); stdio, http, sse and SDK servers' },
  { name: 'strict-mcp-config', kind: 'boolean', status: 'yes', help: 'Only use --mcp-config servers (not .mcp.json or ~/.claude.json)' },
  { name: 'agent', kind: 'value', status: 'yes', help: "Main-thread agent: its prompt, tools and model (a custom agent's name)" },
  { name: 'agents', kind: 'value', status: 'yes', help: 'Agent definitions JSON ({"name": {description, prompt, tools?, model?}})' },
  { name: 'plugin-dir', kind: 'multi', status: 'yes', help: 'Plugin folder: its commands, skills, agents and command hooks (repeatable; MCP servers not yet)' },
  { name: 'plugin-dir-no-mcp', kind: 'multi', status: 'yes', help: 'Plugin folder whose MCP servers the host owns (repeatable)' },
  { name: 'project-config-root', kind: 'value', status: 'no', help: 'Project config root (not implemented)' },
  // sessions
  { name: 'continue', kind: 'boolean', aliases: ['c'], status: 'yes', help: 'Continue the most recent session of this directory' },
  { name: 'resume', kind: 'value', aliases: ['r'], status: 'yes', help: 'Resume a session by id' },
  { name: 'fork-session', kind: 'boolean', status: 'yes', help: 'With --resume/--continue: copy into a new session' },
  { name: 'session-id', kind: 'value', status: 'yes', help: 'Session id (UUID) for a new or forked session' },
  { name: 'resume-session-at', kind: 'value', status: 'yes', help: 'Resume only up to this message uuid' },
  { name: 'resume-drops-turn', kind: 'value', status: 'no', help: 'Validate a dropped turn on resume (not implemented)' },
  { name: 'no-session-persistence', kind: 'boolean', status: 'yes', help: 'Write no transcript' },
  { name: 'session-mirror', kind: 'boolean', status: 'no', help: 'transcript_mirror frames (not implemented)' },
  // debug / SDK plumbing
  { name: 'debug', kind: 'value', aliases: ['d'], optionalValue: true, status: 'yes', help: 'Debug logging on stderr' },
  { name: 'debug-file', kind: 'value', status: 'yes', help: 'Write logs to this file instead of stderr' },
  { name: 'await-initialize', kind: 'boolean', status: 'ignored', help: 'Accepted (agentd always processes input in order)' },
  { name: 'await-claim', kind: 'boolean', status: 'no', help: 'Prewarm claim protocol (not implemented)' },
  { name: 'managed-settings-in-initialize', kind: 'boolean', status: 'yes', help: 'Refused at start-up (use --managed-settings): the policy must bind from the start' },
  { name: 'initialize-fields', kind: 'multi', status: 'yes', help: 'Refused at start-up (pass --settings / --disallowedTools): they may carry security settings' },
  { name: 'enable-auth-status', kind: 'boolean', status: 'ignored', help: 'Accepted; agentd has no login flow' },
  { name: 'workload', kind: 'value', status: 'ignored', help: 'Accepted; telemetry tag' },
  { name: 'channels', kind: 'multi', status: 'no', help: 'Not implemented' },
  // agentd's own
  { name: 'model-provider', kind: 'value', status: 'yes', help: 'anthropic (default) | scripted (env AGENTD_MODEL_PROVIDER)' },
  { name: 'scenario', kind: 'value', status: 'yes', help: 'Scripted-model scenario file, or builtin:<name> (env AGENTD_SCENARIO)' },
  { name: 'scenario-record', kind: 'value', status: 'yes', help: 'Append every model request as NDJSON here (env AGENTD_SCENARIO_RECORD)' },
  { name: 'max-line-bytes', kind: 'value', status: 'yes', help: 'Inbound line cap in bytes (default 67108864)' },
  { name: 'log-level', kind: 'value', status: 'yes', help: 'fatal | error | warn | info | debug | trace | silent' },
  { name: 'usage-frames', kind: 'boolean', status: 'yes', help: 'Emit system/agentd_usage (cost so far) after every model call (env AGENTD_USAGE_FRAMES=1)' },
  { name: 'permission-prompt-timeout-ms', kind: 'value', status: 'yes', help: 'Deny a host permission request unanswered after this long (default: none)' },
];

const BY_NAME = new Map<string, FlagSpec>();
for (const f of FLAGS) {
  BY_NAME.set(f.name, f);
  for (const a of f.aliases ?? []) BY_NAME.set(a, f);
}

export interface ParsedArgs {
  /** Canonical flag name → values in order (booleans get "true"/given value). */
  values: Map<string, string[]>;
  positionals: string[];
  /** Where the first positional stands in argv (a subcommand word, see subcommands/index.ts). */
  firstPositionalAt: number | undefined;
  /** Unknown flags as written (logged, ignored). */
  unknown: string[];
}

function push(m: Map<string, string[]>, k: string, v: string): void {
  const arr = m.get(k);
  if (arr) arr.push(v);
  else m.set(k, [v]);
}

/** Parses argv (without node and script). Never throws: bad values are reported by options.ts. */
export function parseArgv(argv: readonly string[]): ParsedArgs {
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  const unknown: string[] = [];
  let firstPositionalAt: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i] as string;
    if (tok === '--') {
      positionals.push(...argv.slice(i + 1).filter((t) => t !== ''));
      break;
    }
    if (!tok.startsWith('-') || tok === '-') {
      // A stray "" (claude-agent-acp's `--replay-user-messages ""`) is not a prompt.
      if (tok !== '') {
        firstPositionalAt ??= i;
        positionals.push(tok);
      }
      continue;
    }
    const long = tok.startsWith('--');
    const body = long ? tok.slice(2) : tok.slice(1);
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    const inline = eq === -1 ? undefined : body.slice(eq + 1);
    const spec = BY_NAME.get(name);
    if (!spec) {
      unknown.push(name);
      // An unknown flag's value (e.g. extraArgs `--foo bar`) must not become a prompt.
      if (inline === undefined && i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) i++;
      continue;
    }
    if (spec.kind === 'boolean') {
      push(values, spec.name, inline ?? 'true');
      continue;
    }
    if (inline !== undefined) {
      push(values, spec.name, inline);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && (next === '' || !next.startsWith('-') || /^-\d/.test(next))) {
      push(values, spec.name, next);
      i++;
    } else if (spec.optionalValue) {
      push(values, spec.name, '');
    } else {
      push(values, spec.name, '');
    }
  }
  return { values, positionals, firstPositionalAt, unknown };
}

export function flagSpec(name: string): FlagSpec | undefined {
  return BY_NAME.get(name);
}

/** Splits a tool/rule list on commas and whitespace outside parentheses (as the CLI does). */
export function splitRuleList(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || ch === ' ' || ch === '\t' || ch === '\n')) {
      if (cur) out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}
