// Which commands only read. A command is read-only when EVERY segment is a known read-only program whose
// arguments pass that program's rule, and the command line has no substitution, no background job, nothing
// dynamic, no privilege wrapper, no environment assignment beyond a few display settings, and no redirect
// other than descriptor dups, output to /dev/null, input from a named file, heredocs and here-strings.
//
// The list (argument rules in brackets):
//   any arguments: cat head tail wc nl tac rev cut tr fold paste expand unexpand column comm cmp diff
//     od hexdump strings stat file[-C/--compile] which whereis type basename dirname realpath readlink
//     pwd echo true false sleep seq whoami id groups uname nproc locale printenv du df ls grep egrep fgrep
//     jq md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum
//   printf [no -v…]   date [no -s/--set, operands only +FORMAT]   hostname [display flags only]   env [no command]
//   test [ [[ [no -v/-R, no array subscripts]
//   Long options match by unambiguous prefix (GNU getopt), so `--outp` counts as `--output`.
//   rg [no --pre, --hostname-bin]   tree [no -o, -R]   sort [no -o/--output, --compress-program]
//   uniq [at most one operand: a second is an output file]   xxd [at most one operand]
//   find [no -exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls]
//   command -v/-V (a lookup)
//   git [no -c, --config-env, --exec-path before the subcommand] with subcommand:
//     status log show diff [no --output, --ext-diff] blame annotate shortlog describe rev-parse rev-list
//     ls-files ls-tree cat-file show-ref for-each-ref merge-base name-rev count-objects grep whatchanged
//     version; branch [listing flags only; operands only with --list/-l]; tag [operands only with -l/--list;
//     no -d -a -s -f -m -u]; remote [no operands, or -v]; stash list/show; worktree list; reflog [show];
//     config [only with --get/--get-all/--get-regexp/--list/-l]
import { touchesFile } from './analyze.js';
import type { CommandAnalysis, Redirect, SimpleCommand } from './types.js';

type Rule = (args: readonly string[]) => boolean;

const any: Rule = () => true;

/** True when an argument is this option (`-o`, `--output`, `--output=x`, or a short cluster holding it). */
function hasOption(args: readonly string[], short: string, long: readonly string[], valueShort = ''): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a.startsWith('--')) {
      const name = a.slice(2).split('=')[0] ?? '';
      // GNU getopt accepts any unambiguous prefix (`--outp` is `--output`): a prefix counts as the option.
      if (name.length >= 2 && long.some((l) => l.startsWith(name))) return true;
      continue;
    }
    if (!a.startsWith('-') || a.length < 2) continue;
    for (let k = 1; k < a.length; k++) {
      const letter = a[k] as string;
      if (short.includes(letter)) return true;
      // A letter that takes a value ends the cluster (`-k1o` is -k with value "1o").
      if (valueShort.includes(letter)) break;
    }
  }
  return false;
}

function operands(args: readonly string[]): string[] {
  const out: string[] = [];
  let rest = false;
  for (const a of args) {
    if (rest || !a.startsWith('-') || a === '-') out.push(a);
    else if (a === '--') rest = true;
  }
  return out;
}

const HOSTNAME_DISPLAY = new Set(['-s', '-f', '-d', '-i', '-I', '-a', '-A', '-y', '-n', '-V', '-h', '--short', '--fqdn', '--long', '--domain', '--ip-address', '--all-ip-addresses', '--all-fqdns', '--nis', '--alias', '--version', '--help']);

/**
 * test / [ / [[: -v and -R name variables, and bash evaluates an array subscript in them (`test -v 'a[$(cmd)]'`
 * runs cmd); [[ also evaluates the operands of arithmetic comparisons. A subscript anywhere is refused.
 */
const testRule: Rule = (a) => !a.some((x) => x === '-v' || x === '-R' || (x.includes('[') && x !== '[' && x !== '[['));

const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

const GIT_LISTING_BRANCH = /^(-a|-r|-v|-vv|-l|--list|--all|--remotes|--verbose|--show-current|--no-color|--color(=.*)?|--column(=.*)?|--no-column|--sort=.*|--format=.*|--contains|--no-contains|--merged|--no-merged|--points-at|--abbrev=.*|--no-abbrev|-i|--ignore-case|--omit-empty)$/;

const GIT_SUBCOMMANDS: Record<string, Rule> = {
  status: any,
  log: (a) => !hasOption(a, '', ['output', 'ext-diff']),
  show: (a) => !hasOption(a, '', ['output', 'ext-diff']),
  diff: (a) => !hasOption(a, '', ['output', 'ext-diff']),
  whatchanged: (a) => !hasOption(a, '', ['output', 'ext-diff']),
  blame: any,
  annotate: any,
  shortlog: any,
  describe: any,
  'rev-parse': any,
  'rev-list': any,
  'ls-files': any,
  'ls-tree': any,
  'cat-file': any,
  'show-ref': (a) => !hasOption(a, '', ['verify-and-create']),
  'for-each-ref': any,
  'merge-base': any,
  'name-rev': any,
  'count-objects': any,
  grep: (a) => !hasOption(a, 'O', ['open-files-in-pager']),
  version: any,
  branch(a) {
    const listing = a.includes('--list') || a.includes('-l');
    return a.every((x, i) => GIT_LISTING_BRANCH.test(x) || (!x.startsWith('-') && (listing || /^--(no-)?(contains|merged|points-at)$/.test(a[i - 1] ?? ''))));
  },
  tag(a) {
    if (hasOption(a, 'dasfmuFe', ['delete', 'annotate', 'sign', 'force', 'message', 'local-user', 'file', 'edit'])) return false;
    return operands(a).length === 0 || a.includes('-l') || a.includes('--list');
  },
  remote: (a) => a.every((x) => x === '-v' || x === '--verbose'),
  stash: (a) => a[0] === 'list' || a[0] === 'show',
  worktree: (a) => a[0] === 'list',
  reflog: (a) => a.length === 0 || a[0] === 'show' || (a[0] ?? '').startsWith('-'),
  config: (a) =>
    ['--get', '--get-all', '--get-regexp', '--list', '-l'].some((o) => a.includes(o)) &&
    !hasOption(a, 'e', ['add', 'unset', 'unset-all', 'replace-all', 'rename-section', 'remove-section', 'edit']),
};

