// The thinking, effort, max_tokens and beta fields of a main-loop request, as Claude Code 2.1.330 sends them for
// the same model, flags and settings (measured: test/measure/request-defaults.measure.ts, whose header lists the
// facts). Pure: the choices come resolved from the edge (cli/request-options.ts), the model's traits from
// model-traits.ts.
import { EFFORT_LEVELS, type ApiProvider, type EffortLevel, type ModelTraits, modelTraits } from './model-traits.js';
import type { ThinkingConfig, ThinkingDisplayMode } from './types.js';

export { type ApiProvider, type EffortLevel, EFFORT_LEVELS } from './model-traits.js';

/** What the user asked for about thinking, before the model is known (flags, MAX_THINKING_TOKENS, settings). */
export type ThinkingChoice =
  /** Nothing asked: on, as the model takes it. */
  | { kind: 'default' }
  /** On, with this budget for a model that takes a budget (undefined: max_tokens - 1). */
  | { kind: 'on'; budget: number | undefined }
  /** Off (`--thinking disabled`, a zero budget, `alwaysThinkingEnabled: false`); a model that refuses keeps it on. */
  | { kind: 'off' }
  /** CLAUDE_CODE_DISABLE_THINKING: no thinking parameter at all, whatever the model. */
  | { kind: 'suppressed' };

/** The thinking `display` sent when thinking is on; `unset`: no display field (showThinkingSummaries). */
export type ThinkingDisplay = ThinkingDisplayMode | 'unset';

export type MaxEffort = EffortLevel;

/** One settings layer's effort keys (modelSettings keyed by catalog family or model id). */
export interface EffortLayer {
  /** The user's own settings file: its top-level effortLevel does not reach a model whose default is medium (measured). */
  user: boolean;
  effortLevel: EffortLevel | undefined;
  maxEffortLevel: MaxEffort | undefined;
  models: Readonly<Record<string, { effortLevel?: EffortLevel | undefined; maxEffortLevel?: MaxEffort | undefined }>>;
}

export interface EffortSettings {
  /**
   * Outranks everything else: CLAUDE_CODE_EFFORT_LEVEL (a level, or `auto`: no effort parameter), and for a
   * subagent's requests CLAUDE_CODE_SUBAGENT_EFFORT.
   */
  override: EffortLevel | 'auto' | undefined;
  /** `--effort` (the SDK's `effort` option). */
  flag: EffortLevel | undefined;
  /** Settings layers, highest precedence first. */
  layers: readonly EffortLayer[];
}

/** The request options of a session (resolved once at start-up; set_max_thinking_tokens changes the overrides). */
export interface RequestSettings {
  thinking: ThinkingChoice;
  /** set_max_thinking_tokens: 0 turns thinking off, N is a budget; null: the start-up choice. */
  thinkingOverride: number | null;
  display: ThinkingDisplay;
  /** set_max_thinking_tokens' thinking_display; null: the start-up display. */
  displayOverride: ThinkingDisplay | null;
  /** What an explicit `omitted` display stands for: the output's default (`updates` when a host shows thinking). */
  outputDisplay: 'updates' | 'omitted';
  effort: EffortSettings;
  /** CLAUDE_CODE_MAX_OUTPUT_TOKENS (capped at the model's largest). */
  maxOutputTokens: number | undefined;
  /** CLAUDE_CODE_SUBAGENT_EFFORT: the effort of subagents' requests. */
  subagentEffort: EffortLevel | undefined;
}

/** Who the request goes to: the provider and whether a Claude subscription token authenticates it. */
export interface RequestProfile {
  provider: ApiProvider;
  oauth: boolean;
}

export const BETA = {
  claudeCode: 'claude-code-20250219',
  oauth: 'oauth-2025-04-20',
  context1m: 'context-1m-2025-08-07',
  interleavedThinking: 'interleaved-thinking-2025-05-14',
  contextManagement: 'context-management-2025-06-27',
  webSearch: 'web-search-2025-03-05',
  perTurnControl: 'per-turn-control-2026-07-01',
  midConversationToolChanges: 'mid-conversation-tool-changes-2026-07-01',
  thinkingTokenCount: 'thinking-token-count-2026-05-13',
  advancedToolUse: 'advanced-tool-use-2025-11-20',
  toolSearchTool: 'tool-search-tool-2025-10-19',
  effort: 'effort-2025-11-24',
  thinkingDisplayUpdates: 'thinking-display-updates-2026-08-18',
  extendedCacheTtl: 'extended-cache-ttl-2025-04-11',
} as const;

