// When a thread is compacted automatically. Numbers are documented in the README ("Compaction"); the environment
// variables are Claude Code's names, read by the composition root and passed in (the core reads no environment).

export interface CompactionSettings {
  /** DISABLE_COMPACT: no compaction at all (manual /compact refused, overflow is a context_overflow error). */
  disabled: boolean;
  /** DISABLE_AUTO_COMPACT: /compact and overflow recovery only. */
  autoDisabled: boolean;
  /** CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: compact at this percentage (1–100) of the effective window instead. */
  percentOverride: number | undefined;
  /** CLAUDE_CODE_AUTO_COMPACT_WINDOW: treat the window as at most this many tokens. */
  windowOverride: number | undefined;
}

export const DEFAULT_COMPACTION: CompactionSettings = { disabled: false, autoDisabled: false, percentOverride: undefined, windowOverride: undefined };

/** Room kept free for the summary the compaction itself asks for (its max_tokens). */
export const SUMMARY_RESERVE_TOKENS = 20_000;
/** Headroom below the effective window so one more large tool result does not overflow before we act. */
export const AUTO_COMPACT_BUFFER_TOKENS = 13_000;

export function parseCompactionEnv(env: Readonly<Record<string, string | undefined>>): CompactionSettings {
  const truthy = (v: string | undefined): boolean => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
  const int = (v: string | undefined, min: number, max: number): number | undefined => {
    if (v === undefined || v.trim() === '') return undefined;
    const n = Number(v);
    return Number.isFinite(n) && n >= min && n <= max ? Math.floor(n) : undefined;
  };
  return {
    disabled: truthy(env['DISABLE_COMPACT']),
    autoDisabled: truthy(env['DISABLE_AUTO_COMPACT']),
    percentOverride: int(env['CLAUDE_AUTOCOMPACT_PCT_OVERRIDE'], 1, 100),
    windowOverride: int(env['CLAUDE_CODE_AUTO_COMPACT_WINDOW'], 10_000, 100_000_000),
  };
}

/** The token count at which a thread is compacted before its next request; undefined: never automatically. */
export function autoCompactThreshold(window: number, settings: CompactionSettings): number | undefined {
  if (settings.disabled || settings.autoDisabled) return undefined;
  const effective = Math.min(window, settings.windowOverride ?? window) - SUMMARY_RESERVE_TOKENS;
  const base = effective - AUTO_COMPACT_BUFFER_TOKENS;
  const pct = settings.percentOverride === undefined ? base : Math.floor((effective * settings.percentOverride) / 100);
  return Math.max(1, Math.min(base, pct));
}
