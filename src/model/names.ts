// Model names, resolved once for every place one is given: --model, ANTHROPIC_MODEL, settings `model`,
// ANTHROPIC_DEFAULT_MODEL, set_model, --fallback-model, an agent's or the Agent tool's `model`, a command's `model`
// frontmatter. What Claude Code 2.1.330 does, measured by driving it (test/measure/model-aliases.measure.ts):
//  - `opus`, `sonnet`, `haiku`, `fable` (any case, spaces trimmed) name the catalog's model for the provider
//    (first party: claude-opus-5-5, claude-sonnet-5-5, claude-haiku-5-5, claude-fable-5-2; Bedrock and Vertex:
//    Sonnet 4.5 and Haiku 4.5 under their provider ids; Foundry: Opus 4.6, Sonnet 4.5, Haiku 4.5), or the id in
//    ANTHROPIC_DEFAULT_<FAMILY>_MODEL, taken as typed (never resolved again);
//  - `best` is `opus`; `opusplan` is `sonnet`, and `opus` while the permission mode is plan;
//  - `default` (and no name at all) is ANTHROPIC_DEFAULT_MODEL if set, else the provider's default: `opus` (first
//    party, Bedrock, Vertex; `sonnet` on Bedrock and Vertex when only ANTHROPIC_DEFAULT_SONNET_MODEL is set),
//    `sonnet` on Foundry; on the first-party API an Opus that takes the 1M beta gets `[1m]`;
//  - `<name>[1m]`: the name resolved, its `[1m]` kept (the request then carries the context-1m beta) unless the
//    model has a 1M window anyway, when the suffix is dropped;
//  - the retired first-party Opus 4 / 4.1 ids become `opus` (CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP keeps them);
//  - anything else is passed through as typed (an unknown id is the endpoint's to judge), `inherit` included.
// The resolved name is what Claude Code shows (system/init.model, modelUsage keys); wireModel() is what is sent.
import { ALIAS_TARGETS, type AliasFamily, type CatalogModel, type Provider, catalogById, lookupModel } from './catalog.js';
import { providerModelId, withBedrockPrefix } from './providers/model-ids.js';

/** What model names resolve against: the provider and the environment's overrides (config/env.ts reads them). */
export interface ModelEnv {
  provider: Provider;
  /** ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL. */
  overrides: Readonly<Partial<Record<AliasFamily, string>>>;
  /** ANTHROPIC_DEFAULT_{FAMILY}_MODEL_NAME / _DESCRIPTION: how the picker shows an overridden alias. */
  overrideLabels: Readonly<Partial<Record<AliasFamily, { name?: string | undefined; description?: string | undefined }>>>;
  /** ANTHROPIC_DEFAULT_MODEL: what `default` means. */
  defaultModel: string | undefined;
  /** The Bedrock cross-region prefix (model-ids.ts bedrockRegionPrefix). */
  bedrockPrefix: string;
  /** False with CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP. */
  legacyRemap: boolean;
}

export const FIRST_PARTY_ENV: ModelEnv = { provider: 'firstParty', overrides: {}, overrideLabels: {}, defaultModel: undefined, bedrockPrefix: 'us', legacyRemap: true };

/** A resolved model: `model` is used, except in plan mode when `planModel` is set (`opusplan`). */
export interface ModelChoice {
  model: string;
  planModel?: string;
}

/** The catalog model `default` is on the first-party API with no override. */
export const DEFAULT_MODEL_ID = ALIAS_TARGETS.opus.default;

const ALIASES: ReadonlySet<string> = new Set(['opus', 'sonnet', 'haiku', 'fable']);
const LEGACY_OPUS: ReadonlySet<string> = new Set(['claude-opus-4-20250514', 'claude-opus-4-1-20250805', 'claude-opus-4-0', 'claude-opus-4-1']);
const ONE_M = /\[1m\]$/i;

/** Whether `name` is one of the names whose model depends on the release or the environment. */
export function isAlias(name: string): boolean {
  const n = name.trim().toLowerCase().replace(ONE_M, '');
  return ALIASES.has(n) || n === 'best' || n === 'opusplan' || n === 'default';
}

