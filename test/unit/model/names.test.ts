// The model-name resolution table against what Claude Code 2.1.330 sends, measured by driving the binary
// (test/measure/model-aliases.measure.ts, whose header records the table): each row is the name given, the
// environment, and the model system/init shows (with `planModel` for opusplan), then what goes on the wire.
import { describe, expect, it } from 'vitest';
import { type ModelEnv, FIRST_PARTY_ENV, modelForMode, resolveModel, wireModel } from '../../../src/model/names.js';

const env = (over: Partial<ModelEnv> = {}): ModelEnv => ({ ...FIRST_PARTY_ENV, ...over });
const OVERRIDES = { opus: 'my-opus', sonnet: 'my-sonnet', haiku: 'my-haiku' };

function table(names: readonly string[], e: ModelEnv): Record<string, string> {
  return Object.fromEntries(
    names.map((n) => {
      const c = resolveModel(n, e);
      return [n, c.planModel === undefined ? c.model : `${c.model} | plan: ${c.planModel}`];
    }),
  );
}

describe('model names (Claude Code 2.1.330, measured)', () => {
  it('first party: aliases, [1m], legacy Opus, pass-through', () => {
    const names = ['default', 'sonnet', 'opus', 'haiku', 'fable', 'best', 'opusplan', 'Sonnet', ' sonnet ', 'OPUS', 'sonnet[1m]', 'opus[1m]', 'haiku[1m]', 'opusplan[1m]', 'best[1m]', 'claude-sonnet-4-5', 'claude-sonnet-4-5[1m]', 'claude-opus-4-6[1m]', 'claude-opus-4-5[1m]', 'claude-opus-5-5[1m]', 'claude-opus-4-1', 'claude-opus-4-0', 'claude-opus-4-20250514', 'claude-opus-4-1-20250805', 'claude-3-7-sonnet-20250219', 'claude-mythos-5', 'mythos', 'sonnet-4-5', 'my-custom-model', 'My-Model', 'inherit'];
    expect(table(names, env())).toEqual({
      default: 'claude-opus-5-5',
      sonnet: 'claude-sonnet-5-5',
      opus: 'claude-opus-5-5',
      haiku: 'claude-haiku-5-5',
      fable: 'claude-fable-5-2',
      best: 'claude-opus-5-5',
      opusplan: 'claude-sonnet-5-5 | plan: claude-opus-5-5',
      Sonnet: 'claude-sonnet-5-5',
      ' sonnet ': 'claude-sonnet-5-5',
      OPUS: 'claude-opus-5-5',
      'sonnet[1m]': 'claude-sonnet-5-5',
      'opus[1m]': 'claude-opus-5-5',
      'haiku[1m]': 'claude-haiku-5-5',
      'opusplan[1m]': 'claude-sonnet-5-5 | plan: claude-opus-5-5',
      'best[1m]': 'claude-opus-5-5',
      'claude-sonnet-4-5': 'claude-sonnet-4-5',
      'claude-sonnet-4-5[1m]': 'claude-sonnet-4-5[1m]',
      'claude-opus-4-6[1m]': 'claude-opus-4-6[1m]',
      'claude-opus-4-5[1m]': 'claude-opus-4-5[1m]',
      'claude-opus-5-5[1m]': 'claude-opus-5-5',
      'claude-opus-4-1': 'claude-opus-5-5',
      'claude-opus-4-0': 'claude-opus-5-5',
      'claude-opus-4-20250514': 'claude-opus-5-5',
      'claude-opus-4-1-20250805': 'claude-opus-5-5',
      'claude-3-7-sonnet-20250219': 'claude-3-7-sonnet-20250219',
      'claude-mythos-5': 'claude-mythos-5',
      mythos: 'mythos',
      'sonnet-4-5': 'sonnet-4-5',
      'my-custom-model': 'my-custom-model',
      'My-Model': 'My-Model',
      inherit: 'inherit',
    });
    expect(table(['claude-opus-4-1'], env({ legacyRemap: false }))).toEqual({ 'claude-opus-4-1': 'claude-opus-4-1' });
  });

  it('first party with ANTHROPIC_DEFAULT_*_MODEL: taken as typed; the default Opus gets [1m] unless it lacks the 1M beta', () => {
    expect(table(['default', 'sonnet', 'opus', 'haiku', 'opusplan', 'best', 'sonnet[1m]', 'fable'], env({ overrides: OVERRIDES }))).toEqual({
      default: 'my-opus[1m]',
      sonnet: 'my-sonnet',
      opus: 'my-opus',
      haiku: 'my-haiku',
      opusplan: 'my-sonnet | plan: my-opus',
      best: 'my-opus',
      'sonnet[1m]': 'my-sonnet[1m]',
      fable: 'claude-fable-5-2',
    });
    expect({
      known: resolveModel('default', env({ overrides: { opus: 'claude-opus-4-6' } })),
      noBeta: resolveModel('default', env({ overrides: { opus: 'claude-opus-4-5' } })),
      sonnetOnly: resolveModel('default', env({ overrides: { sonnet: 'my-sonnet' } })),
      aliasValued: resolveModel('sonnet', env({ overrides: { sonnet: 'haiku' } })),
      fable: resolveModel('fable', env({ overrides: { fable: 'my-fable' } })),
      defaultModel: resolveModel('default', env({ defaultModel: 'sonnet' })),
      defaultModelId: resolveModel('default', env({ defaultModel: 'claude-sonnet-4-5' })),
    }).toEqual({
      known: { model: 'claude-opus-4-6[1m]' },
      noBeta: { model: 'claude-opus-4-5' },
      sonnetOnly: { model: 'claude-opus-5-5' },
      aliasValued: { model: 'haiku' },
      fable: { model: 'my-fable' },
      defaultModel: { model: 'claude-sonnet-5-5' },
      defaultModelId: { model: 'claude-sonnet-4-5' },
    });
  });

  it('Bedrock, Vertex, Foundry: the provider aliases and defaults', () => {
    const names = ['default', 'sonnet', 'opus', 'haiku', 'best', 'opusplan', 'fable', 'sonnet[1m]', 'opus[1m]', 'claude-opus-4-1', 'claude-opus-4-6[1m]'];
    expect({
      bedrock: table(names, env({ provider: 'bedrock' })),
      bedrockEu: table(['sonnet'], env({ provider: 'bedrock', bedrockPrefix: 'eu' })),
      vertex: table(names, env({ provider: 'vertex' })),
      foundry: table(names, env({ provider: 'foundry' })),
    }).toEqual({
      bedrock: {
        default: 'us.anthropic.claude-opus-5-5',
        sonnet: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        opus: 'us.anthropic.claude-opus-5-5',
        haiku: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
        best: 'us.anthropic.claude-opus-5-5',
        opusplan: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0 | plan: us.anthropic.claude-opus-5-5',
        fable: 'us.anthropic.claude-fable-5-2',
        'sonnet[1m]': 'us.anthropic.claude-sonnet-4-5-20250929-v1:0[1m]',
        'opus[1m]': 'us.anthropic.claude-opus-5-5',
        'claude-opus-4-1': 'claude-opus-4-1',
        'claude-opus-4-6[1m]': 'claude-opus-4-6[1m]',
      },
      bedrockEu: { sonnet: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' },
      vertex: {
        default: 'claude-opus-5-5',
        sonnet: 'claude-sonnet-4-5@20250929',
        opus: 'claude-opus-5-5',
        haiku: 'claude-haiku-4-5@20251001',
        best: 'claude-opus-5-5',
        opusplan: 'claude-sonnet-4-5@20250929 | plan: claude-opus-5-5',
        fable: 'claude-fable-5-2',
        'sonnet[1m]': 'claude-sonnet-4-5@20250929[1m]',
        'opus[1m]': 'claude-opus-5-5',
        'claude-opus-4-1': 'claude-opus-4-1',
        'claude-opus-4-6[1m]': 'claude-opus-4-6[1m]',
      },
      foundry: {
        default: 'claude-sonnet-4-5',
        sonnet: 'claude-sonnet-4-5',
        opus: 'claude-opus-4-6',
        haiku: 'claude-haiku-4-5',
        best: 'claude-opus-4-6',
        opusplan: 'claude-sonnet-4-5 | plan: claude-opus-4-6',
        fable: 'claude-fable-5-2',
        'sonnet[1m]': 'claude-sonnet-4-5[1m]',
        'opus[1m]': 'claude-opus-4-6[1m]',
        'claude-opus-4-1': 'claude-opus-4-1',
        'claude-opus-4-6[1m]': 'claude-opus-4-6[1m]',
      },
    });
  });

  it('cloud providers with overrides: the override as typed; only a Sonnet override makes Sonnet the Bedrock/Vertex default', () => {
    expect({
      bedrock: table(['default', 'sonnet', 'opus', 'haiku'], env({ provider: 'bedrock', overrides: OVERRIDES })),
      bedrockSonnetOnly: resolveModel('default', env({ provider: 'bedrock', overrides: { sonnet: 'my-sonnet' } })),
      vertexSonnetOnly: resolveModel('default', env({ provider: 'vertex', overrides: { sonnet: 'my-sonnet' } })),
      vertexOpus: resolveModel('default', env({ provider: 'vertex', overrides: { opus: 'my-opus' } })),
      foundryOpus: resolveModel('default', env({ provider: 'foundry', overrides: { opus: 'my-opus' } })),
    }).toEqual({
      bedrock: { default: 'my-opus', sonnet: 'my-sonnet', opus: 'my-opus', haiku: 'my-haiku' },
      bedrockSonnetOnly: { model: 'my-sonnet' },
      vertexSonnetOnly: { model: 'my-sonnet' },
      vertexOpus: { model: 'my-opus' },
      foundryOpus: { model: 'claude-sonnet-4-5' },
    });
  });

  it('what is sent: the id without [1m] plus the context-1m beta, provider-mapped', () => {
    const cases: Array<[string, 'firstParty' | 'bedrock' | 'vertex' | 'foundry', string]> = [
      ['claude-sonnet-5-5', 'firstParty', 'us'],
      ['claude-sonnet-4-5[1m]', 'firstParty', 'us'],
      ['my-opus[1m]', 'firstParty', 'us'],
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0[1m]', 'bedrock', 'us'],
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'bedrock', 'eu'],
      ['claude-sonnet-4-5-20250929', 'bedrock', 'eu'],
      ['claude-opus-4-6[1m]', 'bedrock', 'us'],
      ['claude-opus-4-1-20250805', 'vertex', 'us'],
      ['claude-sonnet-4-5@20250929[1m]', 'vertex', 'us'],
      ['claude-opus-4-6[1m]', 'foundry', 'us'],
      ['my-deployment', 'foundry', 'us'],
    ];
    expect(cases.map(([n, p, prefix]) => [n, p, wireModel(n, p, prefix)])).toEqual([
      ['claude-sonnet-5-5', 'firstParty', { id: 'claude-sonnet-5-5', betas: [] }],
      ['claude-sonnet-4-5[1m]', 'firstParty', { id: 'claude-sonnet-4-5', betas: ['context-1m-2025-08-07'] }],
      ['my-opus[1m]', 'firstParty', { id: 'my-opus', betas: ['context-1m-2025-08-07'] }],
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0[1m]', 'bedrock', { id: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', betas: ['context-1m-2025-08-07'] }],
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'bedrock', { id: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', betas: [] }],
      ['claude-sonnet-4-5-20250929', 'bedrock', { id: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0', betas: [] }],
      ['claude-opus-4-6[1m]', 'bedrock', { id: 'us.anthropic.claude-opus-4-6-v1', betas: ['context-1m-2025-08-07'] }],
      ['claude-opus-4-1-20250805', 'vertex', { id: 'claude-opus-4-1@20250805', betas: [] }],
      ['claude-sonnet-4-5@20250929[1m]', 'vertex', { id: 'claude-sonnet-4-5@20250929', betas: ['context-1m-2025-08-07'] }],
      ['claude-opus-4-6[1m]', 'foundry', { id: 'claude-opus-4-6', betas: ['context-1m-2025-08-07'] }],
      ['my-deployment', 'foundry', { id: 'my-deployment', betas: [] }],
    ]);
  });

  it('opusplan switches to its Opus in plan mode only', () => {
    const c = resolveModel('opusplan', env());
    expect(['default', 'plan', 'acceptEdits'].map((m) => modelForMode(c, m))).toEqual(['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-sonnet-5-5']);
  });
});
