// Which commands only read, judged by grammar, not by a list of bad options. A segment is read-only when its
// program is in the list below and EVERY option it is given is a known, safe option of that program, parsed
// as the program parses it (options.ts: GNU abbreviations resolved against the program's full option table,
// glued and separate values, bundled flags, `--`). An unknown option, an ambiguous abbreviation or an unsafe
// option (writes a file, runs a program, changes the working directory, follows symlinks while recursing)
// makes it not read-only. The files a command reads (operands and path-valued options such as `date -f F`,
// `file -m F`, `grep -f F`, `sort --files0-from=F`, `git -C DIR`) are reported as `readPaths`, so the
// permission layer can check them against the working directories and Read deny rules.
//
// The line-level conditions: no substitution, no background job, nothing dynamic, nothing opaque (code in
// values, hidden programs), no wrapper other than env/timeout/nice/stdbuf/command/builtin/exec/time with
// safe options (shells, eval, env -S/-C, sudo, xargs never), no environment assignment beyond display
// settings, and no redirect other than descriptor dups, output to /dev/null, input from a named file,
// heredocs and here-strings.
import { judgeGit } from './git-grammar.js';
import { SPECS, type Spec, judgeSpec } from './grammars.js';
import { type Judgement, UNKNOWN } from './judgement.js';
import { grammar, has, parseArgs } from './options.js';
import { touchesFile } from './redirects.js';
import type { CommandAnalysis, Redirect, SimpleCommand } from './types.js';

export type { Judgement } from './judgement.js';

// --- find -------------------------------------------------------------------------------------------------

const FIND_NO_ARG = new Set([
  '-empty', '-executable', '-false', '-nogroup', '-nouser', '-readable', '-true', '-writable', '-depth', '-d', '-mount', '-xdev',
  '-ignore_readdir_race', '-noignore_readdir_race', '-noleaf', '-daystart', '-print', '-print0', '-ls', '-prune', '-quit', '-warn', '-nowarn',
  '(', ')', '!', '-not', '-a', '-and', '-o', '-or', ',', '-help', '--help', '-version', '--version',
]);
const FIND_ONE_ARG = new Set([
  '-amin', '-atime', '-cmin', '-ctime', '-fstype', '-gid', '-group', '-ilname', '-iname', '-inum', '-ipath', '-iregex', '-iwholename', '-links',
  '-lname', '-mmin', '-mtime', '-name', '-path', '-perm', '-regex', '-size', '-type', '-uid', '-used', '-user', '-wholename', '-xtype',
  '-context', '-maxdepth', '-mindepth', '-regextype', '-printf',
]);
const FIND_PATH_ARG = new Set(['-anewer', '-cnewer', '-newer', '-samefile', '-files0-from']);
/** Actions that write, run programs, or follow symbolic links out of the tree. */
const FIND_UNSAFE = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls', '-follow']);

function judgeFind(args: readonly string[]): Judgement {
  let i = 0;
  // Leading options: -H -L -P -D debugopts -Olevel.
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-H' || a === '-P') continue;
    if (a === '-L') return { readOnly: false, why: 'find -L follows symbolic links', readPaths: [], known: false };
    if (a === '-D') {
      i++;
      continue;
    }
    if (/^-O\d$/.test(a)) continue;
    break;
  }
  const starts: string[] = [];
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (a.startsWith('-') || a === '(' || a === '!' || a === ')' || a === ',') break;
    starts.push(a);
  }
  const readPaths = starts.length ? [...starts] : ['.'];
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (FIND_UNSAFE.has(a)) {
      const writes = /^-f(print0?|printf|ls)$/.test(a) && args[i + 1] !== undefined ? [args[i + 1] as string] : [];
      return { readOnly: false, why: `find ${a} is not read-only`, readPaths, writePaths: writes, known: true };
    }
    if (FIND_NO_ARG.has(a)) continue;
    if (FIND_ONE_ARG.has(a)) {
      if (i + 1 >= args.length) return UNKNOWN(`find ${a} needs a value`);
      i++;
      continue;
    }
    const newerXY = /^-newer([aBcm])([aBcmt])$/.exec(a);
    if (FIND_PATH_ARG.has(a) || newerXY) {
      if (i + 1 >= args.length) return UNKNOWN(`find ${a} needs a value`);
      if (!newerXY || newerXY[2] !== 't') readPaths.push(args[i + 1] as string);
      i++;
      continue;
    }
    return UNKNOWN(`find: unknown expression ${a}`);
  }
  return { readOnly: true, readPaths, known: true };
}

