// Prices come from Claude Code 2.1.330's catalog (model/catalog.ts): each model's tier (input, output, 5-minute
// and 1-hour cache writes, cache reads, per web search; Haiku 5.5 dearer for prompts over 100k tokens). A model is
// priced by the name a request was made for, in any spelling the catalog knows (`sonnet` resolved to
// claude-sonnet-5-5, a dated or provider id, `[1m]` at its base price: measured). A model the catalog does not know
// is priced as Claude Code prices it (measured): $4/$20 per Mtok on the first-party API, $5/$25 on a cloud
// provider; modelUsage[model].costBasis says "unknown" then, "list" otherwise. Context windows: context-window.ts.
import { type CatalogModel, PRICE_TIERS, type PriceTier, type Provider, catalogById, lookupModel } from '../model/catalog.js';
import { DEFAULT_MODEL_ID } from '../model/names.js';

/** modelUsage.maxOutputTokens for a model the catalog does not know (Claude Code's, measured). */
const UNKNOWN_MAX_OUTPUT = 32_000;

export interface ModelPrice {
  tier: PriceTier;
  maxOutputTokens: number;
  basis: 'list' | 'unknown';
  /** The catalog id (modelUsage.canonicalModel), or the name itself when unknown. */
  canonical: string;
}

/** The price of `model` (a resolved name, a dated or provider id) on `provider`. */
export function priceFor(model: string, provider: Provider = 'firstParty'): ModelPrice {
  const m: CatalogModel | undefined = lookupModel(model);
  if (m) return { tier: PRICE_TIERS[m.price], maxOutputTokens: m.maxOutput, basis: 'list', canonical: m.id };
  const unknown = provider === 'firstParty' ? PRICE_TIERS[(catalogById(DEFAULT_MODEL_ID) as CatalogModel).price] : PRICE_TIERS.tier_5_25;
  return { tier: unknown, maxOutputTokens: UNKNOWN_MAX_OUTPUT, basis: 'unknown', canonical: model.replace(/\[1m\]$/i, '') };
}

export interface CostInput {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  ephemeral_5m_input_tokens: number;
  ephemeral_1h_input_tokens: number;
  /** Cache writes not split by TTL (counted as 5-minute writes). */
  other_cache_creation_input_tokens: number;
  web_search_requests: number;
}

export function costUsd(tier: PriceTier, u: CostInput): number {
  const prompt = u.input_tokens + u.cache_read_input_tokens + u.ephemeral_5m_input_tokens + u.ephemeral_1h_input_tokens + u.other_cache_creation_input_tokens;
  const p = tier.longPrompt && prompt > tier.longPrompt.above ? tier.longPrompt : tier;
  const perTok = 1 / 1_000_000;
  return (
    (u.input_tokens * p.input +
      u.output_tokens * p.output +
      u.cache_read_input_tokens * p.cacheRead +
      (u.ephemeral_5m_input_tokens + u.other_cache_creation_input_tokens) * p.cacheWrite5m +
      u.ephemeral_1h_input_tokens * p.cacheWrite1h) *
      perTok +
    u.web_search_requests * tier.webSearch
  );
}
