// What the shell analyser reports about a command line. Consumers: Bash's concurrency safety (read-only
// commands run in parallel) and the permission engine, which matches `Bash(...)` rules against every segment.

export type RedirectKind =
  /** Output to a file (`>`, `>>`, `&>`, `&>>`, `>|`, `>&file`). */
  | 'write'
  /** Input from a file (`<`). */
  | 'read'
  /** Descriptor duplication or close (`2>&1`, `>&2`, `<&0`, `>&-`). */
  | 'dup'
  /** A here-document (`<<EOF`, `<<-EOF`); its body is checked like any other word. */
  | 'heredoc'
  /** A here-string (`<<< word`). */
  | 'herestring';

export interface Redirect {
  op: string;
  /** The explicit descriptor (`2>`), or null. */
  fd: number | null;
  /** The target after quote removal (path, descriptor or heredoc delimiter); null when it is not static. */
  target: string | null;
  kind: RedirectKind;
}

export interface SimpleCommand {
  /**
   * The words after quote removal (`'r''m'` → `rm`). A word that is not a static literal keeps its source
   * text (`$HOME`) and marks the command `dynamic`. Wrappers (env, sudo, xargs, sh -c, …) are already
   * stripped: `env FOO=1 rm x` gives `['rm', 'x']`.
   */
  argv: string[];
  redirects: Redirect[];
  /** `NAME=value` prefixes, including those given to `env`/`sudo`, after quote removal. */
  assignments: string[];
  /** Wrappers that were stripped, outermost first (`sudo env rm` → `['sudo', 'env']`). */
  wrappers: string[];
  /** Some word, assignment or redirect target of this command is not a static literal. */
  dynamic: boolean;
  /**
   * What this command runs cannot be fully seen: its program is hidden (a dynamic name, a wrapper whose options
   * were not understood, a shell reading a script or stdin, `source`, `xargs` feeding a shell), or a word or
   * assignment evaluates code stored in a value (see CommandAnalysis.opaque). No allow rule may cover it, and a
   * Bash deny rule denies it (the hidden program may be the denied one).
   */
  opaque: boolean;
  /** A wrapper runs the command in another directory (`env -C DIR`, `sudo -D DIR`): relative paths are off. */
  chdir: boolean;
  /**
   * Paths this command reads, as far as its grammar tells (relative to the shell's working directory at that
   * point): file operands of known programs (`cat a b`, `grep pat f`), path-valued options (`date -f F`,
   * `file -m F`, `grep -f F`, `sort --files0-from=F`, `hexdump -f F`), start points of `find`, `git -C DIR`, and
   * input redirects (`< F`). Meant for Read deny rules and working-directory checks.
   */
  readPaths: string[];
  /**
   * True when the program's grammar is known and every word was understood, so `readPaths` lists every path
   * the words name. False for unknown programs (`python x.py` may read anything): only redirects are listed.
   */
  readsKnown: boolean;
  /**
   * Paths this command writes, as far as the analyser sees: output redirects (`> F`, `>> F`, `&> F`, not
   * /dev/null), `time -o F`, and write options of known programs (`sort -o F`/`--o=F`/`-T DIR`, `uniq IN OUT`,
   * `find -fprint F`, `git … --output=F`). For rules such as "writes into .git/ always ask".
   */
  writePaths: string[];
  /** The source text of the command (for messages). */
  text: string;
}

export interface CommandAnalysis {
  /** False: the parser could not understand the command. Callers treat it as unsafe ("ask"). */
  ok: boolean;
  /**
   * Every simple command, in source order: those in lists (`;`, `&&`, `||`, `&`, newlines), pipelines,
   * subshells, blocks, control structures, function bodies, `$(…)`, backticks, process substitutions and
   * here-document bodies, and the inner command of wrappers.
   */
  segments: SimpleCommand[];
  /** `$(…)`, backticks or `<(…)`/`>(…)` appear somewhere (they run commands while words expand). */
  hasSubstitution: boolean;
  /** Some redirect reads or writes a file other than /dev/null (descriptor dups and heredocs do not count). */
  hasRedirection: boolean;
  /** Something runs in the background (`&`, `coproc`). */
  hasBackground: boolean;
  /** Some word is not a static literal ($VAR, globs, arithmetic, ~, brace expansion, substitutions). */
  dynamic: boolean;
  /**
   * Bash may run code or a program the segments do not show: the parse failed or tree-sitter and bash may
   * disagree (ERROR/MISSING nodes, heredoc delimiters with partial quoting or an end line that does not match),
   * a program name is hidden (`$X`, `"$X"`, `${X}`, eval/sh -c of dynamic code, a shell reading stdin, source,
   * PATH, BASH_ENV, LD_…, GIT_… assignments, `hash -p`, `enable`, `alias`), or a construct evaluates code stored
   * in a value: parameter expansions beyond plain `$name`/`${name}`/`${#name}` (`${x=…}`, `${x:=…}`, `${y@P}`,
   * `${!x}`, `${a[x]}`, `${x:1:2}`…), arithmetic other than on literal numbers (`$((x))`, `((…))`, `let`,
   * `[[ x -eq y ]]`), array subscripts (`a[i]=…`, `test -v 'a[…]'`, `read 'a[…]'`), `printf -v`, and
   * declare/typeset/local/readonly/export with values or options. Such a command is never read-only, no
   * allow rule covers it, and a Bash deny rule denies it.
   */
  opaque: boolean;
  /** Some segment changes the working directory for what follows (`cd`, `pushd`, `popd`) or runs elsewhere (`env -C`). */
  changesDirectory: boolean;
  /** Why the command cannot be fully checked before it runs (empty when it can), in plain words. */
  reasons: string[];
}
