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
import { type Grammar, type ParseResult, grammar, has, parseArgs } from './options.js';
import { touchesFile } from './redirects.js';
import type { CommandAnalysis, Redirect, SimpleCommand } from './types.js';

type Parsed = Extract<ParseResult, { ok: true }>;

/** What the grammar says about one command: read-only or why not, and what it reads. */
export interface Judgement {
  readOnly: boolean;
  /** Why it is not read-only (for the prompt). */
  why?: string;
  /** Paths the command reads, as written (relative to its working directory). */
  readPaths: string[];
  /** The grammar understood the whole command line: readPaths is complete as far as words go. */
  known: boolean;
}

const UNKNOWN = (why: string): Judgement => ({ readOnly: false, why, readPaths: [], known: false });

interface Spec {
  g: Grammar;
  /** What operands are: files read, plain text (echo, basename), a pattern then files (grep), or none allowed. */
  operands: 'paths' | 'text' | 'pattern-paths' | 'none';
  /** Further conditions; returns why not, or undefined. */
  check?: (p: Parsed) => string | undefined;
}

const HV = 'help version';
const SUMS = `binary check! tag text zero ignore-missing quiet status strict warn ${HV}`;

// Short notation: see options.ts. Options marked `!` are unsafe, `@` read a path.
const SPECS: Record<string, Spec> = {
  cat: { g: grammar({ short: 'AbeEnstTuv', long: `show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting ${HV}` }), operands: 'paths' },
  head: { g: grammar({ short: '#c:n:qvz', long: `bytes: lines: quiet silent verbose zero-terminated ${HV}` }), operands: 'paths' },
  tail: {
    g: grammar({ short: '#bc:fFln:qs:vz', long: `bytes: follow:: lines: max-unchanged-stats: pid: quiet silent retry sleep-interval: verbose zero-terminated -presume-input-pipe ${HV}` }),
    operands: 'paths',
  },
  wc: { g: grammar({ short: 'clmwL', long: `bytes chars lines files0-from:@ max-line-length words ${HV}` }), operands: 'paths' },
  nl: {
    g: grammar({
      short: 'pb:d:f:h:i:l:n:s:v:w:',
      long: `body-numbering: section-delimiter: footer-numbering: header-numbering: line-increment: join-blank-lines: number-format: no-renumber number-separator: starting-line-number: number-width: ${HV}`,
    }),
    operands: 'paths',
  },
  tac: { g: grammar({ short: 'brs:', long: `before regex separator: ${HV}` }), operands: 'paths' },
  rev: { g: grammar({ short: 'hV0', long: `zero ${HV}` }), operands: 'paths' },
  cut: { g: grammar({ short: 'b:c:d:f:nsz', long: `bytes: characters: delimiter: fields: complement only-delimited output-delimiter: zero-terminated ${HV}` }), operands: 'paths' },
  tr: { g: grammar({ short: 'cdstAC', long: `complement delete squeeze-repeats truncate-set1 ${HV}` }), operands: 'text' },
  fold: { g: grammar({ short: '#bsw:', long: `bytes spaces width: ${HV}` }), operands: 'paths' },
  paste: { g: grammar({ short: 'd:sz', long: `delimiters: serial zero-terminated ${HV}` }), operands: 'paths' },
  expand: { g: grammar({ short: '#it:', long: `initial tabs: ${HV}` }), operands: 'paths' },
  unexpand: { g: grammar({ short: '#at:', long: `all first-only tabs: ${HV}` }), operands: 'paths' },
  column: {
    g: grammar({
      short: 'dehtxJLV c:i:l:n:o:p:r:s:E:H:N:O:R:T:W:',
      long:
        'table table-name: table-order: table-columns: table-columns-limit: table-noextreme: table-noheadings table-header-repeat table-hide: ' +
        `table-right: table-truncate: table-wrap: table-empty-lines keep-empty-lines json tree: tree-id: tree-parent: output-width: output-separator: separator: fillrows ${HV}`,
    }),
    operands: 'paths',
  },
  comm: { g: grammar({ short: 'z123', long: `check-order nocheck-order output-delimiter: total zero-terminated ${HV}` }), operands: 'paths' },
  cmp: { g: grammar({ short: 'bclsv i:n:', long: `print-bytes print-chars ignore-initial: verbose bytes: quiet silent ${HV}` }), operands: 'paths' },
  diff: {
    // -r follows symlinks to directories (out of the project) unless --no-dereference; -l runs pr.
    g: grammar({
      short: 'abcdefhinpqrstuvwyBEHNPTZ# l! x:C:D:F:I:L:S:U:W: X:@',
      long:
        'normal brief report-identical-files context:: unified:: ed rcs side-by-side width: left-column suppress-common-lines show-c-function ' +
        'show-function-line: label: expand-tabs initial-tab tabsize: suppress-blank-empty paginate! recursive no-dereference new-file ' +
        'unidirectional-new-file ignore-file-name-case no-ignore-file-name-case exclude: exclude-from:@ starting-file: from-file:@ to-file:@ ' +
        'ignore-case ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines: ' +
        'text strip-trailing-cr ifdef: old-group-format: new-group-format: unchanged-group-format: changed-group-format: line-format: ' +
        'old-line-format: new-line-format: unchanged-line-format: minimal horizon-lines: speed-large-files color:: palette: binary forward-ed ' +
        `inhibit-hunk-merge sdiff-merge-assist ${HV}`,
    }),
    operands: 'paths',
    check: (p) => (has(p, '-r', '--recursive') && !has(p, '--no-dereference') ? 'diff -r follows symbolic links' : undefined),
  },
  od: {
    g: grammar({ short: 'abcdefhilosvxBDFHILOX w:: j:t:A:N:S:', long: `address-radix: endian: skip-bytes: read-bytes: strings:: format: output-duplicates width:: traditional ${HV}` }),
    operands: 'paths',
  },
  hexdump: {
    g: grammar({ short: 'bcdhovxCV L:: e:n:s: f:@', long: `one-byte-octal one-byte-char canonical two-bytes-decimal two-bytes-octal two-bytes-hex color:: format: format-file:@ length: skip: no-squeezing ${HV}` }),
    operands: 'paths',
  },
  strings: {
    g: grammar({ short: 'adfhowvHV# e:n:s:t:T:U:', long: `all data print-file-name bytes: radix: encoding: target: output-separator: include-all-whitespace unicode: ${HV}` }),
    operands: 'paths',
  },
  stat: { g: grammar({ short: 'Lft c:', long: `dereference file-system cached: format: printf: terse ${HV}` }), operands: 'paths' },
  file: {
    // -C writes magic.mgc; -z/-Z run decompressors; -p changes access times; -S turns the sandbox off.
    g: grammar({
      short: 'bcdhiklnrsvELN0 C!p!z!Z!S! e:F:P: f:@m:@',
      long:
        'magic-file:@ uncompress! uncompress-noreport! brief checking-printout exclude: exclude-quiet: files-from:@ separator: mime apple extension ' +
        `mime-type mime-encoding keep-going list dereference no-dereference no-buffer no-pad print0 preserve-date! parameter: raw special-files no-sandbox! compile! debug ${HV}`,
    }),
    operands: 'paths',
  },
  basename: { g: grammar({ short: 'az s:', long: `multiple suffix: zero ${HV}` }), operands: 'text' },
  dirname: { g: grammar({ short: 'z', long: `zero ${HV}` }), operands: 'text' },
  realpath: {
    g: grammar({ short: 'emqszLP', long: `canonicalize-existing canonicalize-missing logical physical quiet relative-to:@ relative-base:@ strip no-symlinks zero ${HV}` }),
    operands: 'paths',
  },
  readlink: { g: grammar({ short: 'efmnqsvz', long: `canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero ${HV}` }), operands: 'paths' },
  sleep: { g: grammar({ long: HV }), operands: 'text' },
  seq: { g: grammar({ short: 'w# f:s:', long: `format: separator: equal-width ${HV}` }), operands: 'text' },
  id: { g: grammar({ short: 'agnruzGZ', long: `context group groups name real user zero ${HV}` }), operands: 'text' },
  groups: { g: grammar({ long: HV }), operands: 'text' },
  whoami: { g: grammar({ long: HV }), operands: 'none' },
  uname: { g: grammar({ short: 'aimnoprsv', long: `all kernel-name nodename kernel-release kernel-version machine processor hardware-platform operating-system ${HV}` }), operands: 'none' },
  nproc: { g: grammar({ long: `all ignore: ${HV}` }), operands: 'none' },
  printenv: { g: grammar({ short: 'i0 u:', long: `null ${HV}` }), operands: 'text' },
  locale: { g: grammar({ short: 'ackmvV', long: 'all-locales charmaps category-name keyword-name verbose help usage version' }), operands: 'text' },
  which: { g: grammar({ short: 'a', abbreviations: false }), operands: 'text' },
  du: {
    g: grammar({
      short: 'abchklmsxDHPS0 L! d:t:B: X:@',
      long:
        'null all apparent-size block-size: bytes total dereference-args max-depth: files0-from:@ human-readable inodes dereference! count-links ' +
        `no-dereference separate-dirs si summarize threshold: time:: time-style: exclude-from:@ exclude: one-file-system ${HV}`,
    }),
    operands: 'paths',
  },
  df: {
    g: grammar({ short: 'ahiklmvHPT t:x:B:F:', long: `all block-size: human-readable si inodes local no-sync output:: portability sync total type: print-type exclude-type: ${HV}` }),
    operands: 'paths',
  },
  ls: {
    g: grammar({
      short: 'abcdfghiklmnopqrstuvxABCDFGHLNQRSUXZ1 w:I:T:',
      long:
        'all almost-all author escape block-size: ignore-backups color:: directory dired classify:: file-type format: full-time ' +
        'group-directories-first no-group human-readable si dereference-command-line dereference-command-line-symlink-to-dir hide: ' +
        'hyperlink:: indicator-style: inode ignore: kibibytes dereference numeric-uid-gid literal hide-control-chars show-control-chars ' +
        `quote-name quoting-style: reverse recursive size sort: time: time-style: tabsize: width: context zero ${HV}`,
    }),
    operands: 'paths',
    check: (p) => (has(p, '-R', '--recursive') && has(p, '-L', '--dereference') ? 'ls -RL follows symbolic links' : undefined),
  },
  grep: {
    // -R follows every symbolic link while recursing (out of the project); -r does not.
    g: grammar({
      short: 'abchilnoqrsuvwxyzEFGHIUVZ# R! e:m:A:B:C:d:D: f:@ X:!',
      long:
        'extended-regexp fixed-strings fixed-regexp basic-regexp perl-regexp regexp: file:@ ignore-case no-ignore-case word-regexp ' +
        'line-regexp null-data no-messages invert-match max-count: byte-offset line-number line-buffered with-filename no-filename ' +
        'label: only-matching quiet silent binary-files: text directories: devices: recursive dereference-recursive! include: exclude: ' +
        'exclude-from:@ exclude-dir: files-without-match files-with-matches count initial-tab null before-context: after-context: ' +
        `context: group-separator: no-group-separator color:: colour:: binary ${HV}`,
    }),
    operands: 'pattern-paths',
  },
  sort: {
    g: grammar({
      short: 'bcdfghimnrsuzCMRV k:t:y:S: o:!T:!',
      long:
        'ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort ' +
        'numeric-sort random-sort random-source:@ reverse sort: version-sort batch-size: check:: compress-program:! debug files0-from:@ ' +
        `key: merge output:! stable buffer-size: field-separator: temporary-directory:! parallel: unique zero-terminated ${HV}`,
    }),
    operands: 'paths',
  },
  uniq: {
    g: grammar({ short: 'cdiuzD# f:s:w:', long: `count repeated all-repeated:: skip-fields: group:: ignore-case skip-chars: unique zero-terminated check-chars: ${HV}` }),
    operands: 'paths',
    // A second operand is the output file.
    check: (p) => (p.operands.length > 1 ? 'uniq writes its second operand' : undefined),
  },
  date: {
    g: grammar({ short: 'uR I:: d: f:@r:@ s:!', long: `date: debug file:@ iso-8601:: resolution rfc-email rfc-822 rfc-2822 rfc-3339: reference:@ set:! utc universal ${HV}` }),
    operands: 'text',
    // An operand that is not +FORMAT sets the clock.
    check: (p) => (p.operands.every((o) => o.startsWith('+')) ? undefined : 'date with a date operand sets the clock'),
  },
  hostname: {
    g: grammar({ short: 'adfhisyAIV b!F:!', long: `alias all-fqdns boot! domain fqdn long file:! ip-address all-ip-addresses short yp nis ${HV}` }),
    operands: 'none',
  },
  env: {
    // As a command of its own (no program operand; with one it is a wrapper): prints the environment.
    g: grammar({ short: 'i0v u: C:!S:!', long: `ignore-environment null unset: chdir:! split-string:! block-signal:: default-signal:: ignore-signal:: list-signal-handling debug ${HV}`, permute: false }),
    operands: 'none',
  },
  md5sum: { g: grammar({ short: 'btwz c!', long: SUMS }), operands: 'paths' },
  sha1sum: { g: grammar({ short: 'btwz c!', long: SUMS }), operands: 'paths' },
  sha224sum: { g: grammar({ short: 'btwz c!', long: SUMS }), operands: 'paths' },
  sha256sum: { g: grammar({ short: 'btwz c!', long: SUMS }), operands: 'paths' },
  sha384sum: { g: grammar({ short: 'btwz c!', long: SUMS }), operands: 'paths' },
  sha512sum: { g: grammar({ short: 'btwz c!', long: SUMS }), operands: 'paths' },
  b2sum: { g: grammar({ short: 'btwz c! l:', long: `length: ${SUMS}` }), operands: 'paths' },
  cksum: { g: grammar({ short: 'btwz c! a:l:', long: `algorithm: length: untagged debug ${SUMS}` }), operands: 'paths' },
  sum: { g: grammar({ short: 'rs', long: `sysv ${HV}` }), operands: 'paths' },
  // Builtins.
  type: { g: grammar({ short: 'afptP', abbreviations: false, permute: false }), operands: 'text' },
  pwd: { g: grammar({ short: 'LP', abbreviations: false }), operands: 'none' },
};
SPECS['egrep'] = SPECS['grep'] as Spec;
SPECS['fgrep'] = SPECS['grep'] as Spec;

