// analyzeCommand: a command line → every simple command it runs, with the wrappers stripped, plus the flags
// that say why it cannot be checked before it runs. Never throws: anything the parser cannot understand is
// `ok: false`, which callers treat as unsafe.
import { type Parser, loadShellParser, loadedShellParser, withSyntaxTree } from './parser.js';
import { judgeArgv } from './read-only.js';
import { touchesFile } from './redirects.js';
import type { CommandAnalysis, Redirect, SimpleCommand } from './types.js';
import { type RawSegment, walkProgram } from './walk.js';
import { REASONS } from './words.js';
import { type Code, type Word, unwrapCommand } from './wrappers.js';

export { touchesFile };

/** Longer commands are not analysed (they are almost certainly generated, and the answer would be "ask"). */
const MAX_LENGTH = 100_000;
/** `sh -c "bash -c 'eval …'"` nesting deeper than this is not followed. */
const MAX_DEPTH = 6;

const NOT_PARSED = 'This command could not be parsed, so what it runs cannot be checked';
const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f]/;

interface State {
  ok: boolean;
  substitution: boolean;
  background: boolean;
  dynamic: boolean;
  opaque: boolean;
  changesDirectory: boolean;
  reasons: Set<string>;
}

interface Prefix {
  wrappers: string[];
  assignments: Word[];
  redirects: Redirect[];
  /** Inherited from an enclosing wrapper (xargs feeding a shell, a login shell…). */
  opaque: boolean;
  /** Inherited from an enclosing `env -C`/`sudo -D`. */
  chdir: boolean;
}

const EMPTY_PREFIX: Prefix = { wrappers: [], assignments: [], redirects: [], opaque: false, chdir: false };

/**
 * Assignments that change which program runs or make programs run code: the command search path, shell
 * startup files and options, the dynamic loader, bash function imports, and the variables through which git,
 * pagers, editors and interpreters run commands. Given to any command (`PATH=… ls`, `env LD_PRELOAD=… ls`, or
 * on their own before it), they hide what runs.
 */
const HIDDEN_ASSIGNMENT =
  /^(PATH|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|BASH_LOADABLES_PATH|EXECIGNORE|LD_[A-Z_]+|BASH_FUNC_[^=]*|GIT_[A-Z_]+|[A-Z_]*PAGER|EDITOR|VISUAL|[A-Z_]*_EDITOR|LESSOPEN|LESSCLOSE|NODE_OPTIONS|PYTHONSTARTUP|PYTHONPATH|PERL5OPT|PERL5LIB|RUBYOPT|BROWSER|SHELL)\+?=/;

/** Builtins that run code from elsewhere or change the program a name runs. */
const HIDDEN_PROGRAMS = new Set(['source', '.', 'enable']);
/** Builtins that take variable names, where a subscript (`a[$(cmd)]`) is evaluated. */
const NAME_TAKERS = new Set(['read', 'mapfile', 'readarray', 'getopts', 'wait', 'printf', 'test', '[', 'unset', 'declare', 'typeset', 'local', 'export', 'readonly', 'printf']);
const CD = new Set(['cd', 'pushd', 'popd']);
const RESERVED = new Set(['{', '}', '!', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'in', 'function', 'select', ']]', '((', '))', 'time', 'coproc']);

/** Why these words hide a program or evaluate code (undefined: they do not). */
function hiddenBy(argv: readonly Word[]): string | undefined {
  const first = argv[0];
  if (!first) return undefined;
  if (first.dynamic) return REASONS.hidden;
  const name = first.value.slice(first.value.lastIndexOf('/') + 1);
  const args = argv.slice(1);
  if (HIDDEN_PROGRAMS.has(name)) return REASONS.hidden;
  // A reserved word as a program name means the grammar misread a compound command (`time { rm x; }`).
  if (RESERVED.has(first.value)) return REASONS.parser;
  // hash -p PATH NAME makes NAME run PATH; alias NAME=CODE (with expand_aliases) makes NAME run CODE.
  if (name === 'hash') return args.some((w) => w.dynamic || /^-[a-zA-Z]*p/.test(w.value)) ? REASONS.hidden : undefined;
  if (name === 'alias') return args.some((w) => w.dynamic || w.value.includes('=')) ? REASONS.hidden : undefined;
  // set -x / shopt -s extdebug…: PS4 and debug traps run code from values.
  if (name === 'shopt' || name === 'set') return args.some((w) => w.dynamic || /expand_aliases|extdebug|xtrace|functrace|errtrace|^-[a-zA-Z]*[xTE]/.test(w.value)) ? REASONS.hidden : undefined;
  if (name === 'let') return REASONS.code;
  // mapfile -C CALLBACK evaluates CALLBACK as code for every chunk.
  if ((name === 'mapfile' || name === 'readarray') && args.some((w) => w.dynamic || /^-[a-zA-Z]*C/.test(w.value))) return REASONS.code;
  if (name === 'printf' && args.some((w) => w.dynamic || w.value.startsWith('-v'))) return REASONS.code;
  if (NAME_TAKERS.has(name) && args.some((w) => w.dynamic || w.value.includes('['))) return REASONS.code;
  return undefined;
}

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
  const walked = withSyntaxTree(parser, source, (root) => walkProgram(root, source));
  if (!walked.ok) {
    st.ok = false;
    st.reasons.add(NOT_PARSED);
  }
  st.substitution ||= walked.substitution;
  st.background ||= walked.background;
  st.dynamic ||= walked.dynamic;
  st.opaque ||= walked.opaque;
  for (const r of walked.reasons) st.reasons.add(r);
  const out: SimpleCommand[] = [];
  for (const seg of walked.segments) out.push(...expand(parser, seg, depth, st, prefix));
  return out;
}