/** Keeps thinking blocks in the conversation (the API would otherwise clear old ones). */
export const CLEAR_THINKING_KEEP_ALL = Object.freeze({ edits: Object.freeze([Object.freeze({ type: 'clear_thinking_20251015', keep: 'all' })]) });

export interface RequestDefaults {
  max_tokens: number;
  thinking?: ThinkingConfig;
  context_management?: typeof CLEAR_THINKING_KEEP_ALL;
  output_config?: { effort: EffortLevel };
  temperature?: 1;
  /** In Claude Code's order; the caller's own (`--betas`) follow. */
  betas: string[];
  /** Bedrock: the betas Claude Code puts in the body (`anthropic_beta`), a list of their own beside the header's. */
  bedrockBetas?: string[];
}

const rank = (e: EffortLevel): number => EFFORT_LEVELS.indexOf(e);

/**
 * An effort level as Claude Code reads one: case-insensitive, `med` for medium and (for the flag and
 * CLAUDE_CODE_EFFORT_LEVEL) `ultracode`, whose effort is xhigh; undefined when it names no level.
 */
export function parseEffortLevel(text: string, opts: { ultracode: boolean }): EffortLevel | undefined {
  const v = text.trim().toLowerCase();
  if (v === 'med') return 'medium';
  if (opts.ultracode && v === 'ultracode') return 'xhigh';
  return EFFORT_LEVELS.find((l) => l === v);
}

/** The effort level a request to `model` carries, or undefined for none. */
export function effortFor(s: EffortSettings, t: ModelTraits): EffortLevel | undefined {
  if (t.effortLevels.length === 0 || s.override === 'auto') return undefined;
  const key = t.settingsKey;
  let chosen: EffortLevel | undefined = s.override ?? s.flag;
  for (const l of s.layers) {
    if (chosen !== undefined) break;
    // Measured on 2.1.330: the user file's top-level effortLevel is not applied to a model whose default is
    // medium (opus-5-5, haiku-5-5, fable-5-2), a project's or --settings' is; a modelSettings entry always is.
    const m = l.models[key]?.effortLevel;
    chosen = m ?? (l.user && t.defaultEffort === 'medium' ? undefined : l.effortLevel);
  }
  let level = chosen ?? t.defaultEffort;
  // A level the model does not take runs as high (Claude Code's silent downgrade).
  if (!t.effortLevels.includes(level)) level = 'high';
  // maxEffortLevel: the lowest across files; a file's modelSettings entry replaces its top-level one ("max" exempts).
  for (const l of s.layers) {
    const cap = l.models[key]?.maxEffortLevel ?? l.maxEffortLevel;
    if (cap !== undefined && cap !== 'max' && rank(level) > rank(cap)) level = cap;
  }
  return level;
}

/**
 * set_max_thinking_tokens as Claude Code applies it: a budget (0: off) overrides the start-up choice for the
 * rest of the session, null clears the override, an absent field leaves it; `display` likewise (`omitted`
 * standing for the output's default, as the flag does).
 */
export function withThinkingOverride(r: RequestSettings, budget: number | null | undefined, display: 'summarized' | 'omitted' | 'highlights' | null | undefined): RequestSettings {
  return {
    ...r,
    ...(budget !== undefined ? { thinkingOverride: budget } : {}),
    ...(display !== undefined ? { displayOverride: display === 'omitted' ? r.outputDisplay : display } : {}),
  };
}

function thinkingWanted(r: RequestSettings): ThinkingChoice {
  if (r.thinking.kind === 'suppressed') return r.thinking;
  if (r.thinkingOverride === null) return r.thinking;
  return r.thinkingOverride === 0 ? { kind: 'off' } : { kind: 'on', budget: r.thinkingOverride };
}

