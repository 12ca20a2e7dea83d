// Token and cost accounting. `usage` on a result is per turn (main loop only); `modelUsage` and
// `total_cost_usd` are cumulative for the life of the process, as in Claude Code.
import type { Usage } from '../model/types.js';
import type { ModelUsageTotals, TurnUsage } from './events.js';
import { contextWindowFor } from './context-window.js';
import { costUsd, priceFor } from './pricing.js';
import type { Provider } from '../model/catalog.js';

export function emptyTurnUsage(): TurnUsage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ephemeral_1h_input_tokens: 0,
    ephemeral_5m_input_tokens: 0,
    web_search_requests: 0,
    web_fetch_requests: 0,
    service_tier: 'standard',
  };
}

/** Merges message_delta usage over message_start usage: later non-null counters win. */
export function mergeUsage(base: Usage, update: Partial<Usage> | undefined): Usage {
  if (!update) return base;
  const set = Object.entries(update).filter(([, v]) => v !== null && v !== undefined);
  return { ...base, ...(Object.fromEntries(set) as Partial<Usage>) };
}

export interface CallCost {
  model: string;
  costUsd: number;
}

export class UsageLedger {
  private readonly models = new Map<string, ModelUsageTotals>();
  private total = 0;

  /** `provider` prices the models the catalog does not know (session/pricing.ts). */
  constructor(private readonly provider: Provider = 'firstParty') {}

  get totalCostUsd(): number {
    return this.total;
  }

  /** Records one finished (or cut) model call and adds it to the turn's counters. */
  record(model: string, usage: Usage, turn: TurnUsage): CallCost {
    const cacheCreation = usage.cache_creation_input_tokens ?? 0;
    const e1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    const e5m = usage.cache_creation?.ephemeral_5m_input_tokens ?? 0;
    const cacheRead = usage.cache_read_input_tokens ?? 0;
    const price = priceFor(model, this.provider);
    const cost = costUsd(price.tier, {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cache_read_input_tokens: cacheRead,
      ephemeral_1h_input_tokens: e1h,
      ephemeral_5m_input_tokens: e5m,
      other_cache_creation_input_tokens: Math.max(0, cacheCreation - e1h - e5m),
      web_search_requests: usage.server_tool_use?.web_search_requests ?? 0,
    });
    this.total += cost;
    const m = this.models.get(model) ?? {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0,
      contextWindow: contextWindowFor(model),
      maxOutputTokens: price.maxOutputTokens,
      costBasis: price.basis,
    };
    m.inputTokens += usage.input_tokens;
    m.outputTokens += usage.output_tokens;
    m.cacheReadInputTokens += cacheRead;
    m.cacheCreationInputTokens += cacheCreation;
    m.webSearchRequests += usage.server_tool_use?.web_search_requests ?? 0;
    m.costUSD += cost;
    this.models.set(model, m);

    turn.input_tokens += usage.input_tokens;
    turn.output_tokens += usage.output_tokens;
    turn.cache_creation_input_tokens += cacheCreation;
    turn.cache_read_input_tokens += cacheRead;
    turn.ephemeral_1h_input_tokens += e1h;
    turn.ephemeral_5m_input_tokens += e5m;
    turn.web_search_requests += usage.server_tool_use?.web_search_requests ?? 0;
    turn.web_fetch_requests += usage.server_tool_use?.web_fetch_requests ?? 0;
    if (usage.service_tier) turn.service_tier = usage.service_tier;
    return { model, costUsd: cost };
  }

  modelUsage(): Record<string, ModelUsageTotals> {
    const out: Record<string, ModelUsageTotals> = {};
    for (const [k, v] of this.models) out[k] = { ...v };
    return out;
  }

  /** Restores totals saved in a transcript (resume continues the running total). */
  restore(models: Record<string, ModelUsageTotals>): void {
    for (const [k, v] of Object.entries(models)) {
      this.models.set(k, { ...v });
      this.total += v.costUSD;
    }
  }
}