/** The paths an option value names (file -m takes a colon-separated list). */
function optionPaths(p: Parsed, program: string): string[] {
  const out: string[] = [];
  for (const o of p.options) {
    if (o.def.role !== 'path' || o.value === undefined) continue;
    if (program === 'file' && o.def.name === '-m') out.push(...o.value.split(':'));
    else out.push(o.value);
  }
  return out;
}

function judgeSpec(program: string, spec: Spec, args: readonly string[]): Judgement {
  // binutils (strings) reads further options from @file: options the grammar cannot see.
  if (program === 'strings' && args.some((a) => a.startsWith('@'))) return UNKNOWN('strings reads options from an @file');
  const p = parseArgs(args, spec.g);
  if (!p.ok) return UNKNOWN(`${program}: ${p.why}`);
  const unsafe = p.options.find((o) => o.def.role === 'unsafe');
  if (unsafe) return { readOnly: false, why: `${program} ${unsafe.def.name} is not read-only`, readPaths: optionPaths(p, program), known: true };
  let files: string[] = [];
  if (spec.operands === 'paths') files = p.operands;
  else if (spec.operands === 'pattern-paths') {
    const patternGiven = has(p, '-e', '--regexp', '-f', '--file');
    files = patternGiven ? p.operands : p.operands.slice(1);
    if (!patternGiven && p.operands.length === 0) return UNKNOWN(`${program} without a pattern`);
    // grep -r with no file searches the working directory.
    if (files.length === 0 && (has(p, '-r', '--recursive') || p.options.some((o) => o.def.name === '--directories' && o.value === 'recurse'))) files = ['.'];
  } else if (spec.operands === 'none' && p.operands.length > 0) return UNKNOWN(`${program} takes no operands here`);
  const readPaths = [...optionPaths(p, program), ...files.filter((f) => f !== '-' && f !== '')];
  const why = spec.check?.(p);
  return why ? { readOnly: false, why, readPaths, known: true } : { readOnly: true, readPaths, known: true };
}

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
    if (FIND_UNSAFE.has(a)) return { readOnly: false, why: `find ${a} is not read-only`, readPaths, known: true };
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