/** The family an alias names (`best` → opus); undefined for anything else. */
export function aliasFamily(name: string): AliasFamily | undefined {
  const n = name.trim().toLowerCase().replace(ONE_M, '');
  if (n === 'best') return 'opus';
  return ALIASES.has(n) ? (n as AliasFamily) : undefined;
}

/** The catalog model an alias stands for on this provider (undefined when the environment overrides it). */
export function aliasCatalogModel(family: AliasFamily, env: ModelEnv): CatalogModel | undefined {
  if (env.overrides[family] !== undefined) return undefined;
  const t = ALIAS_TARGETS[family];
  return catalogById((env.provider === 'firstParty' ? undefined : t[env.provider]) ?? t.default);
}

/** The id an alias resolves to: the override as typed, else the catalog model's id for the provider. */
export function aliasTarget(family: AliasFamily, env: ModelEnv): string {
  const override = env.overrides[family];
  if (override !== undefined) return override;
  const m = aliasCatalogModel(family, env) as CatalogModel;
  if (env.provider === 'firstParty') return m.firstParty;
  const id = m[env.provider] ?? m.firstParty;
  return env.provider === 'bedrock' ? withBedrockPrefix(id, env.bedrockPrefix) : id;
}

/** `[1m]` kept unless the model has a 1M window natively. */
function withOneM(name: string): string {
  return lookupModel(name)?.native1m ? name : `${name}[1m]`;
}

function defaultFamily(env: ModelEnv): AliasFamily {
  if (env.provider === 'foundry') return 'sonnet';
  if ((env.provider === 'bedrock' || env.provider === 'vertex') && env.overrides.sonnet !== undefined && env.overrides.opus === undefined) return 'sonnet';
  return 'opus';
}

/** What `default` resolves to (before any availableModels enforcement: model-allowlist.ts). */
export function defaultModelChoice(env: ModelEnv): ModelChoice {
  const d = env.defaultModel?.trim();
  if (d && !/^(default|inherit)$/i.test(d)) return resolveModel(d, env);
  const family = defaultFamily(env);
  const id = aliasTarget(family, env);
  if (env.provider !== 'firstParty' || family !== 'opus') return { model: id };
  const m = lookupModel(id);
  return { model: m === undefined || (m.beta1m && !m.native1m) ? `${id}[1m]` : id };
}

/** Resolves a model name as Claude Code 2.1.330 does (see the top of this file). */
export function resolveModel(input: string, env: ModelEnv): ModelChoice {
  const trimmed = input.trim();
  const oneM = ONE_M.test(trimmed);
  const base = trimmed.replace(ONE_M, '');
  const lower = base.toLowerCase();
  const suffix = (name: string): string => (oneM ? withOneM(name) : name);
  if (lower === 'default' || lower === '') return defaultModelChoice(env);
  if (lower === 'opusplan') return { model: suffix(aliasTarget('sonnet', env)), planModel: suffix(aliasTarget('opus', env)) };
  const family = aliasFamily(lower);
  if (family !== undefined) return { model: suffix(aliasTarget(family, env)) };
  if (env.provider === 'firstParty' && env.legacyRemap && LEGACY_OPUS.has(lower)) return { model: suffix(aliasTarget('opus', env)) };
  return { model: suffix(base) };
}

/** The model a request goes to under `mode` (`opusplan` switches to its Opus in plan mode). */
export function modelForMode(choice: ModelChoice, mode: string): string {
  return mode === 'plan' && choice.planModel !== undefined ? choice.planModel : choice.model;
}

/** The context-1m beta Claude Code sends for a `[1m]` model. */
export const CONTEXT_1M_BETA = 'context-1m-2025-08-07';

/** What goes on the wire for a resolved name: the id (provider-mapped, without `[1m]`) and the betas it needs. */
export function wireModel(name: string, provider: Provider, bedrockPrefix: string): { id: string; betas: string[] } {
  const oneM = ONE_M.test(name);
  const base = name.replace(ONE_M, '');
  const id = provider === 'firstParty' ? base : providerModelId(base, provider, bedrockPrefix);
  return { id, betas: oneM ? [CONTEXT_1M_BETA] : [] };
}

/** A resolved name without Claude Code's `[1m]` marker. */
export function baseModelId(name: string): string {
  return name.replace(ONE_M, '');
}

/** Whether a resolved name asks for the 1M context window. */
export function wantsOneM(name: string): boolean {
  return ONE_M.test(name);
}