/** The request fields Claude Code derives from the model, the provider and the session's thinking and effort choices. */
export function requestDefaults(model: string, r: RequestSettings, profile: RequestProfile): RequestDefaults {
  const t = modelTraits(model, profile.provider);
  const firstPartyLike = profile.provider === 'firstParty' || profile.provider === 'foundry';
  const maxTokens = Math.min(r.maxOutputTokens ?? t.maxTokens, t.maxTokensUpper);
  const wanted = thinkingWanted(r);
  const on = t.thinking !== 'none' && (wanted.kind === 'default' || wanted.kind === 'on' || (wanted.kind === 'off' && t.rejectsDisabledThinking));
  const display = r.displayOverride ?? r.display;
  // Bedrock and Vertex take no display for a model released before Opus 4.7.
  const sendDisplay = display !== 'unset' && (firstPartyLike || !t.legacy);
  let thinking: ThinkingConfig | undefined;
  if (on) {
    const budget = wanted.kind === 'on' && wanted.budget !== undefined ? Math.min(wanted.budget, maxTokens - 1) : maxTokens - 1;
    thinking = t.thinking === 'adaptive' ? { type: 'adaptive' } : { type: 'enabled', budget_tokens: budget };
    if (sendDisplay) thinking.display = display;
  } else if (wanted.kind === 'off' && t.sendsDisabled) thinking = { type: 'disabled' };
  // Thinking the user turned off (not a model that never thinks) is sent with temperature 1 to older models.
  const turnedOff = !on && (wanted.kind === 'off' || wanted.kind === 'suppressed');
  const effort = effortFor(r.effort, t);
  const displayUpdates = on && sendDisplay && display === 'updates';
  return {
    max_tokens: maxTokens,
    ...(thinking ? { thinking } : {}),
    ...(on && firstPartyLike && !t.claude3 ? { context_management: CLEAR_THINKING_KEEP_ALL } : {}),
    ...(effort !== undefined ? { output_config: { effort } } : {}),
    ...(turnedOff && t.legacy ? { temperature: 1 as const } : {}),
    betas: betasFor(model, t, profile, { effort: t.effortLevels.length > 0, displayUpdates }),
    ...(profile.provider === 'bedrock' ? { bedrockBetas: bedrockBodyBetas(t, displayUpdates) } : {}),
  };
}

function bedrockBodyBetas(t: ModelTraits, displayUpdates: boolean): string[] {
  if (t.claude3) return [];
  const b: string[] = [BETA.interleavedThinking, BETA.toolSearchTool];
  if (!t.legacy) b.push(BETA.thinkingTokenCount);
  if (displayUpdates) b.push(BETA.thinkingDisplayUpdates);
  return b;
}

function betasFor(model: string, t: ModelTraits, p: RequestProfile, f: { effort: boolean; displayUpdates: boolean }): string[] {
  const firstPartyLike = p.provider === 'firstParty' || p.provider === 'foundry';
  const modern = !t.claude3;
  const b: string[] = [];
  // Claude Code adds its own beta later in the list for a Haiku model.
  if (!t.haiku) b.push(BETA.claudeCode);
  if (p.oauth) b.push(BETA.oauth);
  if (/\[1m\]/i.test(model)) b.push(BETA.context1m);
  if (modern && p.provider !== 'bedrock') b.push(BETA.interleavedThinking);
  if (modern && firstPartyLike) b.push(BETA.contextManagement);
  if (t.haiku) b.push(BETA.claudeCode);
  if (p.provider === 'vertex' || p.provider === 'foundry') b.push(BETA.webSearch);
  if (firstPartyLike && t.perTurnControl) b.push(BETA.perTurnControl);
  if (firstPartyLike && t.midConversationToolChanges) b.push(BETA.midConversationToolChanges);
  if (modern && (firstPartyLike || !t.legacy)) b.push(BETA.thinkingTokenCount);
  if (modern && firstPartyLike) b.push(BETA.advancedToolUse);
  if (p.provider === 'vertex') b.push(BETA.toolSearchTool);
  if (f.effort) b.push(BETA.effort);
  if (f.displayUpdates) b.push(BETA.thinkingDisplayUpdates);
  if (p.oauth) b.push(BETA.extendedCacheTtl);
  return b;
}