// --- git --------------------------------------------------------------------------------------------------
//
// git's global options are matched exactly (no abbreviations). Subcommand options go through parse-options,
// which accepts unique abbreviations; we accept only the exact spellings below (an abbreviation of a safe
// option asks, which is safe) and long values only in the `--name=value` form (a separate value could be read
// by git as an option we did not model). -c, --config-env, --git-dir, --work-tree, --exec-path, --namespace,
// --bare, --super-prefix and GIT_* assignments are never read-only: they point git at config, hooks and
// programs the model may have written.

const GIT_GLOBAL_FLAGS = new Set([
  '--no-pager', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs',
  '--no-replace-objects', '--no-lazy-fetch', '--no-advice',
]);

const DIFF_FLAGS =
  '-p -u -s --patch --no-patch --raw --stat --numstat --shortstat --compact-summary --name-only --name-status --summary --patch-with-stat ' +
  '--patch-with-raw -z --no-color --color --word-diff --color-words --no-renames -M -C -B -D --find-renames --find-copies ' +
  '--find-copies-harder --irreversible-delete --full-index --binary --abbrev --no-abbrev -R --relative --no-relative -a --text ' +
  '--ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space --ignore-blank-lines --minimal --patience ' +
  '--histogram --function-context -W --no-ext-diff --no-textconv --ignore-submodules --no-prefix --default-prefix --check --exit-code --quiet ' +
  '--indent-heuristic --no-indent-heuristic --color-moved --no-color-moved --dirstat --cumulative';
