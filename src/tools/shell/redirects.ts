// Redirect helpers shared by the analyser and the read-only judgement (kept apart to avoid an import cycle).
import type { Redirect } from './types.js';

/** Targets that read or write no file. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin']);

/** Reads or writes a file (descriptor dups, heredocs, here-strings and /dev/null do not count). */
export function touchesFile(r: Redirect): boolean {
  if (r.kind !== 'read' && r.kind !== 'write') return false;
  return r.target === null || !HARMLESS_TARGETS.has(r.target);
}
