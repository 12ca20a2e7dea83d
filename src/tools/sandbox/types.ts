// The read-only sandbox port: the "second wall" behind the shell analyser. A Bash command that runs only
// because the analyser judged it read-only (no rule, hook, mode or person approved it) runs inside it, so a
// mistake of the analyser cannot write files or reach the network.

/** AGENTD_READONLY_SANDBOX: `auto` (default) jails when the OS allows it; `required` asks instead of
 * auto-running read-only commands when it cannot; `off` never jails. */
export type ReadOnlySandboxPolicy = 'required' | 'auto' | 'off';

export const READ_ONLY_SANDBOX_POLICIES: readonly ReadOnlySandboxPolicy[] = ['required', 'auto', 'off'];

export type SandboxStatus =
  | { state: 'active'; backend: 'bubblewrap'; path: string }
  | { state: 'unavailable'; reason: string }
  | { state: 'off' };

/** What one jailed command may see. */
export interface JailScope {
  /** The shell's working directory (inside one of `readable`). */
  cwd: string;
  /** Directories readable inside the jail: the session's working directories. */
  readable: readonly string[];
  /** The user's home: credential files under it are hidden when a working directory contains them. */
  home?: string;
  /**
   * The command's PATH: its directories outside the system paths (e.g. ~/.cargo/bin) are readable too, so the
   * programs it names are found; never HOME itself or a directory above it.
   */
  path?: string;
  /** More paths to hide when a working directory contains them (agentd's config directory). */
  hidden?: readonly string[];
  /** Single files readable inside the jail (the shell's startup file). */
  readableFiles?: readonly string[];
  /** Single existing files writable inside the jail (the shell's cwd file, a background task's output file). */
  writableFiles?: readonly string[];
}

export interface ShellJail {
  /** The argv that runs `inner` (e.g. ['bash', '-c', script]) inside the jail. */
  argv(inner: readonly string[]): string[];
}

export type Jailer = (scope: JailScope) => ShellJail;

export interface ReadOnlySandbox {
  readonly policy: ReadOnlySandboxPolicy;
  /** Detected once, on first use, and cached. */
  status(): Promise<SandboxStatus>;
  /**
   * What builds the jail for each command; undefined when commands run unconfined (policy `off`, or `auto`
   * without a sandbox). Under `required` without a sandbox it rejects: the call must not run (the permission
   * layer asks before it comes to that).
   */
  jailer(): Promise<Jailer | undefined>;
  /**
   * Why a read-only command may not be auto-approved (policy `required`, no sandbox), or undefined when it
   * may. For the permission layer.
   */
  autoApprovalBlocked(): Promise<string | undefined>;
}
