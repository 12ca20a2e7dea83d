// Context windows, in tokens: the one table (README "Context windows"). A model with a 1M-token variant gets it
// when it is asked for: the `[1m]` suffix Claude Code uses on model ids (`claude-sonnet-4-5[1m]`), or the
// `context-1m-2025-08-07` beta. An id not in the table takes its family's window (the first of opus / sonnet /
// haiku / fable found in it), and with no family, 200k.

export interface ContextWindow {
  /** The window without any opt-in. */
  tokens: number;
  /** The window with the 1M opt-in, for models that have one. */
  extended?: number;
}

export const CONTEXT_1M_BETA = 'context-1m-2025-08-07';
const ONE_MILLION = 1_000_000;

export const CONTEXT_WINDOWS: Readonly<Record<string, ContextWindow>> = {
  'claude-opus-5-5': { tokens: ONE_MILLION },
  'claude-fable-5-2': { tokens: ONE_MILLION },
  'claude-opus-4-5': { tokens: 200_000 },
  'claude-opus-4-1': { tokens: 200_000 },
  'claude-opus-4-0': { tokens: 200_000 },
  'claude-sonnet-4-5': { tokens: 200_000, extended: ONE_MILLION },
  'claude-sonnet-4-0': { tokens: 200_000, extended: ONE_MILLION },
  'claude-haiku-4-5': { tokens: 200_000 },
  'claude-3-5-haiku': { tokens: 200_000 },
};

const FAMILY: ReadonlyArray<[string, string]> = [
  ['fable', 'claude-fable-5-2'],
  ['opus', 'claude-opus-5-5'],
  ['sonnet', 'claude-sonnet-4-5'],
  ['haiku', 'claude-haiku-4-5'],
];
const DEFAULT_WINDOW: ContextWindow = { tokens: 200_000 };

const ONE_M_SUFFIX = /\[1m\]$/i;

/** The model id without Claude Code's `[1m]` marker (what the API is sent). */
export function baseModelId(model: string): string {
  return model.replace(ONE_M_SUFFIX, '');
}

function lookup(model: string): ContextWindow {
  const id = baseModelId(model);
  const exact = CONTEXT_WINDOWS[id] ?? CONTEXT_WINDOWS[id.replace(/-\d{8}$/, '').replace(/@.*$/, '')];
  if (exact) return exact;
  const lower = id.toLowerCase();
  for (const [family, ref] of FAMILY) if (lower.includes(family)) return CONTEXT_WINDOWS[ref] as ContextWindow;
  return DEFAULT_WINDOW;
}

/** The context window a request to `model` has, given the betas the session sends. */
export function contextWindowFor(model: string, betas: readonly string[] = []): number {
  const w = lookup(model);
  const wantsExtended = ONE_M_SUFFIX.test(model) || betas.includes(CONTEXT_1M_BETA);
  return wantsExtended && w.extended ? w.extended : w.tokens;
}
