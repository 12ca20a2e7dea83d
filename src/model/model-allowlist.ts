// availableModels / enforceAvailableModels / availableModelsMatch (and deniedModels: model-denylist.ts), as Claude
// Code 2.1.330 applies them (measured:
// test/measure/model-aliases.measure.ts; the settings schema's descriptions in the binary):
//  - availableModels is honoured from every settings layer (user, project, local, --settings, policy). The lists
//    of the non-policy layers add up; a policy list replaces them all.
//  - An entry allows: a family alias (`opus`) the whole family and whatever the alias resolves to; `best` the
//    Opus family, `opusplan` Opus and Sonnet, `default` the default model; a version prefix (`opus-4-6`, with or
//    without `claude-`) that version and every id extending it (`claude-opus-5` allows `claude-opus-5-5`); an id
//    itself. Matching is on the name as given and as resolved, never across a provider prefix
//    (`claude-opus-4-6` does not allow `us.anthropic.claude-opus-4-6-v1`). availableModelsMatch "exact" (read from
//    the policy only) stops an id from allowing later versions: only its dated, `@date` and `-fast` spellings.
//  - The default model is always allowed (an empty list allows only it). With enforceAvailableModels true and a
//    non-empty list, the default itself must be listed: otherwise it becomes the first entry that names a model
//    (an alias, or an id the catalog knows). A policy that sets enforceAvailableModels without its own list
//    enforces nothing; a policy list without the policy's enforce flag is not enforced by a lower layer's flag.
//  - A name that is not allowed: at start (--model, ANTHROPIC_MODEL, settings `model`) the default is used; from
//    set_model an error; an agent's or a command's model keeps the current model; a fallback model is not used.
// agentd fails closed where Claude Code drops a malformed value: an availableModels that is not a list of strings
// allows only the default (non-string entries are dropped), an enforceAvailableModels that is not a boolean
// enforces, an availableModelsMatch that is not "prefix" or "exact" is "exact"; each is said in a warning.
import { type AliasFamily, lookupModel } from './catalog.js';
import { allowedDefault, deniedBy, stepDown } from './model-denylist.js';
import { type ModelChoice, type ModelEnv, aliasFamily, aliasTarget, defaultModelChoice, resolveModel } from './names.js';

/** The model restrictions of the settings, merged (config/settings-resolve.ts builds it). */
export interface ModelPolicy {
  /** The allowed names; undefined when no layer restricts. */
  available: readonly string[] | undefined;
  enforce: boolean;
  exact: boolean;
  /** The policy's deniedModels (model-denylist.ts); `'*'` when it was malformed: only the default. */
  denied: readonly string[];
}

export const NO_MODEL_POLICY: ModelPolicy = { available: undefined, enforce: false, exact: false, denied: [] };

export interface ModelPolicyLayer {
  policy: boolean;
  file: string;
  raw: Record<string, unknown>;
}

export interface SettingsTypeWarning {
  file: string;
  key: string;
  message: string;
}

function listOf(l: ModelPolicyLayer, warn: (w: SettingsTypeWarning) => void): string[] | undefined {
  const v = l.raw['availableModels'];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) {
    warn({ file: l.file, key: 'availableModels', message: `availableModels must be an array of strings, not ${typeof v}; only the default model is allowed until it is fixed` });
    return [];
  }
  const strings = v.filter((e): e is string => typeof e === 'string');
  if (strings.length !== v.length) warn({ file: l.file, key: 'availableModels', message: 'availableModels must be an array of strings; its other entries allow nothing' });
  return strings;
}

function flagOf(l: ModelPolicyLayer, warn: (w: SettingsTypeWarning) => void): boolean | undefined {
  const v = l.raw['enforceAvailableModels'];
  if (v === undefined || v === null || typeof v === 'boolean') return v ?? undefined;
  warn({ file: l.file, key: 'enforceAvailableModels', message: `enforceAvailableModels must be a boolean, not ${typeof v}; enforced until it is fixed` });
  return true;
}

