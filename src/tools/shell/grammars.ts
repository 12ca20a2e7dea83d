// Option tables of the programs on the read-only list (coreutils, grep, diff, file, hexdump…), in the notation
// of options.ts, taken from the programs themselves (--help, and probing every letter and every one-letter long
// prefix, which also reveals undocumented options). Options marked `!` are unsafe, `@` read a path.
import { type Grammar, grammar, has, parseArgs } from './options.js';
import { type Judgement, type Parsed, UNKNOWN } from './judgement.js';

export interface Spec {
  g: Grammar;
  /** What operands are: files read, plain text (echo, basename), a pattern then files (grep), or none allowed. */
  operands: 'paths' | 'text' | 'pattern-paths' | 'none';
  /** Further conditions; returns why not, or undefined. */
  check?: (p: Parsed) => string | undefined;
}

const HV = 'help version';
const SUMS = `binary check! tag text zero ignore-missing quiet status strict warn ${HV}`;

// Short notation: see options.ts. Options marked `!` are unsafe, `@` read a path.
export const SPECS: Record<string, Spec> = {
  cat: { g: grammar({ short: 'AbeEnstTuv', long: `show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting ${HV}` }), operands: 'paths' },
  head: { g: grammar({ short: '#c:n:qvz', long: `bytes: lines: quiet silent verbose zero-terminated ${HV}` }), operands: 'paths' },
  tail: {
    g: grammar({ short: '#bc:fFln:qs:vz', long: `bytes: follow:: lines: max-unchanged-stats: pid: quiet silent retry sleep-interval: verbose zero-terminated -presume-input-pipe ${HV}` }),
    operands: 'paths',
  },
  wc: { g: grammar({ short: 'clmwL', long: `bytes chars lines files0-from:@ max-line-length words debug ${HV}` }), operands: 'paths' },
  nl: {
    g: grammar({
      short: 'pb:d:f:h:i:l:n:s:v:w:',
      long: `body-numbering: section-delimiter: footer-numbering: header-numbering: line-increment: join-blank-lines: number-format: no-renumber number-separator: starting-line-number: number-width: ${HV}`,
    }),
    operands: 'paths',
  },
  tac: { g: grammar({ short: 'brs:', long: `before regex separator: ${HV}` }), operands: 'paths' },
  rev: { g: grammar({ short: 'hV', long: HV }), operands: 'paths' },
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
        `table-right: table-truncate: table-wrap: table-empty-lines keep-empty-lines json tree: tree-id: tree-parent: output-width: columns: output-separator: separator: fillrows ${HV}`,
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
  uname: { g: grammar({ short: 'aimnoprsv', long: `all kernel-name nodename kernel-release kernel-version machine processor hardware-platform operating-system release sysname ${HV}` }), operands: 'none' },
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
        `context: group-separator: no-group-separator color:: colour:: binary unix-byte-offsets ${HV}`,
    }),
    operands: 'pattern-paths',
  },
  sort: {
    g: grammar({
      short: 'bcdfghimnrsuzCMRV k:t:y:S: o:>T:>',
      long:
        'ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort ' +
        'numeric-sort random-sort random-source:@ reverse sort: version-sort batch-size: check:: compress-program:! debug files0-from:@ ' +
        `key: merge output:> stable buffer-size: field-separator: temporary-directory:> parallel: unique zero-terminated ${HV}`,
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
  cksum: { g: grammar({ short: 'btwz c! a:l:', long: `algorithm: check! length: tag untagged zero ignore-missing quiet status strict warn debug ${HV}` }), operands: 'paths' },
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

export function judgeSpec(program: string, spec: Spec, args: readonly string[]): Judgement {
  // binutils (strings) reads further options from @file: options the grammar cannot see.
  if (program === 'strings' && args.some((a) => a.startsWith('@'))) return UNKNOWN('strings reads options from an @file');
  const p = parseArgs(args, spec.g);
  if (!p.ok) return UNKNOWN(`${program}: ${p.why}`);
  const writePaths = p.options.filter((o) => o.def.role === 'write' && o.value !== undefined).map((o) => o.value as string);
  // uniq's second operand is its output file.
  if (program === 'uniq' && p.operands[1] !== undefined) writePaths.push(p.operands[1]);
  const unsafe = p.options.find((o) => o.def.role === 'unsafe' || o.def.role === 'write');
  if (unsafe) return { readOnly: false, why: `${program} ${unsafe.def.name} is not read-only`, readPaths: optionPaths(p, program), writePaths, known: true };
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
  return why ? { readOnly: false, why, readPaths, writePaths, known: true } : { readOnly: true, readPaths, known: true };
}

