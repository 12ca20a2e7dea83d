// The permission engine's view of a shell command, built on the shell analyser (tools/shell). Lives in the
// composition root so neither module depends on the other.
import type { CommandAnalyzer, CommandSegment } from '../permissions/match.js';
import type { SimpleCommand } from '../tools/shell/index.js';

/** Environment assignments that only change presentation, not what runs. */
const HARMLESS_ASSIGNMENT = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|COLUMNS|TERM)=/;

function coverable(seg: SimpleCommand): boolean {
  const first = seg.argv[0];
  if (first === undefined || first === '' || /[$`*?[{~]/.test(first)) return false;
  if (seg.wrappers.some((w) => w === 'sudo' || w === 'doas')) return false;
  return seg.assignments.every((a) => HARMLESS_ASSIGNMENT.test(a));
}

export const shellAnalyzer: CommandAnalyzer = {
  analyze: async (command) => {
    // Loaded on first use: the parser (WASM) is not needed before a shell command must be judged.
    const { analyzeCommand, isReadOnlyCommand, renderSegment, segmentForms } = await import('../tools/lazy-entry.js');
    const a = await analyzeCommand(command);
    const segments: CommandSegment[] = a.segments.map((seg) => ({ text: renderSegment(seg), forms: segmentForms(seg), coverable: coverable(seg) }));
    return { ok: a.ok, segments, readOnly: isReadOnlyCommand(a), reasons: a.reasons };
  },
};
