// git on the read-only list: listed subcommands with exactly-spelled listed options (see the comment below).
import { type Judgement, UNKNOWN } from './judgement.js';

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
    // --output (any abbreviation parse-options accepts) writes a file.
    const out = /^--outp?u?t?=(.*)$/.exec(a) ?? (/^--outp?u?t?$/.test(a) && args[i + 1] !== undefined ? [a, args[i + 1] as string] : null);
    if (out && a.startsWith('--o')) return { readOnly: false, why: `git ${name} --output writes a file`, readPaths: [], writePaths: [out[1]], known: false };
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

export function judgeGit(args: readonly string[]): Judgement {
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

