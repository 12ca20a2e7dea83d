// availableModels / enforceAvailableModels / availableModelsMatch as Claude Code 2.1.330 applies them (measured:
// test/measure/model-aliases.measure.ts, round 4 and 5), and agentd's fail-closed reading of malformed values.
import { describe, expect, it } from 'vitest';
import { ModelNames, type ModelPolicy, type ModelPolicyLayer, modelPolicyFrom } from '../../../src/model/model-allowlist.js';
import { modelRows } from '../../../src/model/model-rows.js';
import { FIRST_PARTY_ENV, type ModelEnv } from '../../../src/model/names.js';

const policy = (available: string[] | undefined, over: Partial<ModelPolicy> = {}): ModelPolicy => ({ available, enforce: false, exact: false, denied: [], ...over });
const names = (p: ModelPolicy, env: ModelEnv = FIRST_PARTY_ENV): ModelNames => new ModelNames(env, p);
const verdicts = (n: ModelNames, models: string[]): Record<string, boolean> => Object.fromEntries(models.map((m) => [m, n.allows(m)]));
const rows = (n: ModelNames, current = n.defaultChoice.model): string[] => modelRows(n, current).map((r) => `${r.value} → ${r.resolvedModel}`);
const layer = (file: string, raw: Record<string, unknown>, isPolicy = false): ModelPolicyLayer => ({ file, raw, policy: isPolicy });