const DIFF_VALUES =
  '--stat --color --word-diff --word-diff-regex --color-words --diff-filter --abbrev --relative --src-prefix --dst-prefix --line-prefix ' +
  '--unified --inter-hunk-context --diff-algorithm --find-renames --find-copies --dirstat --ignore-submodules --color-moved --stat-width ' +
  '--stat-name-width --stat-count --stat-graph-width --anchored -U';
const LOG_FLAGS =
  `${DIFF_FLAGS} --oneline --graph --decorate --no-decorate --all --branches --tags --remotes --abbrev-commit --no-abbrev-commit ` +
  '--reverse --first-parent --merges --no-merges --full-history --follow --date-order --topo-order --author-date-order --relative-date ' +
  '--left-right --cherry-pick --cherry-mark --cherry --boundary --source --parents --children --no-walk --walk-reflogs -g --use-mailmap ' +
  '--no-use-mailmap --mailmap --no-mailmap --log-size --regexp-ignore-case -i --extended-regexp -E --fixed-strings -F --perl-regexp ' +
  '--basic-regexp --all-match --invert-grep --simplify-by-decoration --dense --sparse --simplify-merges --ancestry-path --bisect ' +
  '--count --objects --no-min-parents --no-max-parents --show-linear-break --notes --no-notes --clear-decorations -m';
