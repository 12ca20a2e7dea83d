// What the shell path checks (command-paths.ts) know about particular programs: which recurse, which follow
// symlinks while they recurse, which only list names, which write files named inside their input, and how their
// options are spelled (short clusters, GNU long-option prefixes).

/** Option helpers: a short letter in a cluster (up to a value-taking letter), a long option or its prefix. */
export function hasShort(args: readonly string[], letters: string, valueLetters = ''): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (!/^-[^-]/.test(a)) continue;
    for (let k = 1; k < a.length; k++) {
      if (letters.includes(a[k] as string)) return true;
      if (valueLetters.includes(a[k] as string)) break;
    }
  }
  return false;
}

export function hasLong(args: readonly string[], names: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (!a.startsWith('--')) continue;
    const n = a.slice(2).split('=')[0] ?? '';
    if (n.length >= 2 && names.some((x) => x.startsWith(n))) return true;
  }
  return false;
}

export const GREP = new Set(['grep', 'egrep', 'fgrep', 'rgrep', 'zgrep', 'zegrep', 'zfgrep']);

/** Recursion that follows symlinks (it can leave any directory it starts in). */
export function followsSymlinks(program: string, args: readonly string[], dirArgs: boolean): boolean {
  const recursive = hasShort(args, 'rR', 'efmABCdD') || hasLong(args, ['recursive']);
  if (GREP.has(program)) return hasShort(args, 'R', 'efmABCdD') || hasLong(args, ['dereference-recursive']);
  switch (program) {
    case 'diff':
      // diff follows symlinks when it compares directories, recursively or one level deep.
      return (hasShort(args, 'r', 'xXSIFDCUWL') || hasLong(args, ['recursive']) || dirArgs) && !hasLong(args, ['no-dereference']);
    case 'find':
      return args.some((a) => a === '-L' || a === '-follow');
    case 'ls':
      return (hasShort(args, 'R', 'ITw') || hasLong(args, ['recursive'])) && (hasShort(args, 'L', 'ITw') || hasLong(args, ['dereference']));
    case 'cp':
      return (recursive || hasShort(args, 'a') || hasLong(args, ['archive'])) && (hasShort(args, 'L', 'tS') || hasLong(args, ['dereference']));
    case 'du':
      return hasShort(args, 'L', 'BdtX') || hasLong(args, ['dereference']);
    case 'tree':
      return hasShort(args, 'l', 'LPIHo');
    case 'rg':
    case 'fd':
    case 'fdfind':
      return hasShort(args, 'L', 'efgmABCtTjMEr') || hasLong(args, ['follow']);
    case 'ag':
      return hasShort(args, 'f', 'ABCGgm') || hasLong(args, ['follow']);
    case 'ack':
      return hasLong(args, ['follow']);
    case 'tar':
      return hasShort(args, 'h', 'fCbT') || hasLong(args, ['dereference']);
    case 'zip':
      return !hasShort(args, 'y');
    case 'rsync':
      return hasShort(args, 'LkK') || hasLong(args, ['copy-links', 'copy-dirlinks', 'keep-dirlinks']);
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return recursive && hasShort(args, 'L');
    default:
      return false;
  }
}

/** Programs that read no file content through a directory argument (they list names, sizes, or make entries). */
export const NAMES_ONLY = new Set([
  'ls', 'tree', 'du', 'df', 'stat', 'pwd', 'echo', 'printf', 'realpath', 'readlink', 'basename', 'dirname', 'test', '[', '[[',
  'cd', 'pushd', 'mkdir', 'rmdir', 'touch', 'which', 'type', 'command', 'file', 'wc', 'true', 'false', 'sleep', 'find', 'fd',
  'fdfind', 'git',
]);

/** Programs that search their current directory recursively when given no path. */
/**
 * Programs that list every name under a directory (recursively): they reveal what a denied directory holds.
 * `walksCwd`: no path is given, so it walks its current directory.
 */
