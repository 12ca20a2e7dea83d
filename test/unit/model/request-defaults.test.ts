// The request fields agentd derives per model, provider and choice, against what Claude Code 2.1.330 sent in the
// same situation (test/measure/request-defaults.measure.ts; each expectation below is a measured request).
import { describe, expect, it } from 'vitest';
import { type EffortLayer, type RequestDefaults, type RequestProfile, type RequestSettings, requestDefaults, withThinkingOverride } from '../../../src/model/request-defaults.js';
import { plainRequestSettings } from '../../support/session-harness.js';

const API: RequestProfile = { provider: 'firstParty', oauth: false };
const rd = (model: string, patch: Partial<RequestSettings> = {}, profile: RequestProfile = API): RequestDefaults => requestDefaults(model, { ...plainRequestSettings(), ...patch }, profile);

const CM = { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] };
const B = {
  cc: 'claude-code-20250219',
  it: 'interleaved-thinking-2025-05-14',
  cm: 'context-management-2025-06-27',
  pt: 'per-turn-control-2026-07-01',
  mc: 'mid-conversation-tool-changes-2026-07-01',
  tt: 'thinking-token-count-2026-05-13',
  at: 'advanced-tool-use-2025-11-20',
  ef: 'effort-2025-11-24',
  du: 'thinking-display-updates-2026-08-18',
};
const ALL = [B.cc, B.it, B.cm, B.pt, B.mc, B.tt, B.at, B.ef, B.du];
const layer = (l: Partial<EffortLayer>): EffortLayer => ({ user: false, effortLevel: undefined, maxEffortLevel: undefined, models: {}, ...l });

describe('defaults per model family (Anthropic API, nothing asked)', () => {
  it('claude-opus-5-5: adaptive, effort medium, 128000, every beta', () => {
    expect(rd('claude-opus-5-5')).toEqual({ max_tokens: 128000, thinking: { type: 'adaptive', display: 'updates' }, context_management: CM, output_config: { effort: 'medium' }, betas: ALL });
  });

  it('claude-opus-4-7: adaptive, effort xhigh, 64000, no per-turn or mid-conversation betas', () => {
    expect(rd('claude-opus-4-7')).toEqual({ max_tokens: 64000, thinking: { type: 'adaptive', display: 'updates' }, context_management: CM, output_config: { effort: 'xhigh' }, betas: [B.cc, B.it, B.cm, B.tt, B.at, B.ef, B.du] });
  });

  it('claude-opus-4-5: a budget of max_tokens - 1, effort high', () => {
    expect(rd('claude-opus-4-5')).toEqual({ max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 31999, display: 'updates' }, context_management: CM, output_config: { effort: 'high' }, betas: [B.cc, B.it, B.cm, B.tt, B.at, B.ef, B.du] });
  });

  it('claude-sonnet-4-5: a budget, no effort', () => {
    expect(rd('claude-sonnet-4-5')).toEqual({ max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 31999, display: 'updates' }, context_management: CM, betas: [B.cc, B.it, B.cm, B.tt, B.at, B.du] });
  });

  it("claude-haiku-4-5: a budget, no effort, and Claude Code's own beta after context management", () => {
    expect(rd('claude-haiku-4-5')).toEqual({ max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 31999, display: 'updates' }, context_management: CM, betas: [B.it, B.cm, B.cc, B.tt, B.at, B.du] });
  });

  it('claude-haiku-5-5 and claude-fable-5-2: as opus-5-5 (haiku order)', () => {
    expect(rd('claude-haiku-5-5')).toEqual({ max_tokens: 128000, thinking: { type: 'adaptive', display: 'updates' }, context_management: CM, output_config: { effort: 'medium' }, betas: [B.it, B.cm, B.cc, B.pt, B.mc, B.tt, B.at, B.ef, B.du] });
    expect(rd('claude-fable-5-2')).toEqual(rd('claude-opus-5-5'));
  });

  it('claude-sonnet-4-6 (32000, effort high) and claude-opus-4-8 (mid-conversation beta)', () => {
    expect(rd('claude-sonnet-4-6')).toEqual({ max_tokens: 32000, thinking: { type: 'adaptive', display: 'updates' }, context_management: CM, output_config: { effort: 'high' }, betas: [B.cc, B.it, B.cm, B.tt, B.at, B.ef, B.du] });
    expect(rd('claude-opus-4-8')).toEqual({ max_tokens: 64000, thinking: { type: 'adaptive', display: 'updates' }, context_management: CM, output_config: { effort: 'high' }, betas: [B.cc, B.it, B.cm, B.mc, B.tt, B.at, B.ef, B.du] });
  });

  it('Claude 3: no thinking, effort or newer betas; 3.5 Haiku has 8192 tokens', () => {
    expect(rd('claude-3-7-sonnet-20250219')).toEqual({ max_tokens: 32000, betas: [B.cc] });
    expect(rd('claude-3-5-haiku-20241022')).toEqual({ max_tokens: 8192, betas: [B.cc] });
  });

  it('an unknown model on the Anthropic API is assumed new: adaptive, effort high, 32000, the mid-conversation beta', () => {
    expect(rd('my-custom-model')).toEqual({ max_tokens: 32000, thinking: { type: 'adaptive', display: 'updates' }, context_management: CM, output_config: { effort: 'high' }, betas: [B.cc, B.it, B.cm, B.mc, B.tt, B.at, B.ef, B.du] });
  });

  it('dated, provider, Vertex and upper-case spellings take their family', () => {
    expect(rd('claude-sonnet-4-5-20250929')).toEqual(rd('claude-sonnet-4-5'));
    expect(rd('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual(rd('claude-sonnet-4-5'));
    expect(rd('claude-opus-4-5@20251101')).toEqual(rd('claude-opus-4-5'));
    expect(rd('anthropic.claude-opus-4-6-v1')).toEqual(rd('claude-opus-4-6'));
    expect(rd('CLAUDE-OPUS-4-6')).toEqual(rd('claude-opus-4-6'));
    expect(rd('claude-sonnet-4-20250514')).toEqual(rd('claude-sonnet-4-0'));
    expect(rd('claude-opus-5-5-20261101')).toEqual(rd('claude-opus-5-5'));
  });

  it('[1m] adds the 1M-context beta after Claude Code\'s own', () => {
    expect(rd('claude-opus-4-6[1m]').betas).toEqual([B.cc, 'context-1m-2025-08-07', B.it, B.cm, B.tt, B.at, B.ef, B.du]);
  });
});

