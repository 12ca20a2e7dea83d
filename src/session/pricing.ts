// Price table, USD per million tokens. Cache writes cost 1.25× input (5-minute TTL) or 2× (1-hour TTL); cache
// reads 0.1× input (Anthropic's published multipliers). A model that is not in the table is priced by its
// family (the first of opus / sonnet / haiku / fable found in its id), and if no family matches, as Sonnet.
// The basis used is reported in modelUsage[model].costBasis. Context windows are in context-window.ts.

export interface ModelPrice {
  input: number;
  output: number;
  maxOutputTokens: number;
}

export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-5-5': { input: 4, output: 20, maxOutputTokens: 128_000 },
  'claude-fable-5-2': { input: 8, output: 40, maxOutputTokens: 128_000 },
  'claude-opus-4-5': { input: 5, output: 25, maxOutputTokens: 64_000 },
  'claude-opus-4-1': { input: 15, output: 75, maxOutputTokens: 32_000 },
  'claude-opus-4-0': { input: 15, output: 75, maxOutputTokens: 32_000 },
  'claude-sonnet-4-5': { input: 3, output: 15, maxOutputTokens: 64_000 },
  'claude-sonnet-4-0': { input: 3, output: 15, maxOutputTokens: 64_000 },
  'claude-haiku-4-5': { input: 1, output: 5, maxOutputTokens: 64_000 },
  'claude-3-5-haiku': { input: 0.8, output: 4, maxOutputTokens: 8_192 },
};

const FAMILY_FALLBACK: ReadonlyArray<[string, string]> = [
  ['fable', 'claude-fable-5-2'],
  ['opus', 'claude-opus-5-5'],
  ['sonnet', 'claude-sonnet-4-5'],
  ['haiku', 'claude-haiku-4-5'],
];

export const DEFAULT_PRICE_MODEL = 'claude-sonnet-4-5';

/** Resolves a model id (dated suffixes like -20250929 included) to a price and the basis used. */
export function priceFor(model: string): { price: ModelPrice; basis: string } {
  const exact = PRICE_TABLE[model];
  if (exact) return { price: exact, basis: 'table' };
  // Dated ids: claude-sonnet-4-5-20250929 → claude-sonnet-4-5.
  const undated = model.replace(/-\d{8}$/, '').replace(/@.*$/, '');
  const byPrefix = PRICE_TABLE[undated];
  if (byPrefix) return { price: byPrefix, basis: 'table' };
  const lower = model.toLowerCase();
  for (const [family, ref] of FAMILY_FALLBACK) {
    if (lower.includes(family)) return { price: PRICE_TABLE[ref] as ModelPrice, basis: `fallback:${family}` };
  }
  return { price: PRICE_TABLE[DEFAULT_PRICE_MODEL] as ModelPrice, basis: 'fallback:default' };
}

export interface CostInput {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  ephemeral_5m_input_tokens: number;
  ephemeral_1h_input_tokens: number;
  /** Cache writes not split by TTL (counted as 5-minute writes). */
  other_cache_creation_input_tokens: number;
}

export function costUsd(price: ModelPrice, u: CostInput): number {
  const perTok = 1 / 1_000_000;
  return (
    u.input_tokens * price.input * perTok +
    u.output_tokens * price.output * perTok +
    u.cache_read_input_tokens * price.input * 0.1 * perTok +
    (u.ephemeral_5m_input_tokens + u.other_cache_creation_input_tokens) * price.input * 1.25 * perTok +
    u.ephemeral_1h_input_tokens * price.input * 2 * perTok
  );
}