function gitRule(args: readonly string[]): boolean {
  let i = 0;
  // Global options. -c/--config-env can point a pager or hook at any program; --exec-path swaps git's tools.
  while (i < args.length && (args[i] as string).startsWith('-')) {
    const a = args[i] as string;
    if (a === '-c' || a.startsWith('--config-env') || a.startsWith('--exec-path')) return false;
    if (a === '-C' || a === '--git-dir' || a === '--work-tree' || a === '--namespace') i += 2;
    else i++;
  }
  const sub = args[i];
  if (sub === undefined) return false;
  const rule = Object.hasOwn(GIT_SUBCOMMANDS, sub) ? GIT_SUBCOMMANDS[sub] : undefined;
  const rest = args.slice(i + 1);
  // Many subcommands write a file with --output or run programs for diffs; none of that is reading.
  if (hasOption(rest, '', ['output', 'ext-diff', 'textconv', 'open-files-in-pager'])) return false;
  return rule ? rule(rest) : false;
}

const RULES: Record<string, Rule> = {
  // -v assigns a variable (`printf -vPATH …`), and an array subscript in its name is evaluated as code.
  printf: (a) => !(a[0] ?? '').startsWith('-v'),
  date: (a) => !hasOption(a, 's', ['set'], 'dfrI') && operands(a).every((o) => o.startsWith('+')),
  // Display flags only: --file and operands set the host name.
  hostname: (a) => a.every((x) => HOSTNAME_DISPLAY.has(x)),
  env: (a) => operands(a).length === 0,
  rg: (a) => !hasOption(a, '', ['pre', 'hostname-bin']),
  tree: (a) => !hasOption(a, 'oR', [], 'LPIH'),
  sort: (a) => !hasOption(a, 'o', ['output', 'compress-program'], 'ktST'),
  uniq: (a) => operands(a).length <= 1,
  xxd: (a) => operands(a).length <= 1,
  file: (a) => !hasOption(a, 'C', ['compile'], 'mfeFP'),
  find: (a) => !a.some((x) => FIND_ACTIONS.has(x)),
  command: (a) => a.includes('-v') || a.includes('-V'),
  git: gitRule,
};

for (const name of [
  'cat', 'head', 'tail', 'wc', 'nl', 'tac', 'rev', 'cut', 'tr', 'fold', 'paste', 'expand', 'unexpand', 'column',
  'comm', 'cmp', 'diff', 'od', 'hexdump', 'strings', 'stat', 'which', 'whereis', 'type', 'basename', 'dirname',
  'realpath', 'readlink', 'pwd', 'echo', 'true', 'false', 'sleep', 'seq', 'whoami', 'id', 'groups', 'uname',
  'nproc', 'locale', 'printenv', 'du', 'df', 'ls', 'grep', 'egrep', 'fgrep', 'jq', 'md5sum', 'sha1sum',
  'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum',
]) {
  RULES[name] = any;
}
for (const name of ['test', '[', '[[']) RULES[name] = testRule;

export const READ_ONLY_COMMANDS: readonly string[] = Object.keys(RULES).sort();

/** Variables that change only how output looks. Anything else (PATH, LD_PRELOAD, GIT_*, PAGER…) can run code. */
const SAFE_ASSIGNMENT = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|TERM|COLUMNS|LINES|CLICOLOR|CLICOLOR_FORCE)=/;

/** Wrappers that do not change what a read-only command can do. */
// Not xargs: it appends arguments read from stdin, so the command's real arguments are unknown.
const NEUTRAL_WRAPPERS = new Set(['env', 'nohup', 'time', 'nice', 'timeout', 'command', 'builtin', 'exec', 'stdbuf', 'eval', 'sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);

function redirectIsReadOnly(r: Redirect): boolean {
  if (r.kind === 'dup' || r.kind === 'heredoc' || r.kind === 'herestring') return true;
  if (r.target === null) return false;
  if (r.kind === 'read') return true;
  return !touchesFile(r);
}

export function isReadOnlySegment(seg: SimpleCommand): boolean {
  if (seg.dynamic || seg.argv.length === 0) return false;
  if (!seg.wrappers.every((w) => NEUTRAL_WRAPPERS.has(w))) return false;
  if (!seg.assignments.every((a) => SAFE_ASSIGNMENT.test(a))) return false;
  if (!seg.redirects.every(redirectIsReadOnly)) return false;
  const [name, ...args] = seg.argv;
  // A path (`./ls`, `/tmp/x/cat`) can name any program.
  if (name === undefined || name.includes('/') || !Object.hasOwn(RULES, name)) return false;
  return (RULES[name] as Rule)(args);
}

/** True only when every segment is a known read-only command and nothing in the line is uncheckable. */
export function isReadOnlyCommand(analysis: CommandAnalysis): boolean {
  if (!analysis.ok || analysis.dynamic || analysis.hasSubstitution || analysis.hasBackground) return false;
  if (analysis.segments.length === 0) return false;
  return analysis.segments.every(isReadOnlySegment);
}