describe('thinking turned off, suppressed, or given a budget', () => {
  const off: Partial<RequestSettings> = { thinking: { kind: 'off' } };
  it('off: `disabled` (temperature 1 before Opus 4.7), left out for unknown and Claude 3 models, ignored where the model refuses', () => {
    expect(rd('claude-sonnet-4-5', off)).toEqual({ max_tokens: 32000, thinking: { type: 'disabled' }, temperature: 1, betas: [B.cc, B.it, B.cm, B.tt, B.at] });
    expect(rd('claude-opus-4-7', off)).toEqual({ max_tokens: 64000, thinking: { type: 'disabled' }, output_config: { effort: 'xhigh' }, betas: [B.cc, B.it, B.cm, B.tt, B.at, B.ef] });
    expect(rd('my-custom-model', off)).toEqual({ max_tokens: 32000, output_config: { effort: 'high' }, betas: [B.cc, B.it, B.cm, B.mc, B.tt, B.at, B.ef] });
    expect(rd('claude-3-7-sonnet-20250219', off)).toEqual({ max_tokens: 32000, temperature: 1, betas: [B.cc] });
    expect(rd('claude-opus-5-5', off)).toEqual(rd('claude-opus-5-5'));
  });

  it('suppressed (CLAUDE_CODE_DISABLE_THINKING): no thinking field at all, whatever the model', () => {
    const s: Partial<RequestSettings> = { thinking: { kind: 'suppressed' } };
    expect(rd('claude-opus-5-5', s)).toEqual({ max_tokens: 128000, output_config: { effort: 'medium' }, betas: [B.cc, B.it, B.cm, B.pt, B.mc, B.tt, B.at, B.ef] });
    expect(rd('claude-sonnet-4-5', s)).toEqual({ max_tokens: 32000, temperature: 1, betas: [B.cc, B.it, B.cm, B.tt, B.at] });
  });

  it('a budget: used by budget models (capped at max_tokens - 1), ignored by adaptive ones', () => {
    expect(rd('claude-sonnet-4-5', { thinking: { kind: 'on', budget: 5000 } }).thinking).toEqual({ type: 'enabled', budget_tokens: 5000, display: 'updates' });
    expect(rd('claude-sonnet-4-5', { thinking: { kind: 'on', budget: 100000 } }).thinking).toEqual({ type: 'enabled', budget_tokens: 31999, display: 'updates' });
    expect(rd('claude-opus-4-6', { thinking: { kind: 'on', budget: 5000 } })).toEqual(rd('claude-opus-4-6'));
  });

  it('CLAUDE_CODE_MAX_OUTPUT_TOKENS sets max_tokens (and the default budget), capped at the model\'s largest', () => {
    const sonnet = rd('claude-sonnet-4-5');
    expect(rd('claude-sonnet-4-5', { maxOutputTokens: 5000 })).toEqual({ ...sonnet, max_tokens: 5000, thinking: { type: 'enabled', budget_tokens: 4999, display: 'updates' } });
    expect(rd('claude-sonnet-4-5', { maxOutputTokens: 200000 })).toEqual({ ...sonnet, max_tokens: 64000, thinking: { type: 'enabled', budget_tokens: 63999, display: 'updates' } });
    expect(rd('claude-opus-5-5', { maxOutputTokens: 500000 }).max_tokens).toBe(128000);
    expect(rd('my-custom-model', { maxOutputTokens: 200000 }).max_tokens).toBe(128000);
  });

  it('set_max_thinking_tokens: a budget, 0 (off) and null (back to the start-up choice); absent fields are left', () => {
    const start: RequestSettings = { ...plainRequestSettings(), thinking: { kind: 'on', budget: 2000 } };
    const five = withThinkingOverride(start, 5000, undefined);
    expect(requestDefaults('claude-sonnet-4-5', five, API).thinking).toEqual({ type: 'enabled', budget_tokens: 5000, display: 'updates' });
    expect(requestDefaults('claude-sonnet-4-5', withThinkingOverride(five, 0, undefined), API).thinking).toEqual({ type: 'disabled' });
    expect(requestDefaults('claude-sonnet-4-5', withThinkingOverride(five, null, undefined), API).thinking).toEqual({ type: 'enabled', budget_tokens: 2000, display: 'updates' });
    const summarized = withThinkingOverride(five, undefined, 'summarized');
    expect(requestDefaults('claude-sonnet-4-5', summarized, API).thinking).toEqual({ type: 'enabled', budget_tokens: 5000, display: 'summarized' });
    expect(withThinkingOverride(summarized, undefined, null)).toEqual({ ...five, displayOverride: null });
    expect(withThinkingOverride(summarized, undefined, 'omitted').displayOverride).toBe('updates');
  });
});