/** Merges the layers' model restrictions (layers in any order). */
export function modelPolicyFrom(layers: readonly ModelPolicyLayer[]): { policy: ModelPolicy; warnings: SettingsTypeWarning[] } {
  const warnings: SettingsTypeWarning[] = [];
  const warn = (w: SettingsTypeWarning): void => void warnings.push(w);
  let lower: string[] | undefined;
  let lowerEnforce = false;
  let policyList: string[] | undefined;
  let policyEnforce: boolean | undefined;
  let exact = false;
  const denied: string[] = [];
  for (const l of layers) {
    const d = l.raw['deniedModels'];
    if (d !== undefined && d !== null && !l.policy) {
      warn({ file: l.file, key: 'deniedModels', message: 'deniedModels is read from managed settings only (as Claude Code); ignored here' });
    } else if (d !== undefined && d !== null) {
      if (!Array.isArray(d)) warn({ file: l.file, key: 'deniedModels', message: `deniedModels must be an array of strings, not ${typeof d}; every model but the default is denied until it is fixed` });
      else if (d.some((e) => typeof e !== 'string')) warn({ file: l.file, key: 'deniedModels', message: 'deniedModels must be an array of strings; every model but the default is denied until it is fixed' });
      denied.push(...(Array.isArray(d) && d.every((e) => typeof e === 'string') ? d : ['*']));
    }
    const list = listOf(l, warn);
    const enforce = flagOf(l, warn);
    if (l.policy) {
      if (list !== undefined) policyList = [...(policyList ?? []), ...list];
      if (enforce !== undefined) policyEnforce = (policyEnforce ?? false) || enforce;
      const match = l.raw['availableModelsMatch'];
      if (match === 'exact') exact = true;
      else if (match !== undefined && match !== 'prefix') {
        warn({ file: l.file, key: 'availableModelsMatch', message: 'availableModelsMatch must be "prefix" or "exact"; "exact" until it is fixed' });
        exact = true;
      }
    } else {
      if (list !== undefined) lower = [...(lower ?? []), ...list];
      if (enforce === true) lowerEnforce = true;
    }
  }
  const dedupe = (xs: string[] | undefined): string[] | undefined => (xs === undefined ? undefined : [...new Set(xs)]);
  if (policyList !== undefined) return { policy: { available: dedupe(policyList), enforce: policyEnforce === true, exact, denied }, warnings };
  if (policyEnforce === true) {
    warnings.push({ file: layers.find((l) => l.policy)?.file ?? 'policy', key: 'enforceAvailableModels', message: 'enforceAvailableModels in the policy needs the policy\'s own availableModels; nothing is enforced (as Claude Code)' });
  }
  return { policy: { available: dedupe(lower), enforce: policyEnforce === undefined && lowerEnforce, exact, denied }, warnings };
}

const norm = (s: string): string => s.trim().toLowerCase().replace(/\[1m\]$/, '').replace(/^claude-/, '');

function idMatches(entry: string, candidate: string, exact: boolean): boolean {
  const e = norm(entry);
  const c = norm(candidate);
  if (e === '' || c === '') return false;
  if (c === e) return true;
  if (exact) return new RegExp(`^${e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:-\\d{8}|@\\d{8}|-fast)$`).test(c);
  return c.startsWith(`${e}-`) || c.startsWith(`${e}@`);
}

/**
 * The session's model names: resolution (names.ts) under the settings' restrictions, with the default they imply
 * (see the top of this file). One per process, built with the configuration.
 */
export class ModelNames {
  private readonly baseDefault: ModelChoice;
  readonly defaultChoice: ModelChoice;
  /** deniedModels leaves no model to default to: Claude Code does not start (config.ts refuses the start-up). */
  readonly noDefault: boolean;

  constructor(
    readonly env: ModelEnv,
    readonly policy: ModelPolicy,
  ) {
    this.baseDefault = defaultModelChoice(env);
    const chosen = this.enforcing() ? (this.firstListed() ?? this.baseDefault) : this.baseDefault;
    const allowed = this.policy.denied.length ? allowedDefault(chosen.model, env, (id) => this.denied(id, id)) : chosen.model;
    this.noDefault = allowed === undefined;
    this.defaultChoice = allowed === undefined || allowed === chosen.model ? chosen : { model: allowed };
  }

  /** Whether the policy's deniedModels blocks `name` (as given) or what it resolves to. */
  denied(name: string, resolved: string): boolean {
    const d = this.policy.denied;
    if (d.length === 0) return false;
    if (d.includes('*')) return name.trim().toLowerCase() !== 'default' && resolved !== this.baseDefault.model;
    return d.some((e) => deniedBy(e, name, this.env) || deniedBy(e, resolved, this.env));
  }

