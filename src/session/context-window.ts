// Context windows, in tokens, from Claude Code 2.1.330's catalog (model/catalog.ts; README "Context windows"). A
// `[1m]` name (model/names.ts) has a 1M window, and so has a model that takes the 1M beta when the session sends
// `context-1m-2025-08-07` (--betas); a model the catalog does not know has 1M, as in Claude Code (measured).
import { lookupModel } from '../model/catalog.js';
import { CONTEXT_1M_BETA, wantsOneM } from '../model/names.js';

export { CONTEXT_1M_BETA, baseModelId } from '../model/names.js';

const ONE_MILLION = 1_000_000;

/** The context window a request to `model` has, given the betas the session sends. */
export function contextWindowFor(model: string, betas: readonly string[] = []): number {
  if (wantsOneM(model)) return ONE_MILLION;
  const m = lookupModel(model);
  if (!m) return ONE_MILLION;
  return betas.includes(CONTEXT_1M_BETA) && m.beta1m ? ONE_MILLION : m.window;
}