const LOG_VALUES =
  `${DIFF_VALUES} --pretty --format --date --since --until --after --before --author --committer --grep --max-count --skip --decorate ` +
  '--max-parents --min-parents --grep-reflog --encoding --expand-tabs --notes --since-as-filter --exclude --glob --branches --tags --remotes ' +
  '--diff-merges --decorate-refs --decorate-refs-exclude';

interface GitSub {
  flags: string;
  values?: string;
  /** Short options taking a value (glued or separate), e.g. `-n 5`. */
  shortValues?: string;
  /** -NUM (a count). */
  numeric?: boolean;
  /** Value options whose value is a path the command reads. */
  pathValues?: string;
  /** Extra condition on the parsed words. */
  check?: (opts: string[], operands: string[]) => string | undefined;
}

const GIT_SUBS: Record<string, GitSub> = {
  status: {
    flags: '-s --short -b --branch --porcelain --long -v --verbose -u --untracked-files --ignored --ignore-submodules -z --column --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames --show-stash',
    values: '--porcelain --untracked-files --ignored --ignore-submodules --column --find-renames -u',
  },
  log: { flags: LOG_FLAGS, values: LOG_VALUES, shortValues: 'n', numeric: true },
  show: { flags: LOG_FLAGS, values: LOG_VALUES, shortValues: 'n', numeric: true },
  whatchanged: { flags: LOG_FLAGS, values: LOG_VALUES, shortValues: 'n', numeric: true },
  'rev-list': { flags: LOG_FLAGS, values: LOG_VALUES, shortValues: 'n', numeric: true },
  diff: { flags: `${DIFF_FLAGS} --cached --staged --merge-base`, values: DIFF_VALUES },
  blame: {
    flags: '-l -t -s -e -w -p -c -f -n -M -C --root --show-stats --show-name --show-number --show-email --porcelain --line-porcelain --incremental --score-debug --no-progress',
    values: '--date --abbrev -L -M -C',
    shortValues: 'L',
  },
  annotate: { flags: '-l -t -s -e -w -p -c -f -n -M -C --root --show-stats --show-name --show-number --show-email --porcelain --line-porcelain --incremental', values: '--date --abbrev -L', shortValues: 'L' },
  shortlog: { flags: '-n -s -e -c --numbered --summary --email --committer', values: '--format --group -w' },
  describe: { flags: '--tags --all --always --long --contains --exact-match --first-parent --dirty --broken --debug', values: '--abbrev --dirty --broken --match --exclude --candidates' },
  'rev-parse': {
    flags:
      '--abbrev-ref --short --verify -q --quiet --show-toplevel --git-dir --git-common-dir --absolute-git-dir --is-inside-work-tree ' +
      '--is-inside-git-dir --is-bare-repository --is-shallow-repository --show-prefix --show-cdup --symbolic --symbolic-full-name --all ' +
      '--branches --tags --remotes --show-object-format --show-ref-format --not',
    values: '--short --abbrev-ref --branches --tags --remotes --show-object-format',
  },
  'ls-files': {
    flags: '-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed -z -t -v -f --directory --no-empty-directory --eol --full-name --recurse-submodules --abbrev --debug --deduplicate --exclude-standard --error-unmatch --sparse',
    values: '--abbrev --exclude --format --exclude-from --exclude-per-directory',
    pathValues: '--exclude-from',
  },
  'ls-tree': { flags: '-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree --abbrev', values: '--abbrev --format' },
  'cat-file': { flags: '-t -s -e -p --mailmap --use-mailmap --allow-unknown-type' },
  'show-ref': { flags: '--head --heads --tags --branches -d --dereference -s --hash --abbrev -q --quiet --verify --exists', values: '--hash --abbrev' },
  'for-each-ref': { flags: '--shell --perl --python --tcl --ignore-case --omit-empty --merged --no-merged --contains --no-contains', values: '--count --sort --format --points-at --merged --no-merged --contains --no-contains --exclude' },
  'merge-base': { flags: '--all --octopus --independent --is-ancestor --fork-point -a' },
  'name-rev': { flags: '--tags --name-only --all --always --undefined --no-undefined', values: '--refs --exclude' },
  'count-objects': { flags: '-v --verbose -H --human-readable' },
  grep: {
    flags:
      '-n -i -l -L -c -w -v -E -F -G -P -h -H -o -q -z -p -W -I -a --count --line-number --ignore-case --files-with-matches ' +
      '--files-without-match --name-only --word-regexp --invert-match --extended-regexp --fixed-strings --basic-regexp --perl-regexp --cached ' +
      '--untracked --full-name --heading --break --only-matching --quiet --all-match --and --or --not ( ) --null --column --recurse-submodules ' +
      '--text --no-color --show-function --function-context --exclude-standard --no-exclude-standard',
    values: '--max-depth --max-count --threads --color --context --before-context --after-context',
    shortValues: 'eABCmf',
    pathValues: '-f',
    numeric: true,
  },
  version: { flags: '--build-options' },
  branch: {
    flags: '-a -r -v -vv -l --list --all --remotes --verbose --show-current --no-color --color --column --no-column --contains --no-contains --merged --no-merged --no-abbrev -i --ignore-case --omit-empty',
    values: '--color --column --sort --format --points-at --abbrev --contains --no-contains --merged --no-merged',
    // An operand creates a branch unless listing.
    check: (opts, operands) => (operands.length === 0 || opts.includes('-l') || opts.includes('--list') ? undefined : 'git branch with an operand creates a branch'),
  },
  tag: {
    flags: '-l --list -n --contains --no-contains --merged --no-merged --column --no-column -i --ignore-case --color --omit-empty',
    values: '--sort --format --contains --no-contains --merged --no-merged --points-at --column --color',
    check: (opts, operands) => (operands.length === 0 || opts.includes('-l') || opts.includes('--list') ? undefined : 'git tag with an operand creates a tag'),
  },
  remote: { flags: '-v --verbose', check: (_o, operands) => (operands.length ? 'git remote with an operand is not a listing' : undefined) },
  config: {
    flags: '--get --get-all --get-regexp --list -l --name-only --show-origin --show-scope --null -z --global --system --local --worktree --includes --no-includes --bool --int --path',
    values: '--type --default',
    check: (opts) => (['--get', '--get-all', '--get-regexp', '--list', '-l'].some((o) => opts.includes(o)) ? undefined : 'git config without --get/--list writes'),
  },
};