function expandCode(parser: Parser, code: Code, depth: number, st: State, prefix: Prefix, fallback: SimpleCommand): SimpleCommand[] {
  // Code built from a variable (`sh -c "$X"`) is only known when it runs: keep the command as it is.
  if (code.dynamic) {
    st.opaque = true;
    st.reasons.add(REASONS.hidden);
    return [{ ...fallback, dynamic: true, opaque: true }];
  }
  return analyzeSource(parser, code.text, depth + 1, st, prefix);
}

function expand(parser: Parser, seg: RawSegment, depth: number, st: State, prefix: Prefix): SimpleCommand[] {
  const u = unwrapCommand(seg.words);
  st.background ||= u.background;
  const own: Prefix = {
    wrappers: [...prefix.wrappers, ...u.wrappers],
    assignments: [...prefix.assignments, ...seg.assignments, ...u.assignments],
    redirects: [...prefix.redirects, ...seg.redirects, ...u.redirects],
    opaque: prefix.opaque || u.opaque,
    chdir: prefix.chdir || u.chdir,
  };
  if (u.opaque) st.reasons.add(REASONS.hidden);
  const make = (words: readonly Word[], p: Prefix): SimpleCommand => {
    // A name that is not an identifier (`BASH_FUNC_ls%%=…`, only through env/sudo) is not a plain variable either.
    const hidden = hiddenBy(words) ?? (p.assignments.some((a) => a.dynamic || HIDDEN_ASSIGNMENT.test(a.value) || !/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(a.value)) ? REASONS.hidden : undefined);
    if (hidden) st.reasons.add(hidden);
    const opaque = p.opaque || hidden !== undefined;
    st.opaque ||= opaque;
    const first = words[0];
    if (p.chdir || (first && (first.dynamic || CD.has(first.value)))) st.changesDirectory = true;
    const dynamic = words.some((w) => w.dynamic) || p.assignments.some((a) => a.dynamic) || p.redirects.some((r) => r.target === null && r.kind !== 'dup');
    const judged = !dynamic && words.length > 0 ? judgeArgv(words.map((w) => w.value)) : undefined;
    const inputs = p.redirects.filter((r) => r.kind === 'read' && r.target !== null && touchesFile(r)).map((r) => r.target as string);
    return {
      argv: words.map((w) => w.value),
      redirects: p.redirects,
      assignments: p.assignments.map((a) => a.value),
      wrappers: p.wrappers,
      dynamic,
      opaque,
      chdir: p.chdir,
      readPaths: [...inputs, ...(judged?.readPaths ?? [])],
      writePaths: [...p.redirects.filter((r) => r.kind === 'write' && r.target !== null && touchesFile(r)).map((r) => r.target as string), ...(judged?.writePaths ?? [])],
      readsKnown: (judged?.known ?? words.length === 0) && !p.chdir && !p.redirects.some((r) => r.kind === 'read' && r.target === null),
      text: seg.text,
    };
  };
  const out: SimpleCommand[] = [];
  if (u.code) out.push(...expandCode(parser, u.code, depth, st, own, make(seg.words, { ...own, wrappers: prefix.wrappers })));
  else out.push(make(u.words, own));
  for (const extra of u.extra) {
    // find -exec and trap actions run with their own (inherited) environment and descriptors.
    const p: Prefix = { ...own, wrappers: [...own.wrappers, extra.wrapper], opaque: own.opaque || (extra.opaque ?? false) };
    if (extra.opaque) st.reasons.add(REASONS.hidden);
    if (extra.code) out.push(...expandCode(parser, extra.code, depth, st, p, make(seg.words, own)));
    else if (extra.words) out.push(...expand(parser, { words: extra.words, assignments: [], redirects: [], text: seg.text }, depth, st, p));
  }
  return out;
}

function analyzeWith(parser: Parser, command: string): CommandAnalysis {
  const st: State = { ok: true, substitution: false, background: false, dynamic: false, opaque: false, changesDirectory: false, reasons: new Set() };
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
    opaque: !st.ok || st.opaque || segments.some((s) => s.opaque),
    changesDirectory: st.changesDirectory,
    reasons: [...st.reasons],
  };
}

function failed(): CommandAnalysis {
  return { ok: false, segments: [], hasSubstitution: false, hasRedirection: false, hasBackground: false, dynamic: false, opaque: true, changesDirectory: false, reasons: [NOT_PARSED] };
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
