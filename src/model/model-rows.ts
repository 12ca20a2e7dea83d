// The models initialize offers (supportedModels(); claude-agent-acp's model picker), as Claude Code 2.1.330 lists
// them on the first-party API (measured): `default` first, then the aliases opus, fable, sonnet, haiku with the
// model each resolves to, its name, one line and its price. An alias the environment overrides shows the override
// (ANTHROPIC_DEFAULT_<FAMILY>_MODEL_NAME / _DESCRIPTION, else the id and "Custom <Family> model"). With
// availableModels only the allowed rows are offered, plus a row for each catalog model an entry names by id (and
// its `[1m]` variant where the model takes the 1M beta). On a cloud provider Claude Code lists provider ids; agentd
// lists the same aliases there (resolved to the provider's ids), which set_model accepts as well.
import { ALIAS_FAMILIES, ALIAS_SLOGANS, CATALOG, type CatalogModel, PRICE_TIERS, type PriceTier, lookupModel } from './catalog.js';
import type { ModelNames } from './model-allowlist.js';
import { aliasCatalogModel, aliasTarget, isAlias } from './names.js';

export interface ModelRow {
  value: string;
  resolvedModel: string;
  displayName: string;
  description: string;
}

const money = (n: number): string => (Number.isInteger(n) ? `$${n}` : `$${n.toFixed(2)}`);

function priceLine(t: PriceTier): string {
  const base = `${money(t.input)}/${money(t.output)} per Mtok`;
  return t.longPrompt ? `${base} (${money(t.longPrompt.input)}/${money(t.longPrompt.output)} for prompts over ${t.longPrompt.above / 1000}k)` : base;
}

const capitalised = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function defaultRow(names: ModelNames): ModelRow {
  const firstParty = names.env.provider === 'firstParty';
  const model = names.defaultChoice.model;
  const m = lookupModel(model);
  const known = m !== undefined && !/\[1m\]$/i.test(model);
  const current = known ? m.name : model;
  const tail = names.env.defaultModel !== undefined ? ' · Set by ANTHROPIC_DEFAULT_MODEL' : firstParty && known ? ` · ${priceLine(PRICE_TIERS[m.price])}` : '';
  return { value: 'default', resolvedModel: model, displayName: firstParty ? 'Default (recommended)' : 'Default', description: `Use the default model (currently ${current})${tail}` };
}

function idRows(m: CatalogModel, names: ModelNames): ModelRow[] {
  const id = names.env.provider === 'firstParty' ? m.id : m[names.env.provider];
  if (!id) return [];
  const rows = [{ value: id, resolvedModel: id, displayName: m.name, description: m.name }];
  if (m.beta1m && !m.native1m) rows.push({ value: `${id}[1m]`, resolvedModel: `${id}[1m]`, displayName: `${m.name} (1M context)`, description: `${m.name} for long sessions` });
  return rows;
}

/** The `models` of the initialize reply. `current`: the session's model, added when no row resolves to it. */
export function modelRows(names: ModelNames, current: string): ModelRow[] {
  const firstParty = names.env.provider === 'firstParty';
  const rows: ModelRow[] = [defaultRow(names)];
  const shown = new Set<string>();
  for (const family of ALIAS_FAMILIES) {
    const target = names.resolve(family).model;
    // Only what the list names is offered (the default model, always allowed, has its own row); nothing denied.
    if ((names.restricted && !names.listed(family, target)) || !names.allows(family, { model: target })) continue;
    if (target !== aliasTarget(family, names.env)) {
      // deniedModels stepped the alias down its line: Claude Code offers that model by id.
      const stepped = lookupModel(target);
      if (stepped) shown.add(stepped.id);
      rows.push({ value: target, resolvedModel: target, displayName: stepped?.name ?? target, description: stepped ? [stepped.name, ALIAS_SLOGANS[family]].join(' · ') : target });
      continue;
    }
    const m = aliasCatalogModel(family, names.env);
    const label = names.env.overrideLabels[family];
    if (m) shown.add(m.id);
    rows.push(
      m
        ? { value: family, resolvedModel: target, displayName: capitalised(family), description: [m.name, ALIAS_SLOGANS[family], ...(firstParty ? [priceLine(PRICE_TIERS[m.price])] : [])].join(' · ') }
        : { value: family, resolvedModel: target, displayName: label?.name ?? target, description: label?.description ?? `Custom ${capitalised(family)} model` },
    );
  }
  // Ids an availableModels entry names (not through an alias): their catalog models, offered by id.
  for (const entry of names.policy.available ?? []) {
    if (isAlias(entry)) continue;
    for (const m of CATALOG) {
      if (shown.has(m.id) || !names.entryAllows(entry, m.id)) continue;
      shown.add(m.id);
      rows.push(...idRows(m, names));
    }
  }
  if (!rows.some((r) => r.resolvedModel === current)) rows.push({ value: current, resolvedModel: current, displayName: current, description: 'Launch model' });
  return rows;
}