const GIT_SUB_WITH_VERB: Record<string, Record<string, GitSub>> = {
  stash: { list: GIT_SUBS['log'] as GitSub, show: GIT_SUBS['diff'] as GitSub },
  worktree: { list: { flags: '--porcelain -v --verbose -z' } },
  reflog: { show: GIT_SUBS['log'] as GitSub },
};

const OPTIONAL_COMMIT = new Set(['--contains', '--no-contains', '--merged', '--no-merged', '--points-at']);

const wordsOf = (s: string | undefined): Set<string> => new Set((s ?? '').split(/\s+/).filter(Boolean));

function judgeGitSub(name: string, sub: GitSub, args: readonly string[], base: string | undefined): Judgement {
  const flags = wordsOf(sub.flags);
  const values = wordsOf(sub.values);
  const pathValues = wordsOf(sub.pathValues);
  const opts: string[] = [];
  const operands: string[] = [];
  const readPaths: string[] = [];
  let endOfOptions = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!endOfOptions && (a === '(' || a === ')')) {
      if (!flags.has(a)) return UNKNOWN(`git ${name}: unexpected ${a}`);
      continue;
    }
    if (endOfOptions || !a.startsWith('-') || a === '-') {
      operands.push(a);
      continue;
    }
    if (a === '--') {
      endOfOptions = true;
      continue;
    }
    if (flags.has(a)) {
      opts.push(a);
      // --contains/--merged/--points-at & co. take an optional commit as the next word.
      if (OPTIONAL_COMMIT.has(a) && i + 1 < args.length && !(args[i + 1] as string).startsWith('-')) i++;
      continue;
    }
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0 && values.has(a.slice(0, eq))) {
      const opt = a.slice(0, eq);
      const value = a.slice(eq + 1);
      // A format that verifies signatures runs gpg.
      if ((opt === '--format' || opt === '--pretty') && /%G/.test(value)) return { readOnly: false, why: 'a %G format runs gpg', readPaths, known: true };
      opts.push(opt);
      if (pathValues.has(opt)) readPaths.push(value);
      continue;
    }
    if (sub.numeric && /^-\d+$/.test(a)) continue;
    const letter = a[1] as string;
    if (a.length >= 2 && letter !== '-' && (sub.shortValues ?? '').includes(letter)) {
      let value = a.slice(2);
      if (value === '') {
        if (i + 1 >= args.length) return UNKNOWN(`git ${name} -${letter} needs a value`);
        value = args[++i] as string;
      }
      opts.push(`-${letter}`);
      if (pathValues.has(`-${letter}`)) readPaths.push(value);
      continue;
    }
    // -U3, -M50%: a short value option glued.
    if (a.length > 2 && letter !== '-' && values.has(a.slice(0, 2))) {
      opts.push(a.slice(0, 2));
      continue;
    }
    return UNKNOWN(`git ${name}: option ${a} is not known to be read-only`);
  }
  const why = sub.check?.(opts, operands);
  // Operands are revisions or paths; those that are paths are read (relative to -C's directory). grep, diff
  // and blame also read files of the working tree that no operand names.
  const prefix = base === undefined ? '' : `${base.replace(/\/+$/, '')}/`;
  const worktree = ['grep', 'diff', 'blame', 'annotate', 'stash show'].includes(name) ? ['.'] : [];
  const paths = [...readPaths, ...operands, ...worktree].map((p) => (p.startsWith('/') ? p : prefix + p));
  if (base !== undefined) paths.unshift(base);
  return why ? { readOnly: false, why, readPaths: paths, known: true } : { readOnly: true, readPaths: paths, known: true };
}