describe('the thinking display', () => {
  it('summarized or highlights as asked (no display-updates beta); unset sends no display; omitted as given', () => {
    expect(rd('claude-opus-5-5', { display: 'summarized' })).toEqual({ ...rd('claude-opus-5-5'), thinking: { type: 'adaptive', display: 'summarized' }, betas: ALL.filter((b) => b !== B.du) });
    expect(rd('claude-opus-5-5', { display: 'highlights' }).thinking).toEqual({ type: 'adaptive', display: 'highlights' });
    expect(rd('claude-opus-5-5', { display: 'unset' })).toEqual({ ...rd('claude-opus-5-5'), thinking: { type: 'adaptive' }, betas: ALL.filter((b) => b !== B.du) });
    expect(rd('claude-sonnet-4-5', { display: 'omitted' }).thinking).toEqual({ type: 'enabled', budget_tokens: 31999, display: 'omitted' });
  });
});

describe('effort', () => {
  const effort = (e: Partial<RequestSettings['effort']>): Partial<RequestSettings> => ({ effort: { override: undefined, flag: undefined, layers: [], ...e } });
  it('a level the model does not take runs as high; a model without effort gets none', () => {
    expect(rd('claude-opus-5-5', effort({ flag: 'max' })).output_config).toEqual({ effort: 'max' });
    expect(rd('claude-opus-4-5', effort({ flag: 'max' })).output_config).toEqual({ effort: 'high' });
    expect(rd('claude-opus-4-5', effort({ flag: 'xhigh' })).output_config).toEqual({ effort: 'high' });
    expect(rd('claude-opus-4-6', effort({ flag: 'xhigh' })).output_config).toEqual({ effort: 'high' });
    expect(rd('claude-opus-4-6', effort({ flag: 'max' })).output_config).toEqual({ effort: 'max' });
    expect(rd('my-custom-model', effort({ flag: 'xhigh' })).output_config).toEqual({ effort: 'xhigh' });
    expect(rd('claude-sonnet-4-5', effort({ flag: 'low' })).output_config).toBeUndefined();
  });

  it('CLAUDE_CODE_EFFORT_LEVEL outranks --effort; auto sends no effort (the beta stays)', () => {
    expect(rd('claude-opus-5-5', effort({ override: 'low', flag: 'high' })).output_config).toEqual({ effort: 'low' });
    expect(rd('claude-opus-5-5', effort({ override: 'auto', flag: 'high' }))).toEqual({ max_tokens: 128000, thinking: { type: 'adaptive', display: 'updates' }, context_management: CM, betas: ALL });
  });

  it("settings: the highest layer wins, a file's modelSettings entry over its top level; the user file's top level skips models whose default is medium", () => {
    const user = layer({ user: true, effortLevel: 'low' });
    expect(rd('claude-opus-5-5', effort({ layers: [user] })).output_config).toEqual({ effort: 'medium' });
    expect(rd('claude-opus-4-6', effort({ layers: [user] })).output_config).toEqual({ effort: 'low' });
    expect(rd('claude-opus-5-5', effort({ layers: [layer({ effortLevel: 'low' }), user] })).output_config).toEqual({ effort: 'low' });
    expect(rd('claude-opus-5-5', effort({ layers: [layer({ user: true, models: { 'claude-opus-5-5': { effortLevel: 'low' } } })] })).output_config).toEqual({ effort: 'low' });
    expect(rd('claude-opus-4-6', effort({ layers: [layer({ user: true, effortLevel: 'low', models: { 'claude-opus-4-6': { effortLevel: 'high' } } })] })).output_config).toEqual({ effort: 'high' });
    expect(rd('claude-opus-4-6', effort({ flag: 'high', layers: [layer({ effortLevel: 'low' })] })).output_config).toEqual({ effort: 'high' });
  });

  it('maxEffortLevel caps every source, the lowest across files; a modelSettings "max" exempts the model', () => {
    expect(rd('claude-opus-5-5', effort({ flag: 'max', layers: [layer({ maxEffortLevel: 'medium' })] })).output_config).toEqual({ effort: 'medium' });
    expect(rd('claude-opus-5-5', effort({ layers: [layer({ maxEffortLevel: 'low' })] })).output_config).toEqual({ effort: 'low' });
    expect(rd('claude-opus-5-5', effort({ flag: 'max', layers: [layer({ maxEffortLevel: 'low', models: { 'claude-opus-5-5': { maxEffortLevel: 'max' } } })] })).output_config).toEqual({ effort: 'max' });
  });
});

