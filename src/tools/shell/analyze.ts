// analyzeCommand: a command line → every simple command it runs, with the wrappers stripped, plus the flags
// that say why it cannot be checked before it runs. Never throws: anything the parser cannot understand is
// `ok: false`, which callers treat as unsafe.
import { type Parser, loadShellParser, loadedShellParser, withSyntaxTree } from './parser.js';
import type { CommandAnalysis, Redirect, SimpleCommand } from './types.js';
import { type RawSegment, walkProgram } from './walk.js';
import { type Code, type Word, unwrapCommand } from './wrappers.js';

/** Longer commands are not analysed (they are almost certainly generated, and the answer would be "ask"). */
const MAX_LENGTH = 100_000;
/** `sh -c "bash -c 'eval …'"` nesting deeper than this is not followed. */
const MAX_DEPTH = 6;

const NOT_PARSED = 'This command could not be parsed, so what it runs cannot be checked';
const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** Targets that read or write no file. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin']);

interface State {
  ok: boolean;
  substitution: boolean;
  background: boolean;
  dynamic: boolean;
  reasons: Set<string>;
}

interface Prefix {
  wrappers: string[];
  assignments: Word[];
  redirects: Redirect[];
}

const EMPTY_PREFIX: Prefix = { wrappers: [], assignments: [], redirects: [] };

function analyzeSource(parser: Parser, source: string, depth: number, st: State, prefix: Prefix): SimpleCommand[] {
  if (depth > MAX_DEPTH) {
    st.ok = false;
    st.reasons.add('This command nests shells too deeply to be checked');
    return [];
  }
  if (source.length > MAX_LENGTH) {
    st.ok = false;
    st.reasons.add('This command is too long to be checked');
    return [];
  }
  if (CONTROL_CHARS.test(source)) {
    // A carriage return or other control character can make the parser and bash see different words.
    st.ok = false;
    st.reasons.add('This command contains control characters, so what it runs cannot be checked');
    return [];
  }
  const walked = withSyntaxTree(parser, source, walkProgram);
  if (!walked.ok) {
    st.ok = false;
    st.reasons.add(NOT_PARSED);
  }
  st.substitution ||= walked.substitution;
  st.background ||= walked.background;
  st.dynamic ||= walked.dynamic;
  for (const r of walked.reasons) st.reasons.add(r);
  const out: SimpleCommand[] = [];
  for (const seg of walked.segments) out.push(...expand(parser, seg, depth, st, prefix));
  return out;
}

function expandCode(parser: Parser, code: Code, depth: number, st: State, prefix: Prefix, fallback: SimpleCommand): SimpleCommand[] {
  // Code built from a variable (`sh -c "$X"`) is only known when it runs: keep the command as it is.
  if (code.dynamic) return [{ ...fallback, dynamic: true }];
  return analyzeSource(parser, code.text, depth + 1, st, prefix);
}

function expand(parser: Parser, seg: RawSegment, depth: number, st: State, prefix: Prefix): SimpleCommand[] {
  const u = unwrapCommand(seg.words);
  st.background ||= u.background;
  const own: Prefix = {
    wrappers: [...prefix.wrappers, ...u.wrappers],
    assignments: [...prefix.assignments, ...seg.assignments, ...u.assignments],
    redirects: [...prefix.redirects, ...seg.redirects, ...u.redirects],
  };
  const make = (words: readonly Word[], p: Prefix): SimpleCommand => ({
    argv: words.map((w) => w.value),
    redirects: p.redirects,
    assignments: p.assignments.map((a) => a.value),
    wrappers: p.wrappers,
    dynamic: words.some((w) => w.dynamic) || p.assignments.some((a) => a.dynamic) || p.redirects.some((r) => r.target === null && r.kind !== 'dup'),
    text: seg.text,
  });
  const out: SimpleCommand[] = [];
  if (u.code) out.push(...expandCode(parser, u.code, depth, st, own, make(seg.words, { ...own, wrappers: prefix.wrappers })));
  else out.push(make(u.words, own));
  for (const extra of u.extra) {
    // find -exec and trap actions run with their own (inherited) environment and descriptors.
    const p: Prefix = { ...own, wrappers: [...own.wrappers, extra.wrapper] };
    if (extra.code) out.push(...expandCode(parser, extra.code, depth, st, p, make(seg.words, own)));
    else if (extra.words) out.push(...expand(parser, { words: extra.words, assignments: [], redirects: [], text: seg.text }, depth, st, p));
  }
  return out;
}