// --- builtins with their own rules ------------------------------------------------------------------------

/** echo, true, false, `:` ignore what they do not understand and never read a file. */
function judgeAlways(): Judgement {
  return { readOnly: true, readPaths: [], known: true };
}

/** printf: -v assigns a variable (an array subscript in its name is evaluated as code). */
function judgePrintf(args: readonly string[]): Judgement {
  const first = args[0] ?? '';
  if (first.startsWith('-') && first !== '--' && first !== '-') return UNKNOWN('printf with an option');
  return { readOnly: true, readPaths: [], known: true };
}

/**
 * test / [ / [[: -v and -R name variables, and bash evaluates an array subscript in them (`test -v 'a[$(cmd)]'`
 * runs cmd). Unary file tests read metadata of their operand: reported as read paths.
 */
function judgeTest(args: readonly string[]): Judgement {
  if (args.some((x) => x === '-v' || x === '-R' || (x.includes('[') && x !== '[' && x !== '[['))) return UNKNOWN('test -v/-R or a subscript evaluates code');
  const readPaths: string[] = [];
  for (let i = 0; i + 1 < args.length; i++) if (/^-[a-hkprsuwxGLNOS]$/.test(args[i] as string)) readPaths.push(args[i + 1] as string);
  return { readOnly: true, readPaths, known: true };
}

function judgeCommandBuiltin(args: readonly string[]): Judgement {
  // Only the lookup forms (`command -v x`); `command x` is unwrapped as a wrapper before we get here.
  const p = parseArgs(args, grammar({ short: 'pvV', abbreviations: false }));
  if (!p.ok) return UNKNOWN(`command: ${p.why}`);
  return has(p, '-v', '-V') ? { readOnly: true, readPaths: [], known: true } : UNKNOWN('command without -v/-V');
}

const JQ_FLAGS = new Set(['n', 'r', 'j', 'a', 's', 'c', 'C', 'M', 'S', 'e', 'R', 'h', 'V']);
const JQ_LONG_FLAGS = new Set([
  '--null-input', '--raw-output', '--join-output', '--ascii-output', '--slurp', '--compact-output', '--color-output', '--monochrome-output',
  '--sort-keys', '--exit-status', '--raw-input', '--tab', '--seq', '--stream', '--unbuffered', '--help', '--version',
]);

/**
 * jq (1.6 parses long options exactly, short ones in clusters): the first operand is the filter, the rest are
 * files. -f (a program from a file) and -L (module search path) are refused, and so is a filter that imports or
 * includes modules (they read files the grammar cannot see).
 */