describe('availableModels', () => {
  it('family aliases, version prefixes and ids; the default model always; never across a provider prefix', () => {
    expect({
      aliases: verdicts(names(policy(['sonnet', 'haiku'])), ['sonnet', 'haiku', 'claude-haiku-5-5', 'claude-sonnet-4-5', 'opus', 'claude-opus-5-5', 'fable', 'default', 'claude-opus-4-6']),
      ids: verdicts(names(policy(['claude-sonnet-5-5', 'claude-opus-4-6'])), ['sonnet', 'opus', 'claude-opus-4-6[1m]', 'claude-sonnet-4-5', 'haiku']),
      prefixes: verdicts(names(policy(['opus-4-6', 'claude-sonnet-5'])), ['claude-opus-4-6', 'claude-opus-4-6-20260101', 'claude-sonnet-5-5', 'claude-sonnet-5', 'sonnet', 'claude-opus-4-60', 'haiku']),
      empty: verdicts(names(policy([])), ['opus', 'default', 'sonnet']),
      unknown: verdicts(names(policy(['my-model', 'sonnet'])), ['my-model', 'other-model']),
      opusplanBest: verdicts(names(policy(['opusplan', 'best'])), ['opusplan', 'best', 'sonnet', 'opus', 'haiku']),
      bedrock: verdicts(names(policy(['sonnet', 'claude-opus-4-6']), { ...FIRST_PARTY_ENV, provider: 'bedrock' }), ['sonnet', 'claude-opus-4-6', 'us.anthropic.claude-opus-4-6-v1', 'claude-sonnet-4-6']),
      override: verdicts(names(policy(['opus']), { ...FIRST_PARTY_ENV, overrides: { opus: 'my-opus' } }), ['opus', 'my-opus', 'sonnet']),
    }).toEqual({
      aliases: { sonnet: true, haiku: true, 'claude-haiku-5-5': true, 'claude-sonnet-4-5': true, opus: true, 'claude-opus-5-5': true, fable: false, default: true, 'claude-opus-4-6': false },
      ids: { sonnet: true, opus: true, 'claude-opus-4-6[1m]': true, 'claude-sonnet-4-5': false, haiku: false },
      prefixes: { 'claude-opus-4-6': true, 'claude-opus-4-6-20260101': true, 'claude-sonnet-5-5': true, 'claude-sonnet-5': true, sonnet: true, 'claude-opus-4-60': false, haiku: false },
      empty: { opus: true, default: true, sonnet: false },
      unknown: { 'my-model': true, 'other-model': false },
      opusplanBest: { opusplan: true, best: true, sonnet: true, opus: true, haiku: false },
      bedrock: { sonnet: true, 'claude-opus-4-6': true, 'us.anthropic.claude-opus-4-6-v1': false, 'claude-sonnet-4-6': true },
      override: { opus: true, 'my-opus': true, sonnet: false },
    });
  });

  it('enforceAvailableModels: the default becomes the first entry naming a model; the old default is refused', () => {
    const sonnetFirst = names(policy(['sonnet', 'haiku'], { enforce: true }));
    const haikuFirst = names(policy(['haiku', 'sonnet'], { enforce: true }));
    const unknownFirst = names(policy(['my-model', 'sonnet'], { enforce: true }));
    const listedDefault = names(policy(['opus', 'sonnet'], { enforce: true }));
    expect({
      defaults: [sonnetFirst, haikuFirst, unknownFirst, listedDefault].map((n) => n.defaultChoice.model),
      refused: sonnetFirst.choose('opus', 'claude-sonnet-5-5'),
      resolvedDefault: sonnetFirst.resolve('default'),
    }).toEqual({
      defaults: ['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-sonnet-5-5', 'claude-opus-5-5'],
      refused: { ok: false, message: 'Model "opus" is restricted by your organization\'s settings. Using claude-sonnet-5-5 instead.' },
      resolvedDefault: { model: 'claude-sonnet-5-5' },
    });
  });

  it('availableModelsMatch "exact": an id allows only its own spellings', () => {
    expect(verdicts(names(policy(['claude-sonnet-5'], { exact: true })), ['claude-sonnet-5', 'claude-sonnet-5-20260101', 'claude-sonnet-5-fast', 'claude-sonnet-5-5'])).toEqual({
      'claude-sonnet-5': true,
      'claude-sonnet-5-20260101': true,
      'claude-sonnet-5-fast': true,
      'claude-sonnet-5-5': false,
    });
  });

  it('initialize offers default, the allowed aliases and the catalog models listed by id', () => {
    expect({
      none: rows(names(policy(undefined))),
      aliases: rows(names(policy(['sonnet', 'haiku']))),
      enforced: rows(names(policy(['sonnet'], { enforce: true }))),
      ids: rows(names(policy(['claude-sonnet-5-5', 'claude-opus-4-6']))),
      empty: rows(names(policy([]))),
      launch: rows(names(policy(undefined)), 'my-custom-model'),
    }).toEqual({
      none: ['default → claude-opus-5-5', 'opus → claude-opus-5-5', 'fable → claude-fable-5-2', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5'],
      aliases: ['default → claude-opus-5-5', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5'],
      enforced: ['default → claude-sonnet-5-5', 'sonnet → claude-sonnet-5-5'],
      ids: ['default → claude-opus-5-5', 'sonnet → claude-sonnet-5-5', 'claude-opus-4-6 → claude-opus-4-6', 'claude-opus-4-6[1m] → claude-opus-4-6[1m]'],
      empty: ['default → claude-opus-5-5'],
      launch: ['default → claude-opus-5-5', 'opus → claude-opus-5-5', 'fable → claude-fable-5-2', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5', 'my-custom-model → my-custom-model'],
    });
  });

  it('the rows are Claude Code\'s: names, one line and the price', () => {
    expect(modelRows(names(policy(['opus', 'haiku'])), 'claude-opus-5-5')).toEqual([
      { value: 'default', resolvedModel: 'claude-opus-5-5', displayName: 'Default (recommended)', description: 'Use the default model (currently Opus 5.5) · $4/$20 per Mtok' },
      { value: 'opus', resolvedModel: 'claude-opus-5-5', displayName: 'Opus', description: 'Opus 5.5 · Best for everyday, complex tasks · $4/$20 per Mtok' },
      { value: 'haiku', resolvedModel: 'claude-haiku-5-5', displayName: 'Haiku', description: 'Haiku 5.5 · Fastest for quick answers · $0.10/$0.50 per Mtok ($0.50/$2.50 for prompts over 100k)' },
    ]);
    const custom = new ModelNames({ ...FIRST_PARTY_ENV, overrides: { opus: 'my-opus' }, overrideLabels: { opus: { name: 'My Opus', description: 'Our opus' } } }, policy(['opus']));
    expect(modelRows(custom, 'my-opus[1m]')).toEqual([
      { value: 'default', resolvedModel: 'my-opus[1m]', displayName: 'Default (recommended)', description: 'Use the default model (currently my-opus[1m])' },
      { value: 'opus', resolvedModel: 'my-opus', displayName: 'My Opus', description: 'Our opus' },
    ]);
  });
});

describe('deniedModels (the policy\'s only; Claude Code 2.1.330, measured)', () => {
  const denying = (denied: string[], env: ModelEnv = FIRST_PARTY_ENV): ModelNames => new ModelNames(env, policy(undefined, { denied }));
  it('a family: the default steps to Sonnet, the family is refused; an id: the alias steps down its line; an id with no minor version blocks the later ones', () => {
    const family = denying(['opus']);
    const id = denying(['claude-opus-5-5']);
    const noMinor = denying(['claude-opus-5']);
    expect({
      defaults: [family, id, noMinor].map((n) => n.defaultChoice.model),
      family: verdicts(family, ['opus', 'sonnet', 'claude-opus-4-6', 'us.anthropic.claude-opus-4-6-v1', 'haiku']),
      id: { resolved: id.resolve('opus'), ...verdicts(id, ['opus', 'claude-opus-5', 'claude-opus-5-5', 'claude-opus-5-5-fast', 'us.anthropic.claude-opus-5-5']) },
      noMinor: { resolved: noMinor.resolve('opus'), ...verdicts(noMinor, ['claude-opus-4-8', 'claude-opus-5-5', 'claude-opus-5']) },
      rows: [family, id, noMinor].map((n) => rows(n)),
      ignoredEntries: denying(['best', 'opusplan', 'default']).defaultChoice,
      bedrock: denying(['claude-opus-5-5'], { ...FIRST_PARTY_ENV, provider: 'bedrock' }).resolve('opus'),
    }).toEqual({
      defaults: ['claude-sonnet-5-5', 'claude-opus-5', 'claude-opus-4-8'],
      family: { opus: false, sonnet: true, 'claude-opus-4-6': false, 'us.anthropic.claude-opus-4-6-v1': false, haiku: true },
      id: { resolved: { model: 'claude-opus-5' }, opus: true, 'claude-opus-5': true, 'claude-opus-5-5': false, 'claude-opus-5-5-fast': false, 'us.anthropic.claude-opus-5-5': false },
      noMinor: { resolved: { model: 'claude-opus-4-8' }, 'claude-opus-4-8': true, 'claude-opus-5-5': false, 'claude-opus-5': false },
      rows: [
        ['default → claude-sonnet-5-5', 'fable → claude-fable-5-2', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5'],
        ['default → claude-opus-5', 'claude-opus-5 → claude-opus-5', 'fable → claude-fable-5-2', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5'],
        ['default → claude-opus-4-8', 'claude-opus-4-8 → claude-opus-4-8', 'fable → claude-fable-5-2', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5'],
      ],
      ignoredEntries: { model: 'claude-opus-5-5' },
      bedrock: { model: 'us.anthropic.claude-opus-5' },
    });
    expect({ blocked: denying(['opus', 'sonnet', 'haiku']).noDefault, open: family.noDefault }).toEqual({ blocked: true, open: false });
  });

  it('read from the policy only; a malformed list denies every model but the default', () => {
    expect({
      user: modelPolicyFrom([layer('/u/settings.json', { deniedModels: ['opus'] })]),
      bad: modelPolicyFrom([layer('managed', { deniedModels: 'opus' }, true)]),
      badVerdicts: verdicts(new ModelNames(FIRST_PARTY_ENV, policy(undefined, { denied: ['*'] })), ['default', 'opus', 'sonnet']),
    }).toEqual({
      user: { policy: { available: undefined, enforce: false, exact: false, denied: [] }, warnings: [{ file: '/u/settings.json', key: 'deniedModels', message: 'deniedModels is read from managed settings only (as Claude Code); ignored here' }] },
      bad: { policy: { available: undefined, enforce: false, exact: false, denied: ['*'] }, warnings: [{ file: 'managed', key: 'deniedModels', message: 'deniedModels must be an array of strings, not string; every model but the default is denied until it is fixed' }] },
      badVerdicts: { default: true, opus: true, sonnet: false },
    });
  });
});

describe('the layers', () => {
  it('lower layers add up; a policy list replaces them; enforce from any lower layer unless the policy has a list', () => {
    const user = layer('/u/settings.json', { availableModels: ['sonnet'] });
    const project = layer('/p/.claude/settings.json', { availableModels: ['haiku'], enforceAvailableModels: true });
    const managed = layer('managed', { availableModels: ['opus'] }, true);
    expect({
      lower: modelPolicyFrom([user, project]).policy,
      withPolicy: modelPolicyFrom([user, project, managed]).policy,
      policyEnforceOnly: modelPolicyFrom([user, layer('managed', { enforceAvailableModels: true }, true)]),
      exactOnlyFromPolicy: modelPolicyFrom([layer('/u', { availableModels: ['sonnet'], availableModelsMatch: 'exact' })]).policy,
    }).toEqual({
      lower: { available: ['sonnet', 'haiku'], enforce: true, exact: false, denied: [] },
      withPolicy: { available: ['opus'], enforce: false, exact: false, denied: [] },
      policyEnforceOnly: {
        policy: { available: ['sonnet'], enforce: false, exact: false, denied: [] },
        warnings: [{ file: 'managed', key: 'enforceAvailableModels', message: "enforceAvailableModels in the policy needs the policy's own availableModels; nothing is enforced (as Claude Code)" }],
      },
      exactOnlyFromPolicy: { available: ['sonnet'], enforce: false, exact: false, denied: [] },
    });
  });

  it('a value of the wrong type fails closed, with a warning naming the file, the key and the type expected', () => {
    expect({
      string: modelPolicyFrom([layer('/u/settings.json', { availableModels: 'sonnet' })]),
      mixed: modelPolicyFrom([layer('/u/settings.json', { availableModels: ['sonnet', 3] })]),
      enforce: modelPolicyFrom([layer('/p/settings.json', { availableModels: ['sonnet'], enforceAvailableModels: 'yes' })]),
      match: modelPolicyFrom([layer('managed', { availableModels: ['claude-sonnet-5'], availableModelsMatch: 'loose' }, true)]),
    }).toEqual({
      string: { policy: { available: [], enforce: false, exact: false, denied: [] }, warnings: [{ file: '/u/settings.json', key: 'availableModels', message: 'availableModels must be an array of strings, not string; only the default model is allowed until it is fixed' }] },
      mixed: { policy: { available: ['sonnet'], enforce: false, exact: false, denied: [] }, warnings: [{ file: '/u/settings.json', key: 'availableModels', message: 'availableModels must be an array of strings; its other entries allow nothing' }] },
      enforce: { policy: { available: ['sonnet'], enforce: true, exact: false, denied: [] }, warnings: [{ file: '/p/settings.json', key: 'enforceAvailableModels', message: 'enforceAvailableModels must be a boolean, not string; enforced until it is fixed' }] },
      match: { policy: { available: ['claude-sonnet-5'], enforce: false, exact: true, denied: [] }, warnings: [{ file: 'managed', key: 'availableModelsMatch', message: 'availableModelsMatch must be "prefix" or "exact"; "exact" until it is fixed' }] },
    });
  });
});