  get restricted(): boolean {
    return this.policy.available !== undefined;
  }

  private enforcing(): boolean {
    const a = this.policy.available;
    return this.policy.enforce && a !== undefined && a.length > 0 && !this.listed(this.baseDefault.model, this.baseDefault.model);
  }

  private firstListed(): ModelChoice | undefined {
    for (const entry of this.policy.available ?? []) {
      if (/^(default|opusplan|best)$/i.test(entry.trim()) && this.policy.exact) continue;
      const choice = resolveModel(entry, this.env);
      if (aliasFamily(entry) !== undefined || entry.trim().toLowerCase() === 'opusplan' || lookupModel(choice.model) !== undefined) return choice;
    }
    return undefined;
  }

  /** Whether one availableModels entry allows `candidate` (a name as given or resolved). */
  entryAllows(entry: string, candidate: string): boolean {
    const e = entry.trim().toLowerCase().replace(/\[1m\]$/, '');
    const families: AliasFamily[] = e === 'opusplan' ? ['opus', 'sonnet'] : aliasFamily(e) ? [aliasFamily(e) as AliasFamily] : [];
    if (families.length) {
      if (this.policy.exact && (e === 'opusplan' || e === 'best')) return false;
      const c = candidate.trim().toLowerCase().replace(/\[1m\]$/, '');
      return families.some((f) => c === f || c === aliasTarget(f, this.env).toLowerCase() || lookupModel(c)?.family === f);
    }
    if (e === 'default') return !this.policy.exact && norm(candidate) === norm(this.baseDefault.model);
    return idMatches(entry, candidate, this.policy.exact);
  }

  /** Whether an availableModels entry names `name` or what it resolves to (the default's pass aside). */
  listed(name: string, resolved: string): boolean {
    return (this.policy.available ?? []).some((entry) => this.entryAllows(entry, name) || this.entryAllows(entry, resolved));
  }

  /** What `name` resolves to; `default` (or nothing) is the default these settings imply. */
  resolve(name: string | undefined): ModelChoice {
    const n = (name ?? '').trim();
    if (n === '' || n.toLowerCase() === 'default') return this.defaultChoice;
    const choice = resolveModel(n, this.env);
    if (this.policy.denied.length === 0 || (aliasFamily(n) === undefined && n.toLowerCase() !== 'opusplan')) return choice;
    // An alias whose model deniedModels blocks steps down its line (claude-opus-5-5 → claude-opus-5), as Claude Code.
    const down = (m: string): string => (this.denied(m, m) ? (stepDown(m, this.env, (id) => this.denied(id, id)) ?? m) : m);
    return choice.planModel === undefined ? { model: down(choice.model) } : { model: down(choice.model), planModel: down(choice.planModel) };
  }

  /** set_model and /model: what `name` resolves to, or Claude Code's refusal (the `current` model stays). */
  choose(name: string, current: string): { ok: true; choice: ModelChoice } | { ok: false; message: string } {
    const choice = this.resolve(name);
    if (this.allows(name, choice)) return { ok: true, choice };
    return { ok: false, message: `Model "${name}" is restricted by your organization's settings. Using ${current} instead.` };
  }

  /**
   * An agent's, the Agent tool's or a command's `model`: its resolved model, or undefined to keep the caller's
   * (nothing, `inherit`, or a name availableModels leaves out: Claude Code keeps the current model then).
   */
  forTask(name: string | undefined, onRefused: (name: string) => void): string | undefined {
    const n = name?.trim();
    if (!n || n.toLowerCase() === 'inherit') return undefined;
    const choice = this.resolve(n);
    if (this.allows(n, choice)) return choice.model;
    onRefused(n);
    return undefined;
  }

  /** Whether `name` (as given) may be used; `choice` is what it resolves to. */
  allows(name: string, choice: ModelChoice = this.resolve(name)): boolean {
    const n = name.trim().toLowerCase();
    if (n !== 'default' && n !== '' && this.denied(name, choice.model)) return false;
    if (this.policy.available === undefined) return true;
    if (choice.model === this.defaultChoice.model) return true;
    return this.listed(name, choice.model);
  }
}
