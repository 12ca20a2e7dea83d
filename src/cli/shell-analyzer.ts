// The permission engine's view of a shell command, built on the shell analyser (tools/shell). Lives in the
// composition root so neither module depends on the other.
import type { CommandAnalyzer, CommandSegment, SegmentDetail } from '../permissions/match.js';
import type { SimpleCommand } from '../tools/shell/index.js';

/** Environment assignments that only change presentation, not what runs. */
const HARMLESS_ASSIGNMENT = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|COLUMNS|TERM)=/;
/** Programs that read shell code from stdin or a file when not given -c (which the analyser unwraps). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'source', '.', 'eval', 'coproc', 'time', '{', '}']);
/** git's global options that take a value, and their value-joined forms. */
const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path', '--super-prefix']);

type Touches = (r: SimpleCommand['redirects'][number]) => boolean;

function program(seg: SimpleCommand): string {
  const first = seg.argv[0] ?? '';
  return first.slice(first.lastIndexOf('/') + 1);
}

/** No allow rule may cover this segment: no program word, a dynamic program, privilege, env, or a file write. */
function coverable(seg: SimpleCommand, touchesFile: Touches): boolean {
  const first = seg.argv[0];
  if (first === undefined || first === '' || /[$`*?[{}~]/.test(first)) return false;
  if (SHELLS.has(program(seg))) return false;
  if (seg.wrappers.some((w) => w === 'sudo' || w === 'doas' || w === 'xargs')) return false;
  if (seg.redirects.some((r) => r.kind === 'write' && touchesFile(r))) return false;
  return seg.assignments.every((a) => HARMLESS_ASSIGNMENT.test(a));
}

/** `git -C x -c k=v push` → also `git push`, so rules about git subcommands see through global options. */
function gitForm(seg: SimpleCommand): string | undefined {
  if (program(seg) !== 'git') return undefined;
  const args = seg.argv.slice(1);
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith('-')) i += GIT_GLOBAL_WITH_VALUE.has(args[i] as string) ? 2 : 1;
  return i > 0 ? ['git', ...args.slice(i)].join(' ') : undefined;
}

/** Arguments that may name files: operands, option values (`--x=v`, `-C v`), and redirect targets. */
function pathCandidates(seg: SimpleCommand): string[] {
  const out: string[] = [];
  const args = seg.argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a.startsWith('--') && a.includes('=')) out.push(a.slice(a.indexOf('=') + 1));
    else if (!a.startsWith('-') || a === '-') out.push(a);
    else if (GIT_GLOBAL_WITH_VALUE.has(a) && args[i + 1] !== undefined) out.push(args[i + 1] as string);
  }
  for (const r of seg.redirects) if (r.target !== null && (r.kind === 'read' || r.kind === 'write')) out.push(r.target);
  return out.filter((p) => p !== '' && p !== '-');
}

/**
 * A word of a dynamic segment is taken as dynamic when it holds a character bash could expand ($, `, a glob, a
 * brace, a leading ~): the analyser keeps such words' source text. A quoted literal with one of them is then
 * judged as if it were expanded, which can only make a check stricter.
 */
const EXPANDABLE = /[$`*?[\]{}]|^~/;

function detailOf(seg: SimpleCommand, readOnly: boolean, touchesFile: Touches): SegmentDetail {
  const word = (v: string): { value: string; dynamic: boolean } => ({ value: v, dynamic: seg.dynamic && EXPANDABLE.test(v) });
  const first = seg.argv[0];
  return {
    program: first === undefined ? '' : word(first).dynamic ? undefined : program(seg),
    args: seg.argv.slice(1).map(word),
    reads: seg.redirects.filter((r) => r.kind === 'read').map((r) => r.target),
    writes: seg.redirects.filter((r) => r.kind === 'write' && touchesFile(r)).map((r) => r.target),
    assignments: [...seg.assignments],
    wrappers: [...seg.wrappers],
    readOnly,
  };
}

export const shellAnalyzer: CommandAnalyzer = {
  analyze: async (command) => {
    // Loaded on first use: the parser (WASM) is not needed before a shell command must be judged.
    const { analyzeCommand, isReadOnlyCommand, isReadOnlySegment, renderSegment, segmentForms, touchesFile } = await import('../tools/lazy-entry.js');
    const a = await analyzeCommand(command);
    const segments: CommandSegment[] = a.segments.map((seg) => {
      const git = gitForm(seg);
      return {
        text: renderSegment(seg),
        forms: git ? [...segmentForms(seg), git] : segmentForms(seg),
        // Code in values or a hidden program anywhere in the line: no prefix rule covers any of it.
        coverable: !a.opaque && !seg.opaque && coverable(seg, touchesFile),
        paths: [...new Set([...pathCandidates(seg), ...seg.readPaths])],
        readPaths: seg.readPaths,
        readsKnown: seg.readsKnown,
        writePaths: seg.writePaths,
        detail: detailOf(seg, isReadOnlySegment(seg), touchesFile),
      };
    });
    // Opaque: something runs that the segments do not show (shell code from stdin, heredocs, dynamic program
    // names, a parse that had to give up). A whole-tool allow does not outrank a specific deny or ask then.
    const opaque =
      !a.ok ||
      /<<|\$|`/.test(command) ||
      a.segments.some((seg) => seg.argv.length === 0 || /[$`{}]/.test(seg.argv[0] ?? '') || SHELLS.has(program(seg)) || seg.dynamic);
    return { ok: a.ok, segments, readOnly: isReadOnlyCommand(a), reasons: a.reasons, opaque: opaque || a.opaque, mayHideProgram: a.opaque, changesDirectory: a.changesDirectory };
  },
};