/** Reads or writes a file (descriptor dups, heredocs, here-strings and /dev/null do not count). */
export function touchesFile(r: Redirect): boolean {
  if (r.kind !== 'read' && r.kind !== 'write') return false;
  return r.target === null || !HARMLESS_TARGETS.has(r.target);
}

function analyzeWith(parser: Parser, command: string): CommandAnalysis {
  const st: State = { ok: true, substitution: false, background: false, dynamic: false, reasons: new Set() };
  let segments: SimpleCommand[];
  try {
    segments = analyzeSource(parser, command, 0, st, EMPTY_PREFIX);
  } catch {
    return failed();
  }
  return {
    ok: st.ok,
    segments,
    hasSubstitution: st.substitution,
    hasRedirection: segments.some((s) => s.redirects.some(touchesFile)),
    hasBackground: st.background,
    dynamic: st.dynamic || segments.some((s) => s.dynamic),
    reasons: [...st.reasons],
  };
}

function failed(): CommandAnalysis {
  return { ok: false, segments: [], hasSubstitution: false, hasRedirection: false, hasBackground: false, dynamic: false, reasons: [NOT_PARSED] };
}

/** Recent answers: Bash asks for concurrency safety, then for the permission check, then runs. */
const CACHE_SIZE = 64;
const cache = new Map<string, CommandAnalysis>();

function remember(command: string, a: CommandAnalysis): CommandAnalysis {
  deepFreeze(a);
  if (command.length > 10_000) return a;
  cache.set(command, a);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return a;
}

function deepFreeze(v: unknown): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
}

/** Analyses a command line. Never rejects; the result is frozen (it may be shared with other callers). */
export async function analyzeCommand(command: string): Promise<CommandAnalysis> {
  const hit = cache.get(command);
  if (hit) return hit;
  let parser: Parser;
  try {
    parser = await loadShellParser();
  } catch {
    return failed();
  }
  return remember(command, analyzeWith(parser, command));
}

/** The same, synchronously, when the parser has already been loaded; undefined otherwise. */
export function analyzeCommandSync(command: string): CommandAnalysis | undefined {
  const hit = cache.get(command);
  if (hit) return hit;
  const parser = loadedShellParser();
  return parser ? remember(command, analyzeWith(parser, command)) : undefined;
}

/** The canonical text a `Bash(...)` rule is matched against: the words joined by single spaces. */
export function renderSegment(seg: SimpleCommand): string {
  return seg.argv.join(' ');
}

/** The program name without its directory (`/bin/rm` → `rm`), or '' for a command with no words. */
export function commandName(seg: SimpleCommand): string {
  const first = seg.argv[0] ?? '';
  const slash = first.lastIndexOf('/');
  return slash >= 0 ? first.slice(slash + 1) : first;
}

/**
 * Every text a rule should be tried against: the canonical form and, when the program is named by a path,
 * the same with the bare name (`/bin/rm -rf x` → also `rm -rf x`), so a deny rule about `rm` is not dodged
 * by spelling the path. Allow rules should use the canonical form only (a path can point anywhere).
 */
export function segmentForms(seg: SimpleCommand): string[] {
  const canonical = renderSegment(seg);
  const name = commandName(seg);
  if (name === (seg.argv[0] ?? '')) return [canonical];
  return [canonical, [name, ...seg.argv.slice(1)].join(' ')];
}
