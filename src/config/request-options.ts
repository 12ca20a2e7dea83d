// The session's request options (thinking, its display, effort, max_tokens), resolved once from the flags, the
// environment and the settings files, with Claude Code 2.1.330's precedence (measured:
// test/measure/request-defaults.measure.ts):
//  - thinking: CLAUDE_CODE_DISABLE_THINKING, then MAX_THINKING_TOKENS, then --thinking disabled, then
//    --max-thinking-tokens, then --thinking enabled|adaptive, then settings alwaysThinkingEnabled: false;
//  - display: --thinking-display summarized|highlights as given; otherwise what the output shows: `updates` for
//    stream-json (and json with --verbose), `omitted` for text and plain json; showThinkingSummaries without a
//    flag sends no display (the API's summaries);
//  - effort: CLAUDE_CODE_EFFORT_LEVEL, then --effort, then the settings layers (model/request-defaults.ts).
// A bad --effort, CLAUDE_CODE_EFFORT_LEVEL or CLAUDE_CODE_SUBAGENT_EFFORT stops the start-up naming it.
import type { EnvConfig } from './env.js';
import { StartupError } from './errors.js';
import type { RequestSettingsFromFiles } from './settings-effort.js';
import { EFFORT_LEVELS, type EffortLevel, type RequestSettings, type ThinkingChoice, type ThinkingDisplay, parseEffortLevel } from '../model/request-defaults.js';

/** The flags that shape requests (CliOptions' fields of the same names). */
export interface RequestFlags {
  /** `--thinking` (enabled and adaptive are one: on). */
  thinking: 'on' | 'off' | undefined;
  maxThinkingTokens: number | undefined;
  thinkingDisplay: 'summarized' | 'omitted' | 'highlights' | undefined;
  effort: EffortLevel | undefined;
  verbose: boolean;
  outputFormat: 'text' | 'json' | 'stream-json';
}
type Opts = RequestFlags;
type Env = Pick<EnvConfig, 'disableThinking' | 'maxThinkingTokens' | 'effortLevel' | 'subagentEffort' | 'maxOutputTokens'>;

function envEffort(name: string, v: string | undefined, auto: boolean): EffortLevel | 'auto' | undefined {
  if (v === undefined) return undefined;
  if (auto && /^(auto|unset)$/i.test(v.trim())) return 'auto';
  const e = parseEffortLevel(v, { ultracode: true });
  if (e === undefined) throw new StartupError('invalid_env_value', `${name} must be one of ${EFFORT_LEVELS.join(', ')}${auto ? ', auto' : ''}, got ${JSON.stringify(v)}.`);
  return e;
}

function thinkingChoice(o: Opts, env: Env, files: RequestSettingsFromFiles): ThinkingChoice {
  const budget = (n: number): ThinkingChoice => (n === 0 ? { kind: 'off' } : { kind: 'on', budget: n });
  if (env.disableThinking) return { kind: 'suppressed' };
  if (env.maxThinkingTokens !== undefined) return budget(env.maxThinkingTokens);
  if (o.thinking === 'off') return { kind: 'off' };
  if (o.maxThinkingTokens !== undefined) return budget(o.maxThinkingTokens);
  if (o.thinking === 'on') return { kind: 'on', budget: undefined };
  if (files.alwaysThinkingEnabled === false) return { kind: 'off' };
  return { kind: 'default' };
}

/** The display for nothing asked: what the output shows (no one reads thinking in text or plain json output). */
export function defaultDisplay(o: Pick<RequestFlags, 'outputFormat' | 'verbose'>): 'updates' | 'omitted' {
  return o.outputFormat === 'text' || (o.outputFormat === 'json' && !o.verbose) ? 'omitted' : 'updates';
}

function display(o: Opts, files: RequestSettingsFromFiles): ThinkingDisplay {
  if (o.thinkingDisplay === 'summarized' || o.thinkingDisplay === 'highlights') return o.thinkingDisplay;
  // An explicit `omitted` is the output's own default (measured: `updates` under stream-json).
  if (o.thinkingDisplay === undefined && files.showThinkingSummaries === true) return 'unset';
  return defaultDisplay(o);
}

export function resolveRequestSettings(o: Opts, env: Env, files: RequestSettingsFromFiles): RequestSettings {
  const subagent = envEffort('CLAUDE_CODE_SUBAGENT_EFFORT', env.subagentEffort, false);
  return {
    thinking: thinkingChoice(o, env, files),
    thinkingOverride: null,
    display: display(o, files),
    displayOverride: null,
    outputDisplay: defaultDisplay(o),
    effort: { override: envEffort('CLAUDE_CODE_EFFORT_LEVEL', env.effortLevel, true), flag: o.effort, layers: files.effortLayers },
    maxOutputTokens: env.maxOutputTokens,
    subagentEffort: subagent === 'auto' ? undefined : subagent,
  };
}
