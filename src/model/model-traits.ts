// What a model takes in a request, as Claude Code 2.1.330 decides it (measured by driving the binary,
// test/measure/request-defaults.measure.ts; the table is its built-in model catalog): adaptive or budget
// thinking, whether thinking can be turned off, the effort levels, the default and largest max_tokens, and the
// capabilities that decide its betas. Keyed on the model id as sent, matched by family the way Claude Code does:
// the catalog id (or a dated first-party id) found anywhere in the lower-cased id, the longest match winning, so
// `claude-sonnet-4-5-20250929`, `us.anthropic.claude-sonnet-4-5-20250929-v1:0`, `claude-opus-4-5@20251101` and
// `CLAUDE-OPUS-4-6` all behave as their family. An id that matches nothing is an unknown model: on the
// Anthropic API (and Foundry) Claude Code assumes it takes everything new (adaptive thinking, every effort
// level); on Bedrock and Vertex only what the catalog says.

export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export const EFFORT_LEVELS: readonly EffortLevel[] = ['low', 'medium', 'high', 'xhigh', 'max'];
export type ApiProvider = 'firstParty' | 'bedrock' | 'vertex' | 'foundry';

interface CatalogEntry {
  id: string;
  /** Other spellings the family is recognised by (dated first-party ids of models whose id has no minor version). */
  also?: readonly string[];
  maxTokens: number;
  maxTokensUpper: number;
  effort?: true;
  xhigh?: true;
  max?: true;
  adaptive?: true;
  /** The model refuses `thinking: {type: "disabled"}`: thinking stays on whatever is asked. */
  rejectsDisabled?: true;
  /** mid_conv_tool_change: gets the mid-conversation-tool-changes beta. */
  midConv?: true;
  /** per_turn_effort: gets the per-turn-control beta. */
  perTurn?: true;
  defaultEffort?: EffortLevel;
}

const E = { effort: true, max: true, xhigh: true, adaptive: true } as const;
const CATALOG: readonly CatalogEntry[] = [
  { id: 'claude-3-5-haiku', maxTokens: 8192, maxTokensUpper: 8192 },
  { id: 'claude-haiku-4-5', maxTokens: 32000, maxTokensUpper: 64000 },
  { id: 'claude-haiku-5-5', maxTokens: 128000, maxTokensUpper: 128000, ...E, rejectsDisabled: true, midConv: true, perTurn: true, defaultEffort: 'medium' },
  { id: 'claude-3-5-sonnet', maxTokens: 8192, maxTokensUpper: 8192 },
  { id: 'claude-3-7-sonnet', maxTokens: 32000, maxTokensUpper: 64000 },
  { id: 'claude-sonnet-4-0', also: ['claude-sonnet-4-2025'], maxTokens: 32000, maxTokensUpper: 64000 },
  { id: 'claude-sonnet-4-5', maxTokens: 32000, maxTokensUpper: 64000 },
  { id: 'claude-sonnet-4-6', maxTokens: 32000, maxTokensUpper: 128000, effort: true, max: true, adaptive: true },
  { id: 'claude-sonnet-5', maxTokens: 64000, maxTokensUpper: 128000, ...E, defaultEffort: 'high' },
  { id: 'claude-sonnet-5-5', maxTokens: 128000, maxTokensUpper: 128000, ...E, rejectsDisabled: true, midConv: true, perTurn: true, defaultEffort: 'medium' },
  { id: 'claude-opus-4-0', also: ['claude-opus-4-2025'], maxTokens: 32000, maxTokensUpper: 32000 },
  { id: 'claude-opus-4-1', maxTokens: 32000, maxTokensUpper: 32000 },
  { id: 'claude-opus-4-5', maxTokens: 32000, maxTokensUpper: 64000 },
  { id: 'claude-opus-4-6', maxTokens: 64000, maxTokensUpper: 128000, effort: true, max: true, adaptive: true },
  { id: 'claude-opus-4-7', maxTokens: 64000, maxTokensUpper: 128000, ...E, defaultEffort: 'xhigh' },
  { id: 'claude-opus-4-8', maxTokens: 64000, maxTokensUpper: 128000, ...E, midConv: true, defaultEffort: 'high' },
  { id: 'claude-opus-5', maxTokens: 64000, maxTokensUpper: 128000, ...E, midConv: true, defaultEffort: 'high' },
  { id: 'claude-opus-5-5', maxTokens: 128000, maxTokensUpper: 128000, ...E, rejectsDisabled: true, midConv: true, perTurn: true, defaultEffort: 'medium' },
  { id: 'claude-fable-5', maxTokens: 64000, maxTokensUpper: 128000, ...E, rejectsDisabled: true, midConv: true, defaultEffort: 'high' },
  { id: 'claude-fable-5-1', maxTokens: 64000, maxTokensUpper: 128000, ...E, rejectsDisabled: true, midConv: true, perTurn: true, defaultEffort: 'high' },
  { id: 'claude-fable-5-2', maxTokens: 128000, maxTokensUpper: 128000, ...E, rejectsDisabled: true, midConv: true, perTurn: true, defaultEffort: 'medium' },
  // In the catalog without capabilities; Claude Code names it in each rule instead.
  { id: 'claude-mythos-5', maxTokens: 64000, maxTokensUpper: 128000, ...E, midConv: true },
  { id: 'claude-mythos-5-1', maxTokens: 64000, maxTokensUpper: 128000, ...E, rejectsDisabled: true, midConv: true, defaultEffort: 'high' },
  { id: 'claude-mythos-5-2', maxTokens: 128000, maxTokensUpper: 128000, ...E, rejectsDisabled: true, midConv: true, perTurn: true, defaultEffort: 'medium' },
];