function judgeGit(args: readonly string[]): Judgement {
  let i = 0;
  let base: string | undefined;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('-')) break;
    if (GIT_GLOBAL_FLAGS.has(a)) continue;
    if (a === '-C') {
      const dir = args[i + 1];
      if (dir === undefined) return UNKNOWN('git -C needs a directory');
      base = base === undefined || dir.startsWith('/') ? dir : `${base}/${dir}`;
      i++;
      // Another directory may be (or hold) a repository whose config the model wrote (fsmonitor, gpg.program,
      // pager…): git -C is never read-only.
      return { readOnly: false, why: 'git -C may use a repository whose configuration runs programs', readPaths: [base], known: false };
    }
    return { readOnly: false, why: `git ${a.split('=')[0] ?? a} can point git at other configuration or programs`, readPaths: base ? [base] : [], known: false };
  }
  const name = args[i];
  if (name === undefined) return UNKNOWN('git without a subcommand');
  const rest = args.slice(i + 1);
  const verbs = Object.hasOwn(GIT_SUB_WITH_VERB, name) ? GIT_SUB_WITH_VERB[name] : undefined;
  if (verbs) {
    const verb = rest[0];
    if (name === 'reflog' && (verb === undefined || verb.startsWith('-'))) return judgeGitSub(name, GIT_SUBS['log'] as GitSub, rest, base);
    const sub = verb !== undefined && Object.hasOwn(verbs, verb) ? verbs[verb] : undefined;
    if (!sub) return { readOnly: false, why: `git ${name} ${verb ?? ''} is not read-only`.trim(), readPaths: base ? [base] : [], known: false };
    return judgeGitSub(`${name} ${verb}`, sub, rest.slice(1), base);
  }
  const sub = Object.hasOwn(GIT_SUBS, name) ? GIT_SUBS[name] : undefined;
  if (!sub) return { readOnly: false, why: `git ${name} is not known to be read-only`, readPaths: base ? [base] : [], known: false };
  return judgeGitSub(name, sub, rest, base);
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

const CUSTOM: Record<string, (args: readonly string[]) => Judgement> = {
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
