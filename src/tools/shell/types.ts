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
  /** Why the command cannot be fully checked before it runs (empty when it can), in plain words. */
  reasons: string[];
}
