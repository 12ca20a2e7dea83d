// Claude Code 2.1.330's baked-in model catalog (read from the binary: its `models` table, `aliases`, and pricing
// tiers), reduced to what agentd uses: each model's ids per provider, family, display name, context window,
// default output cap and price. The one table: names.ts resolves aliases with it, model-ids.ts maps ids to a
// provider's, session/pricing.ts and session/context-window.ts read prices and windows from it. Which id Claude
// Code sends for each alias was measured by driving the binary (test/measure/model-aliases.measure.ts).

export type Provider = 'firstParty' | 'bedrock' | 'vertex' | 'foundry';
export type ThirdParty = Exclude<Provider, 'firstParty'>;
export type Family = 'opus' | 'sonnet' | 'haiku' | 'fable' | 'mythos';
/** The families a bare alias names (`opus`, …) and an ANTHROPIC_DEFAULT_<FAMILY>_MODEL variable overrides. */
export type AliasFamily = 'opus' | 'sonnet' | 'haiku' | 'fable';
export const ALIAS_FAMILIES: readonly AliasFamily[] = ['opus', 'fable', 'sonnet', 'haiku'];

/** USD per million tokens; `longPrompt` applies when a request's prompt is above `above` tokens. */
export interface PriceTier {
  input: number;
  output: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
  /** USD per web search request. */
  webSearch: number;
  longPrompt?: { above: number; input: number; output: number; cacheWrite5m: number; cacheWrite1h: number; cacheRead: number };
}

const tier = (input: number, output: number, cacheRead = input / 10): PriceTier => ({ input, output, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2, cacheRead, webSearch: 0.01 });

// prettier-ignore
export const PRICE_TIERS = {
  tier_2_10: tier(2, 10),
  tier_2_10_cache_read_0_10: tier(2, 10, 0.1),
  tier_3_15: tier(3, 15),
  tier_5_25: tier(5, 25),
  tier_15_75: tier(15, 75),
  tier_10_50: tier(10, 50),
  tier_10_50_cache_read_0_25: tier(10, 50, 0.25),
  tier_4_20_cache_read_0_20: tier(4, 20, 0.2),
  tier_8_40_cache_read_0_20: tier(8, 40, 0.2),
  haiku_35: tier(0.8, 4),
  haiku_45: tier(1, 5),
  haiku_55: { ...tier(0.1, 0.5, 0.01), longPrompt: { above: 100_000, input: 0.5, output: 2.5, cacheWrite5m: 0.625, cacheWrite1h: 1, cacheRead: 0.05 } },
} as const satisfies Record<string, PriceTier>;
export type PriceTierName = keyof typeof PRICE_TIERS;

export interface CatalogModel {
  /** The catalog id (Claude Code's canonical name): what modelUsage.canonicalModel says. */
  id: string;
  family: Family;
  name: string;
  /** The id each provider is sent; null where the provider does not offer the model. */
  firstParty: string;
  bedrock: string | null;
  vertex: string | null;
  foundry: string | null;
  /** Context window without an opt-in. */
  window: number;
  /** A 1M-token window without the `[1m]` opt-in (the suffix is then dropped, as Claude Code drops it). */
  native1m: boolean;
  /** Takes the context-1m beta (an `[1m]` default is only chosen for such a model). */
  beta1m: boolean;
  /** modelUsage.maxOutputTokens (the catalog's default output cap). */
  maxOutput: number;
  price: PriceTierName;
}