export function listsRecursively(program: string, args: readonly string[]): { walksCwd: boolean } | undefined {
  const ops = args.filter((a) => !a.startsWith('-'));
  switch (program) {
    case 'find':
      // find's paths come before the first expression word.
      return { walksCwd: !/^[^-(!]/.test(args.find((a) => a !== '-H' && a !== '-L' && a !== '-P' && !/^-O\d$/.test(a) && a !== '-D') ?? '') };
    case 'tree':
    case 'du':
    case 'fd':
    case 'fdfind':
      return { walksCwd: program === 'fd' || program === 'fdfind' ? ops.length <= 1 : ops.length === 0 };
    case 'ls':
      return hasShort(args, 'R', 'ITw') || hasLong(args, ['recursive']) ? { walksCwd: ops.length === 0 } : undefined;
    default:
      return undefined;
  }
}

export function readsCwdRecursively(program: string, args: readonly string[]): boolean {
  if (program === 'rg' || program === 'ag' || program === 'ack' || program === 'ack-grep') return true;
  if (program === 'git') {
    const sub = args.find((a) => !a.startsWith('-'));
    return sub === 'grep' || sub === 'archive';
  }
  if (!GREP.has(program)) return false;
  const recursive = program === 'rgrep' || hasShort(args, 'rR', 'efmABCdD') || hasLong(args, ['recursive', 'dereference-recursive']) || args.some((a, i) => /^(-drecurse|--directories=recurse)$/.test(a) || (a === '-d' && args[i + 1] === 'recurse'));
  if (!recursive) return false;
  // Operands: the pattern comes first unless -e/-f/--regexp/--file gives it.
  const patternGiven = hasShort(args, 'ef', 'mABCdD') || hasLong(args, ['regexp', 'file']);
  const takesValue = new Set(['-e', '-f', '-m', '-A', '-B', '-C', '-d', '-D', '--regexp', '--file', '--max-count', '--after-context', '--before-context', '--context', '--directories', '--devices', '--include', '--exclude', '--exclude-dir', '--exclude-from', '--label', '--group-separator']);
  const ops: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') {
      ops.push(...args.slice(i + 1));
      break;
    }
    if (takesValue.has(a)) i++;
    else if (!a.startsWith('-') || a === '-') ops.push(a);
  }
  return (patternGiven ? ops.length : ops.length - 1) <= 0;
}

/** Extractors and patchers: they write paths named inside their input, not on the command line. */
export function extractsUnseen(program: string, args: readonly string[]): boolean {
  switch (program) {
    case 'tar':
    case 'bsdtar':
      return args.some((a) => /^-?[A-Za-z]*x/.test(a) && !a.startsWith('--')) || hasLong(args, ['extract', 'get']);
    case 'unzip':
    case 'cpio':
    case 'patch':
    case 'rsync':
    case 'unsquashfs':
      return true;
    case '7z':
    case '7za':
      return args[0] === 'x' || args[0] === 'e';
    case 'git':
      return args.some((a) => a === 'apply' || a === 'am');
    default:
      return false;
  }
}

/** `git config` that sets something (not only --get/--list…). */
export function writesGitConfig(args: readonly string[]): boolean {
  // The subcommand: the first word that is not a global option or a global option's value.
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith('-')) i += /^(-C|-c|--git-dir|--work-tree|--namespace|--config-env|--exec-path)$/.test(args[i] as string) ? 2 : 1;
  if (args[i] !== 'config') return false;
  const rest = args.slice(i + 1);
  if (rest.some((a) => /^(--get|--get-all|--get-regexp|--get-urlmatch|--list|-l|--show-origin|--show-scope|get|list)$/.test(a)) && !rest.some((a) => /^(--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|--edit|-e|set|unset|edit)$/.test(a))) return false;
  return rest.filter((a) => !a.startsWith('-')).length > 0 || rest.some((a) => /^(--edit|-e)$/.test(a));
}


/** Names-only programs that take no file content through a word only known at run time either. */
export const LISTS_ONLY: ReadonlySet<string> = new Set([...NAMES_ONLY].filter((p) => p !== 'git' && p !== 'wc' && p !== 'file'));

/** Programs that write (create, replace, remove, change) the files their arguments name. */
export const FILE_WRITERS: ReadonlySet<string> = new Set([
  'cp', 'mv', 'tee', 'touch', 'mkdir', 'ln', 'install', 'rm', 'rmdir', 'sed', 'perl', 'dd', 'truncate', 'chmod', 'chown',
  'chgrp', 'rsync', 'tar', 'bsdtar', 'unzip', 'cpio', 'git', 'sort', 'patch', 'split', 'csplit', 'shred', 'mkfifo', 'mknod',
  'curl', 'wget', 'zip', 'gzip', 'gunzip', 'bzip2', 'xz', 'unxz', 'ex', 'ed', 'vi', 'vim', 'nano', 'awk', 'gawk', 'python',
  'python3', 'node', 'ruby', 'php', 'uniq',
]);