function judgeJq(args: readonly string[]): Judgement {
  const readPaths: string[] = [];
  let filter: string | undefined;
  let positional = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (positional) continue;
    if (a === '--args' || a === '--jsonargs') {
      positional = filter !== undefined;
      continue;
    }
    if (JQ_LONG_FLAGS.has(a)) continue;
    if (a === '--indent') {
      i++;
      continue;
    }
    if (a === '--arg' || a === '--argjson') {
      i += 2;
      continue;
    }
    if (a === '--slurpfile' || a === '--rawfile') {
      if (args[i + 2] === undefined) return UNKNOWN(`jq ${a} needs a name and a file`);
      readPaths.push(args[i + 2] as string);
      i += 2;
      continue;
    }
    if (/^-[A-Za-z]+$/.test(a) && [...a.slice(1)].every((c) => JQ_FLAGS.has(c))) continue;
    if (a.startsWith('-') && a !== '-') return UNKNOWN(`jq ${a} is not known to be read-only`);
    if (filter === undefined) filter = a;
    else if (a !== '-') readPaths.push(a);
  }
  if (filter === undefined) return UNKNOWN('jq without a filter');
  if (/\b(import|include|modulemeta|get_search_list)\b/.test(filter)) return UNKNOWN('a jq filter that loads modules');
  return { readOnly: true, readPaths, known: true };
}

const CUSTOM: Record<string, (args: readonly string[]) => Judgement> = {
  jq: judgeJq,
  find: judgeFind,
  git: judgeGit,
  echo: judgeAlways,
  true: judgeAlways,
  false: judgeAlways,
  ':': judgeAlways,
  printf: judgePrintf,
  test: judgeTest,
  '[': judgeTest,
  '[[': judgeTest,
  command: judgeCommandBuiltin,
};

export const READ_ONLY_COMMANDS: readonly string[] = [...Object.keys(SPECS), ...Object.keys(CUSTOM)].sort();

/** What the grammar of `argv[0]` says about this argv (not about wrappers, redirects or assignments). */
export function judgeArgv(argv: readonly string[]): Judgement {
  const [name, ...args] = argv;
  // A path (`./ls`, `/tmp/x/cat`) can name any program.
  if (name === undefined || name.includes('/')) return UNKNOWN('a program named by a path');
  if (Object.hasOwn(CUSTOM, name)) return (CUSTOM[name] as (a: readonly string[]) => Judgement)(args);
  if (Object.hasOwn(SPECS, name)) return judgeSpec(name, SPECS[name] as Spec, args);
  return UNKNOWN(`${name} is not a known read-only command`);
}

/** Variables that change only how output looks. Anything else (PATH, LD_PRELOAD, GIT_*, PAGER…) can run code. */
const SAFE_ASSIGNMENT = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|TERM|COLUMNS|LINES|CLICOLOR|CLICOLOR_FORCE)=/;

/**
 * Wrappers that do not change what a read-only command can do (their own options are checked by the
 * unwrapper: an unknown or unsafe wrapper option makes the segment opaque). Not shells, eval, env -S/-C,
 * sudo/doas, xargs (it appends arguments read from stdin), nohup (it may create nohup.out), setsid, coproc.
 */
const NEUTRAL_WRAPPERS = new Set(['env', 'time', 'nice', 'timeout', 'command', 'builtin', 'exec', 'stdbuf']);

function redirectIsReadOnly(r: Redirect): boolean {
  if (r.kind === 'dup' || r.kind === 'heredoc' || r.kind === 'herestring') return true;
  if (r.target === null) return false;
  if (r.kind === 'read') return true;
  return !touchesFile(r);
}

export function isReadOnlySegment(seg: SimpleCommand): boolean {
  if (seg.dynamic || seg.opaque || seg.chdir || seg.argv.length === 0) return false;
  if (!seg.wrappers.every((w) => NEUTRAL_WRAPPERS.has(w))) return false;
  if (!seg.assignments.every((a) => SAFE_ASSIGNMENT.test(a))) return false;
  if (!seg.redirects.every(redirectIsReadOnly)) return false;
  return judgeArgv(seg.argv).readOnly;
}

/** True only when every segment is a known read-only command and nothing in the line is uncheckable. */
export function isReadOnlyCommand(analysis: CommandAnalysis): boolean {
  if (!analysis.ok || analysis.dynamic || analysis.opaque || analysis.hasSubstitution || analysis.hasBackground) return false;
  if (analysis.segments.length === 0) return false;
  return analysis.segments.every(isReadOnlySegment);
}