// prettier-ignore
export const CATALOG: readonly CatalogModel[] = [
  { id: 'claude-3-5-haiku', family: 'haiku', name: 'Haiku 3.5', firstParty: 'claude-3-5-haiku-20241022', bedrock: 'us.anthropic.claude-3-5-haiku-20241022-v1:0', vertex: 'claude-3-5-haiku@20241022', foundry: 'claude-3-5-haiku', window: 200_000, native1m: false, beta1m: false, maxOutput: 8192, price: 'haiku_35' },
  { id: 'claude-haiku-4-5', family: 'haiku', name: 'Haiku 4.5', firstParty: 'claude-haiku-4-5-20251001', bedrock: 'us.anthropic.claude-haiku-4-5-20251001-v1:0', vertex: 'claude-haiku-4-5@20251001', foundry: 'claude-haiku-4-5', window: 200_000, native1m: false, beta1m: false, maxOutput: 32000, price: 'haiku_45' },
  { id: 'claude-haiku-5-5', family: 'haiku', name: 'Haiku 5.5', firstParty: 'claude-haiku-5-5', bedrock: 'us.anthropic.claude-haiku-5-5', vertex: 'claude-haiku-5-5', foundry: 'claude-haiku-5-5', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 128000, price: 'haiku_55' },
  { id: 'claude-3-5-sonnet', family: 'sonnet', name: 'Sonnet 3.5', firstParty: 'claude-3-5-sonnet-20241022', bedrock: 'us.anthropic.claude-3-5-sonnet-20241022-v2:0', vertex: 'claude-3-5-sonnet-v2@20241022', foundry: 'claude-3-5-sonnet', window: 200_000, native1m: false, beta1m: false, maxOutput: 8192, price: 'tier_3_15' },
  { id: 'claude-3-7-sonnet', family: 'sonnet', name: 'Sonnet 3.7', firstParty: 'claude-3-7-sonnet-20250219', bedrock: 'us.anthropic.claude-3-7-sonnet-20250219-v1:0', vertex: 'claude-3-7-sonnet@20250219', foundry: 'claude-3-7-sonnet', window: 200_000, native1m: false, beta1m: false, maxOutput: 32000, price: 'tier_3_15' },
  { id: 'claude-sonnet-4-0', family: 'sonnet', name: 'Sonnet 4', firstParty: 'claude-sonnet-4-20250514', bedrock: 'us.anthropic.claude-sonnet-4-20250514-v1:0', vertex: 'claude-sonnet-4@20250514', foundry: 'claude-sonnet-4', window: 200_000, native1m: false, beta1m: true, maxOutput: 32000, price: 'tier_3_15' },
  { id: 'claude-sonnet-4-5', family: 'sonnet', name: 'Sonnet 4.5', firstParty: 'claude-sonnet-4-5-20250929', bedrock: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', vertex: 'claude-sonnet-4-5@20250929', foundry: 'claude-sonnet-4-5', window: 200_000, native1m: false, beta1m: true, maxOutput: 32000, price: 'tier_3_15' },
  { id: 'claude-sonnet-4-6', family: 'sonnet', name: 'Sonnet 4.6', firstParty: 'claude-sonnet-4-6', bedrock: 'us.anthropic.claude-sonnet-4-6', vertex: 'claude-sonnet-4-6', foundry: 'claude-sonnet-4-6', window: 200_000, native1m: false, beta1m: true, maxOutput: 32000, price: 'tier_3_15' },
  { id: 'claude-sonnet-5', family: 'sonnet', name: 'Sonnet 5', firstParty: 'claude-sonnet-5', bedrock: 'us.anthropic.claude-sonnet-5', vertex: 'claude-sonnet-5', foundry: 'claude-sonnet-5', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 64000, price: 'tier_2_10' },
  { id: 'claude-sonnet-5-5', family: 'sonnet', name: 'Sonnet 5.5', firstParty: 'claude-sonnet-5-5', bedrock: 'us.anthropic.claude-sonnet-5-5', vertex: 'claude-sonnet-5-5', foundry: 'claude-sonnet-5-5', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 128000, price: 'tier_2_10_cache_read_0_10' },
  { id: 'claude-opus-4-0', family: 'opus', name: 'Opus 4', firstParty: 'claude-opus-4-20250514', bedrock: 'us.anthropic.claude-opus-4-20250514-v1:0', vertex: 'claude-opus-4@20250514', foundry: 'claude-opus-4', window: 200_000, native1m: false, beta1m: false, maxOutput: 32000, price: 'tier_15_75' },
  { id: 'claude-opus-4-1', family: 'opus', name: 'Opus 4.1', firstParty: 'claude-opus-4-1-20250805', bedrock: 'us.anthropic.claude-opus-4-1-20250805-v1:0', vertex: 'claude-opus-4-1@20250805', foundry: 'claude-opus-4-1', window: 200_000, native1m: false, beta1m: false, maxOutput: 32000, price: 'tier_15_75' },
  { id: 'claude-opus-4-5', family: 'opus', name: 'Opus 4.5', firstParty: 'claude-opus-4-5-20251101', bedrock: 'us.anthropic.claude-opus-4-5-20251101-v1:0', vertex: 'claude-opus-4-5@20251101', foundry: 'claude-opus-4-5', window: 200_000, native1m: false, beta1m: false, maxOutput: 32000, price: 'tier_5_25' },
  { id: 'claude-opus-4-6', family: 'opus', name: 'Opus 4.6', firstParty: 'claude-opus-4-6', bedrock: 'us.anthropic.claude-opus-4-6-v1', vertex: 'claude-opus-4-6', foundry: 'claude-opus-4-6', window: 200_000, native1m: false, beta1m: true, maxOutput: 64000, price: 'tier_5_25' },
  { id: 'claude-opus-4-7', family: 'opus', name: 'Opus 4.7', firstParty: 'claude-opus-4-7', bedrock: 'us.anthropic.claude-opus-4-7', vertex: 'claude-opus-4-7', foundry: 'claude-opus-4-7', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 64000, price: 'tier_5_25' },
  { id: 'claude-opus-4-8', family: 'opus', name: 'Opus 4.8', firstParty: 'claude-opus-4-8', bedrock: 'us.anthropic.claude-opus-4-8', vertex: 'claude-opus-4-8', foundry: 'claude-opus-4-8', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 64000, price: 'tier_5_25' },
  { id: 'claude-opus-5', family: 'opus', name: 'Opus 5', firstParty: 'claude-opus-5', bedrock: 'us.anthropic.claude-opus-5', vertex: 'claude-opus-5', foundry: 'claude-opus-5', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 64000, price: 'tier_5_25' },
  { id: 'claude-opus-5-5', family: 'opus', name: 'Opus 5.5', firstParty: 'claude-opus-5-5', bedrock: 'us.anthropic.claude-opus-5-5', vertex: 'claude-opus-5-5', foundry: 'claude-opus-5-5', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 128000, price: 'tier_4_20_cache_read_0_20' },
  { id: 'claude-fable-5', family: 'fable', name: 'Fable 5', firstParty: 'claude-fable-5', bedrock: 'us.anthropic.claude-fable-5', vertex: 'claude-fable-5', foundry: 'claude-fable-5', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 64000, price: 'tier_10_50' },
  { id: 'claude-fable-5-1', family: 'fable', name: 'Fable 5.1', firstParty: 'claude-fable-5-1', bedrock: 'us.anthropic.claude-fable-5-1', vertex: 'claude-fable-5-1', foundry: 'claude-fable-5-1', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 64000, price: 'tier_10_50_cache_read_0_25' },
  { id: 'claude-fable-5-2', family: 'fable', name: 'Fable 5.2', firstParty: 'claude-fable-5-2', bedrock: 'us.anthropic.claude-fable-5-2', vertex: 'claude-fable-5-2', foundry: 'claude-fable-5-2', window: 1_000_000, native1m: true, beta1m: true, maxOutput: 128000, price: 'tier_8_40_cache_read_0_20' },
  { id: 'claude-mythos-5', family: 'mythos', name: 'Mythos 5', firstParty: 'claude-mythos-5', bedrock: null, vertex: null, foundry: null, window: 1_000_000, native1m: true, beta1m: true, maxOutput: 64000, price: 'tier_10_50' },
  { id: 'claude-mythos-5-1', family: 'mythos', name: 'Mythos 5.1', firstParty: 'claude-mythos-5-1', bedrock: null, vertex: null, foundry: null, window: 1_000_000, native1m: true, beta1m: true, maxOutput: 64000, price: 'tier_10_50_cache_read_0_25' },
  { id: 'claude-mythos-5-2', family: 'mythos', name: 'Mythos 5.2', firstParty: 'claude-mythos-5-2', bedrock: null, vertex: null, foundry: null, window: 1_000_000, native1m: true, beta1m: true, maxOutput: 128000, price: 'tier_8_40_cache_read_0_20' },
];

/**
 * The model before each one in its line (the catalog's `fallback_3p`): where an alias or the default steps down to
 * when a policy's deniedModels blocks the newer one (measured: blocking claude-opus-5-5 makes `opus` claude-opus-5).
 */
// prettier-ignore
export const STEP_DOWN: Readonly<Record<string, string>> = {
  'claude-haiku-5-5': 'claude-haiku-4-5', 'claude-sonnet-4-5': 'claude-sonnet-4-0', 'claude-sonnet-4-6': 'claude-sonnet-4-5',
  'claude-sonnet-5': 'claude-sonnet-4-6', 'claude-sonnet-5-5': 'claude-sonnet-5', 'claude-opus-4-5': 'claude-opus-4-1',
  'claude-opus-4-6': 'claude-opus-4-5', 'claude-opus-4-7': 'claude-opus-4-6', 'claude-opus-4-8': 'claude-opus-4-7',
  'claude-opus-5': 'claude-opus-4-8', 'claude-opus-5-5': 'claude-opus-5', 'claude-fable-5-1': 'claude-fable-5',
  'claude-fable-5-2': 'claude-fable-5-1',
};

/** The catalog model each alias stands for, per provider (Claude Code's `aliases` table). */
// prettier-ignore
export const ALIAS_TARGETS: Readonly<Record<AliasFamily, { default: string } & Partial<Record<ThirdParty, string>>>> = {
  opus: { default: 'claude-opus-5-5', bedrock: 'claude-opus-5-5', vertex: 'claude-opus-5-5', foundry: 'claude-opus-4-6' },
  sonnet: { default: 'claude-sonnet-5-5', bedrock: 'claude-sonnet-4-5', vertex: 'claude-sonnet-4-5', foundry: 'claude-sonnet-4-5' },
  haiku: { default: 'claude-haiku-5-5', bedrock: 'claude-haiku-4-5', vertex: 'claude-haiku-4-5', foundry: 'claude-haiku-4-5' },
  fable: { default: 'claude-fable-5-2' },
};

/** The picker's one-line description of each alias's model (Claude Code's initialize `models`). */
export const ALIAS_SLOGANS: Readonly<Record<AliasFamily, string>> = {
  opus: 'Best for everyday, complex tasks',
  fable: 'Most capable for your hardest and longest-running tasks',
  sonnet: 'Efficient for routine tasks',
  haiku: 'Fastest for quick answers',
};

const BY_ID = new Map(CATALOG.map((m) => [m.id, m]));

export function catalogById(id: string): CatalogModel | undefined {
  return BY_ID.get(id);
}

/**
 * The catalog model `id` names in any spelling Claude Code knows: the catalog id, the first-party id, or a
 * provider's id (a Bedrock id with any cross-region prefix). Case-insensitive; an `[1m]` suffix is ignored.
 */
export function lookupModel(id: string): CatalogModel | undefined {
  const m = id.trim().toLowerCase().replace(/\[1m\]$/, '');
  const unprefixed = m.replace(/^(?:us|eu|apac|jp|au|us-gov|global)\.anthropic\./, 'us.anthropic.');
  return BY_ID.get(m) ?? CATALOG.find((e) => e.firstParty === m || e.vertex === m || e.foundry === m || e.bedrock === unprefixed || (e.bedrock !== null && `anthropic.${e.bedrock.slice('us.anthropic.'.length)}` === m));
}