describe('providers and credentials', () => {
  it('Bedrock: no display or thinking betas for older models, its own body betas, no context management', () => {
    const bedrock: RequestProfile = { provider: 'bedrock', oauth: false };
    expect(rd('claude-opus-5-5', {}, bedrock)).toEqual({ max_tokens: 128000, thinking: { type: 'adaptive', display: 'updates' }, output_config: { effort: 'medium' }, betas: [B.cc, B.tt, B.ef, B.du], bedrockBetas: [B.it, 'tool-search-tool-2025-10-19', B.tt, B.du] });
    expect(rd('claude-sonnet-4-5', {}, bedrock)).toEqual({ max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 31999 }, betas: [B.cc], bedrockBetas: [B.it, 'tool-search-tool-2025-10-19'] });
    expect(rd('my-custom-model', {}, bedrock)).toEqual({ max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 31999, display: 'updates' }, betas: [B.cc, B.tt, B.du], bedrockBetas: [B.it, 'tool-search-tool-2025-10-19', B.tt, B.du] });
  });

  it('Vertex: web search and tool search betas; Foundry: as the Anthropic API plus web search', () => {
    const vertex: RequestProfile = { provider: 'vertex', oauth: false };
    expect(rd('claude-opus-5-5', {}, vertex).betas).toEqual([B.cc, B.it, 'web-search-2025-03-05', B.tt, 'tool-search-tool-2025-10-19', B.ef, B.du]);
    expect(rd('claude-sonnet-4-5', {}, vertex).betas).toEqual([B.cc, B.it, 'web-search-2025-03-05', 'tool-search-tool-2025-10-19']);
    const foundry: RequestProfile = { provider: 'foundry', oauth: false };
    expect(rd('my-custom-model', {}, foundry)).toEqual({ ...rd('my-custom-model'), betas: [B.cc, B.it, B.cm, 'web-search-2025-03-05', B.mc, B.tt, B.at, B.ef, B.du] });
  });

  it('a subscription token: the oauth beta after Claude Code\'s own, extended cache TTL last', () => {
    expect(rd('claude-sonnet-4-5', {}, { provider: 'firstParty', oauth: true }).betas).toEqual([B.cc, 'oauth-2025-04-20', B.it, B.cm, B.tt, B.at, B.du, 'extended-cache-ttl-2025-04-11']);
  });
});
