// The settings keys that shape model requests: effortLevel, maxEffortLevel, modelSettings.<model>.{effortLevel,
// maxEffortLevel}, alwaysThinkingEnabled and showThinkingSummaries, as Claude Code 2.1.330 reads them (measured:
// test/measure/request-defaults.measure.ts). Every layer may set them, a repository's files included (Claude Code
// honours a project's effortLevel and alwaysThinkingEnabled; they change cost, never access). A value of the
// wrong kind is a warning naming the file, and ignored, never a reason to skip the file or stop the session.
import { type EffortLayer, type EffortLevel, parseEffortLevel } from '../model/request-defaults.js';
import { modelSettingsKey } from '../model/model-traits.js';
import type { SettingsLayer } from './settings-files.js';

export interface RequestSettingsFromFiles {
  /** Highest precedence first (policy, --settings, local, project, user). */
  effortLayers: readonly EffortLayer[];
  /** false: thinking off unless a flag turns it on. */
  alwaysThinkingEnabled: boolean | undefined;
  /** true: thinking is asked for without a display mode (the API's summaries). */
  showThinkingSummaries: boolean | undefined;
}

const MODEL_KEYS = new Set(['effortLevel', 'maxEffortLevel']);

/** `layers` in ascending precedence (as settings-resolve.ts sorts them). */
export function requestSettingsFrom(layers: readonly SettingsLayer[], warn: (what: string, file: string) => void, unsupported: (key: string, file: string) => void): RequestSettingsFromFiles {
  const effortLayers: EffortLayer[] = [];
  let alwaysThinkingEnabled: boolean | undefined;
  let showThinkingSummaries: boolean | undefined;
  for (const l of layers) {
    const raw = l.raw;
    // 'max' is a session-only level: the SDK's flag settings take it, a settings file does not.
    const level = (key: string, v: unknown, max: boolean): EffortLevel | undefined => {
      if (v === undefined || v === null) return undefined;
      const e = typeof v === 'string' ? parseEffortLevel(v, { ultracode: false }) : undefined;
      if (e === undefined || (e === 'max' && !max)) {
        warn(`${key} ${JSON.stringify(v)} (one of low, medium, high, xhigh${max ? ', max' : ''})`, l.file);
        return undefined;
      }
      return e;
    };
    const models: Record<string, { effortLevel?: EffortLevel; maxEffortLevel?: EffortLevel }> = {};
    const ms = raw['modelSettings'];
    if (ms !== undefined && (typeof ms !== 'object' || ms === null || Array.isArray(ms))) warn('modelSettings (an object keyed by model)', l.file);
    else if (ms) {
      for (const [name, entry] of Object.entries(ms as Record<string, unknown>)) {
        if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
          warn(`modelSettings.${name} (an object)`, l.file);
          continue;
        }
        const e = entry as Record<string, unknown>;
        for (const k of Object.keys(e)) if (!MODEL_KEYS.has(k)) unsupported(`modelSettings.${name}.${k}`, l.file);
        const effortLevel = level(`modelSettings.${name}.effortLevel`, e['effortLevel'], l.source === 'flagSettings');
        const maxEffortLevel = level(`modelSettings.${name}.maxEffortLevel`, e['maxEffortLevel'], true);
        models[modelSettingsKey(name)] = { ...(effortLevel ? { effortLevel } : {}), ...(maxEffortLevel ? { maxEffortLevel } : {}) };
      }
    }
    effortLayers.unshift({
      user: l.source === 'userSettings',
      effortLevel: level('effortLevel', raw['effortLevel'], l.source === 'flagSettings'),
      maxEffortLevel: level('maxEffortLevel', raw['maxEffortLevel'], true),
      models,
    });
    const flag = (key: string): boolean | undefined => {
      const v = raw[key];
      if (v === undefined || v === null) return undefined;
      if (typeof v === 'boolean') return v;
      warn(`${key} ${JSON.stringify(v)} (true or false)`, l.file);
      return undefined;
    };
    alwaysThinkingEnabled = flag('alwaysThinkingEnabled') ?? alwaysThinkingEnabled;
    showThinkingSummaries = flag('showThinkingSummaries') ?? showThinkingSummaries;
  }
  return { effortLayers, alwaysThinkingEnabled, showThinkingSummaries };
}
