// deniedModels, as Claude Code 2.1.330 applies it (its settings schema's description; measured:
// test/measure/model-aliases.measure.ts, "dm"): read from the policy only (managed files, the SDK's managedSettings).
// A family alias (`opus`) blocks the family; an id blocks that model in every spelling (dates, `-fast`, provider
// prefixes ignored), and an id with no minor version (`claude-opus-5`) also the later minor versions
// (`claude-opus-5-5`); `best`, `opusplan` and `default` entries block nothing. An alias whose model is blocked steps
// down its line (claude-opus-5-5 → claude-opus-5 → claude-opus-4-8 …); the default steps down, then to the next
// family (Opus → Sonnet → Haiku); with nothing left Claude Code does not start.
import { type AliasFamily, type CatalogModel, STEP_DOWN, catalogById, lookupModel } from './catalog.js';
import { type ModelEnv, aliasFamily, aliasTarget } from './names.js';
import { withBedrockPrefix } from './providers/model-ids.js';

const NO_MINOR = /^claude-[a-z]+-\d+$/;

/** A spelling reduced to the model: provider prefix, dates, `-v1:0`, `-fast` and `[1m]` dropped. */
function bare(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/\[1m\]$/, '')
    .replace(/^(?:[a-z-]+\.)?anthropic\./, '')
    .replace(/@\d{8}$/, '')
    .replace(/-v\d+(?::\d+)?$/, '')
    .replace(/-\d{8}$/, '')
    .replace(/-fast$/, '');
}

/** Whether one deniedModels entry blocks `candidate` (a name as given or as resolved). */
export function deniedBy(entry: string, candidate: string, env: ModelEnv): boolean {
  const e = entry.trim().toLowerCase().replace(/\[1m\]$/, '');
  if (e === '' || e === 'best' || e === 'opusplan' || e === 'default') return false;
  const c = candidate.trim().toLowerCase().replace(/\[1m\]$/, '');
  const family = aliasFamily(e);
  if (family !== undefined) return c === family || c === aliasTarget(family, env).toLowerCase() || lookupModel(c)?.family === family;
  const cm = lookupModel(c);
  const em = lookupModel(e);
  if (em && cm && cm.id === em.id) return true;
  const b = bare(e);
  const cb = cm ? cm.id : bare(c);
  return cb === b || bare(c) === b || (NO_MINOR.test(b) && cb.startsWith(`${b}-`));
}

/** The provider's id for a catalog model (first party: its catalog id, as Claude Code shows a stepped-down alias). */
function providerId(m: CatalogModel, env: ModelEnv): string | undefined {
  if (env.provider === 'firstParty') return m.id;
  const id = m[env.provider];
  return id && env.provider === 'bedrock' ? withBedrockPrefix(id, env.bedrockPrefix) : (id ?? undefined);
}

/** The first model down `model`'s line (same family) that `denied` does not block. */
export function stepDown(model: string, env: ModelEnv, denied: (id: string) => boolean): string | undefined {
  let m = lookupModel(model);
  const family = m?.family;
  while (m) {
    const next = STEP_DOWN[m.id];
    m = next === undefined ? undefined : catalogById(next);
    if (!m || m.family !== family) return undefined;
    const id = providerId(m, env);
    if (id !== undefined && !denied(id)) return id;
  }
  return undefined;
}

/** The default when deniedModels blocks it: down its line, then the next families' aliases (and their lines). */
export function allowedDefault(model: string, env: ModelEnv, denied: (id: string) => boolean): string | undefined {
  if (!denied(model)) return model;
  const down = stepDown(model, env, denied);
  if (down !== undefined) return down;
  const families: AliasFamily[] = ['opus', 'sonnet', 'haiku'];
  const from = families.indexOf(lookupModel(model)?.family as AliasFamily);
  for (const f of families.slice(from + 1)) {
    const t = aliasTarget(f, env);
    const ok = denied(t) ? stepDown(t, env, denied) : t;
    if (ok !== undefined) return ok;
  }
  return undefined;
}