/** Families Claude Code names as lacking a feature, before it looks at the catalog (its model-support rules). */
const NO_EFFORT = new Set(['claude-opus-4-0', 'claude-opus-4-1', 'claude-sonnet-4-0', 'claude-sonnet-4-5', 'claude-haiku-4-5']);
const NO_ADAPTIVE = new Set([...NO_EFFORT, 'claude-opus-4-5']);
const NO_XHIGH = new Set([...NO_ADAPTIVE, 'claude-opus-4-6', 'claude-sonnet-4-6']);
/**
 * Released before Claude Opus 4.7: turning thinking off also sends `temperature: 1`, and on Bedrock and Vertex
 * the thinking `display` (and its betas) is not sent.
 */
const BEFORE_OPUS_4_7 = new Set([...NO_ADAPTIVE, 'claude-opus-4-6', 'claude-sonnet-4-6']);

export interface ModelTraits {
  /** The catalog family the id matched; undefined for an unknown model. */
  family: string | undefined;
  /** What settings' modelSettings are looked up by: the family, else the lower-cased id. */
  settingsKey: string;
  /** Claude 3 models: no thinking, effort or newer betas at all. */
  claude3: boolean;
  haiku: boolean;
  /** How thinking is asked for when it is on: adaptive, a token budget, or not at all. */
  thinking: 'adaptive' | 'budget' | 'none';
  rejectsDisabledThinking: boolean;
  /** Whether `thinking: {type: "disabled"}` is sent when thinking is off (else the field is left out). */
  sendsDisabled: boolean;
  /** The effort levels the model takes (empty: no output_config.effort), and its default. */
  effortLevels: readonly EffortLevel[];
  defaultEffort: EffortLevel;
  legacy: boolean;
  maxTokens: number;
  maxTokensUpper: number;
  perTurnControl: boolean;
  midConversationToolChanges: boolean;
}

const byLength = [...CATALOG].flatMap((e) => [e.id, ...(e.also ?? [])].map((key) => ({ key, e }))).sort((a, b) => b.key.length - a.key.length);
const memo = new Map<string, ModelTraits>();

/** The key a settings `modelSettings` entry applies under: its catalog family, else the lower-cased name. */
export function modelSettingsKey(name: string): string {
  return modelFamily(name) ?? name.toLowerCase().replace(/\[1m\]/g, '');
}

/** The catalog family of a model id (the longest catalog id found in it), or undefined. */
export function modelFamily(model: string): string | undefined {
  const id = model.toLowerCase().replace(/\[1m\]/g, '');
  return byLength.find((c) => id.includes(c.key))?.e.id;
}

export function modelTraits(model: string, provider: ApiProvider): ModelTraits {
  const key = `${provider}\u0000${model}`;
  let t = memo.get(key);
  if (t === undefined) {
    t = computeTraits(model, provider);
    if (memo.size > 256) memo.clear();
    memo.set(key, t);
  }
  return t;
}

function computeTraits(model: string, provider: ApiProvider): ModelTraits {
  const id = model.toLowerCase();
  const family = modelFamily(model);
  const e = CATALOG.find((c) => c.id === family);
  const claude3 = id.includes('claude-3-');
  // Anthropic's own API (and Foundry) is assumed to take what an unknown or uncatalogued model might; Bedrock and
  // Vertex only what the catalog lists.
  const firstPartyLike = provider === 'firstParty' || provider === 'foundry';
  const supports = (off: ReadonlySet<string>, cap: boolean | undefined): boolean => !claude3 && !(family !== undefined && off.has(family)) && (cap === true || firstPartyLike);
  const effort = supports(NO_EFFORT, e?.effort);
  const levels: EffortLevel[] = effort ? ['low', 'medium', 'high'] : [];
  if (effort && supports(NO_XHIGH, e?.xhigh)) levels.push('xhigh');
  if (effort && supports(NO_ADAPTIVE, e?.max)) levels.push('max');
  return {
    family,
    settingsKey: family ?? id.replace(/\[1m\]/g, ''),
    claude3,
    haiku: id.includes('haiku'),
    thinking: claude3 ? 'none' : supports(NO_ADAPTIVE, e?.adaptive) ? 'adaptive' : 'budget',
    rejectsDisabledThinking: e?.rejectsDisabled === true,
    sendsDisabled: e !== undefined && !claude3,
    effortLevels: levels,
    defaultEffort: e?.defaultEffort ?? 'high',
    legacy: claude3 || (family !== undefined && BEFORE_OPUS_4_7.has(family)),
    maxTokens: e?.maxTokens ?? 32000,
    maxTokensUpper: e?.maxTokensUpper ?? 128000,
    perTurnControl: e?.perTurn === true,
    // Claude Code gives an unknown model the beta too (it may be a newer one).
    midConversationToolChanges: !claude3 && (e === undefined || e.midConv === true),
  };
}
