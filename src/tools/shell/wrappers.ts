// Commands that run another command: `env X=1 cmd`, `sudo cmd`, `xargs cmd`, `timeout 5 cmd`, `sh -c '…'`,
// `eval …`, and the commands hidden in `find -exec … ;` and `trap '…' SIG`. Unwrapping them makes the inner
// command a segment of its own, so a rule about `rm` also sees `nohup rm` and `bash -c 'rm x'`.
import { type Grammar, type ParseResult, grammar, parseArgs } from './options.js';
import type { Redirect } from './types.js';

export interface Word {
  value: string;
  dynamic: boolean;
}

/** Shell code to parse in place of (or next to) a command. */
export interface Code {
  text: string;
  dynamic: boolean;
}

export interface Unwrapped {
  /** The innermost command's words (the original words when nothing was unwrapped). */
  words: Word[];
  wrappers: string[];
  /** NAME=value words handed to env/sudo. */
  assignments: Word[];
  /** Files a wrapper writes on its own (`time -o file`). */
  redirects: Redirect[];
  /** `coproc` runs its command in the background. */
  background: boolean;
  /** `sh -c CODE`, `eval …`: the command is this code, to be parsed. */
  code?: Code;
  /** Commands run in addition to this one (`find -exec`, `trap`). */
  extra: Array<{ wrapper: string; words?: Word[]; code?: Code; opaque?: boolean }>;
  /** What runs is partly hidden (see SimpleCommand.opaque). */
  opaque: boolean;
  /** A wrapper changes the working directory (`env -C`, `sudo -D`). */
  chdir: boolean;
}

/**
 * Parses a wrapper's own options with its real grammar (options.ts: GNU abbreviations, glued values, and the
 * first operand ends the options, as these programs use `+` in their getopt string). Returns undefined when a
 * word among the options is dynamic or an option is unknown, ambiguous or malformed: we cannot tell what runs.
 */
function wrapperOptions(args: readonly Word[], g: Grammar): (Extract<ParseResult, { ok: true }> & { rest: number }) | undefined {
  const DYN = '\u0000dynamic';
  const p = parseArgs(args.map((a) => (a.dynamic ? DYN : a.value)), g);
  if (!p.ok) return undefined;
  if (p.options.some((o) => o.value?.includes(DYN))) return undefined;
  const rest = p.rest < 0 ? args.length : p.rest;
  for (let i = 0; i < rest; i++) if ((args[i] as Word).dynamic) return undefined;
  return { ...p, rest };
}

const opt = (p: Extract<ParseResult, { ok: true }>, ...names: string[]): string | true | undefined => {
  const o = p.options.find((x) => names.includes(x.def.name));
  return o ? (o.value ?? true) : undefined;
};

const G = {
  env: grammar({
    short: 'i0v u: C: S:',
    long: 'ignore-environment null unset: chdir: split-string: block-signal:: default-signal:: ignore-signal:: list-signal-handling debug help version',
    permute: false,
  }),
  time: grammar({ short: 'pvqa o: f:', long: 'output: format: append verbose quiet portability help version', permute: false }),
  nice: grammar({ short: '# n:', long: 'adjustment: help version', permute: false }),
  timeout: grammar({ short: 'v k: s:', long: 'preserve-status foreground kill-after: signal: verbose help version', permute: false }),
  nohup: grammar({ long: 'help version', permute: false }),
  command: grammar({ short: 'pvV', abbreviations: false, permute: false }),
  exec: grammar({ short: 'cl a:', abbreviations: false, permute: false }),
  builtin: grammar({ abbreviations: false, permute: false }),
  sudo: grammar({
    short: 'AbBEeHiKklnNPSsVv h:: C:D:g:p:R:r:T:t:U:u:',
    long:
      'askpass background bell close-from: chdir: preserve-env:: edit group: set-home help host: login remove-timestamp reset-timestamp ' +
      'list non-interactive preserve-groups prompt: chroot: role: stdin shell type: command-timeout: other-user: user: version validate',
    permute: false,
  }),
  doas: grammar({ short: 'nsL u: C:', abbreviations: false, permute: false }),
  xargs: grammar({
    short: '0prtx a: E: e:: i:: I: l:: L: n: P: s: d:',
    long: 'null arg-file: delimiter: eof:: replace:: max-lines:: max-args: max-procs: interactive process-slot-var: no-run-if-empty max-chars: show-limits exit open-tty verbose help version',
    permute: false,
  }),
  stdbuf: grammar({ short: 'i: o: e:', long: 'input: output: error: help version', permute: false }),
  setsid: grammar({ short: 'cfw', long: 'ctty fork wait help version', permute: false }),
  ionice: grammar({ short: 't c: n: p: P: u:', long: 'class: classdata: pid: pgid: ignore uid: help version', permute: false }),
};

/**
 * env and sudo take every word with `=` before the command as a variable (not only shell identifiers):
 * `env 'BASH_FUNC_ls%%=() { …; }' bash -c ls` defines a function bash imports.
 */
const ASSIGNMENT = /^[^=]+=/;

/** Single-quotes a word for re-parsing as shell code. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

type Step =
  | { kind: 'none'; opaque?: boolean }
  | { kind: 'words'; words: Word[]; assignments?: Word[]; redirects?: Redirect[]; background?: boolean; chdir?: boolean; opaque?: boolean }
  | { kind: 'code'; code: Code; opaque?: boolean };

const NONE: Step = { kind: 'none' };
/** The wrapper's options (or a word among them) could not be understood: what it runs is hidden. */
const HIDDEN: Step = { kind: 'none', opaque: true };
/** The wrapped command: the words from `rest` on; NONE when nothing follows. */
function wordsFrom(args: readonly Word[], rest: number): Step {
  return rest < args.length ? { kind: 'words', words: args.slice(rest) } : NONE;
}

function takeAssignments(args: Word[]): { assignments: Word[]; rest: Word[] } {
  let i = 0;
  while (i < args.length && !(args[i] as Word).dynamic && ASSIGNMENT.test((args[i] as Word).value)) i++;
  return { assignments: args.slice(0, i), rest: args.slice(i) };
}

function joinCode(words: readonly Word[], quote: boolean): Code {
  return {
    text: words.map((w) => (quote ? shellQuote(w.value) : w.value)).join(' '),
    dynamic: words.some((w) => w.dynamic),
  };
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'rbash', 'fish', 'csh', 'tcsh', 'busybox']);

/**
 * `sh -c CODE`: the code is parsed in place. Anything else a shell does is hidden from us: a script file or
 * stdin (no -c), a login or interactive shell (-l, -i, --login: profile and rc files run first), --rcfile and
 * --init-file, options we do not know. Those make the segment opaque.
 */
function shellStep(args: Word[]): Step {
  let i = 0;
  let hasC = false;
  let hidden = false;
  while (i < args.length) {
    const a = args[i] as Word;
    if (a.dynamic) return HIDDEN;
    const v = a.value;
    if (v === '--' || v === '-') {
      i++;
      break;
    }
    if (v.startsWith('--')) {
      // --login, --rcfile F, --init-file F, --debugger…: startup files or behaviour we cannot see.
      if (!['--noprofile', '--norc', '--posix', '--restricted', '--verbose', '--noediting'].includes(v)) hidden = true;
      if (v === '--rcfile' || v === '--init-file') i++;
      i++;
      continue;
    }
    if (!/^[-+]/.test(v) || v.length < 2) break;
    if (v.startsWith('-') && v.includes('c')) hasC = true;
    if (/[ilsO]/.test(v.slice(1))) hidden = true;
    // -o OPTION / -O SHOPT take the next word.
    if (/[oO]/.test(v)) i++;
    i++;
  }
  const code = args[i];
  if (!hasC || !code) return HIDDEN; // a script file, or commands from stdin: nothing we can see
  return { kind: 'code', code: { text: code.value, dynamic: code.dynamic }, opaque: hidden };
}

const STEPS: Record<string, (args: Word[]) => Step> = {
  env(args) {
    const p = wrapperOptions(args, G.env);
    if (!p) return HIDDEN;
    // A lone `-` is the old spelling of -i.
    const operands = args[p.rest]?.value === '-' && !args[p.rest]?.dynamic ? args.slice(p.rest + 1) : args.slice(p.rest);
    const { assignments, rest } = takeAssignments(operands);
    const split = opt(p, '-S', '--split-string');
    const chdir = opt(p, '-C', '--chdir') !== undefined;
    if (typeof split === 'string') {
      // env -S splits by its own rules (${VAR} expansion, escapes, comments), not the shell's: the string is
      // parsed as shell code so deny rules still see the program it most likely names, but the segment is
      // opaque (never read-only, never covered by an allow rule).
      const code = { text: [split, ...rest.map((w) => shellQuote(w.value))].join(' '), dynamic: rest.some((w) => w.dynamic) };
      return { kind: 'code', code, opaque: true };
    }
    return rest.length ? { kind: 'words', words: rest, assignments, chdir } : NONE;
  },
  nohup(args) {
    const p = wrapperOptions(args, G.nohup);
    return p ? wordsFrom(args, p.rest) : HIDDEN;
  },
  builtin(args) {
    const p = wrapperOptions(args, G.builtin);
    return p ? wordsFrom(args, p.rest) : HIDDEN;
  },
  coproc: (args) => (args.length ? { kind: 'words', words: args, background: true } : NONE),
  time(args) {
    const p = wrapperOptions(args, G.time);
    if (!p) return HIDDEN;
    if (p.rest >= args.length) return NONE;
    const out = opt(p, '-o', '--output');
    const redirects: Redirect[] = typeof out === 'string' ? [{ op: '>', fd: null, target: out, kind: 'write' }] : [];
    return { kind: 'words', words: args.slice(p.rest), redirects };
  },
  nice(args) {
    const p = wrapperOptions(args, G.nice);
    return p ? wordsFrom(args, p.rest) : HIDDEN;
  },
  timeout(args) {
    const p = wrapperOptions(args, G.timeout);
    if (!p) return HIDDEN;
    // The first operand is the duration.
    return p.rest + 1 < args.length ? { kind: 'words', words: args.slice(p.rest + 1) } : NONE;
  },
  command(args) {
    const p = wrapperOptions(args, G.command);
    if (!p) return HIDDEN;
    if (opt(p, '-v', '-V') !== undefined || p.rest >= args.length) return NONE; // a lookup
    return { kind: 'words', words: args.slice(p.rest) };
  },
  exec(args) {
    const p = wrapperOptions(args, G.exec);
    return p ? wordsFrom(args, p.rest) : HIDDEN;
  },
  sudo(args) {
    const p = wrapperOptions(args, G.sudo);
    if (!p) return HIDDEN;
    const chdir = opt(p, '-D', '--chdir', '-R', '--chroot') !== undefined;
    const { assignments, rest } = takeAssignments(args.slice(p.rest));
    // -s/-i run the command through the target user's shell (and -i its login files): hidden startup code.
    const viaShell = opt(p, '-s', '--shell', '-i', '--login') !== undefined;
    if (!rest.length) return viaShell ? HIDDEN : NONE;
    return { kind: 'words', words: rest, assignments, chdir, opaque: viaShell };
  },
  doas(args) {
    const p = wrapperOptions(args, G.doas);
    if (!p) return HIDDEN;
    if (opt(p, '-s') !== undefined) return HIDDEN;
    return wordsFrom(args, p.rest);
  },
  xargs(args) {
    const p = wrapperOptions(args, G.xargs);
    if (!p) return HIDDEN;
    const rest = args.slice(p.rest);
    // With no command, xargs runs echo. The arguments come from stdin: a wrapper or shell under xargs runs
    // code we cannot see (`xargs sh -c`, `xargs env`), and so does a replace string in the program name.
    const words = rest.length ? rest : [{ value: 'echo', dynamic: false }];
    const program = (words[0] as Word).value;
    const first = baseName(program);
    const replace = opt(p, '-I', '-i', '--replace');
    const token = typeof replace === 'string' ? replace : replace === true ? '{}' : undefined;
    const hidden = SHELLS.has(first) || Object.hasOwn(STEPS, first) || first === 'source' || first === '.' || (token !== undefined && program.includes(token));
    return { kind: 'words', words, opaque: hidden };
  },
  stdbuf(args) {
    const p = wrapperOptions(args, G.stdbuf);
    return p ? wordsFrom(args, p.rest) : HIDDEN;
  },
  setsid(args) {
    const p = wrapperOptions(args, G.setsid);
    return p ? wordsFrom(args, p.rest) : HIDDEN;
  },
  ionice(args) {
    const p = wrapperOptions(args, G.ionice);
    if (!p) return HIDDEN;
    if (opt(p, '-p', '--pid', '-P', '--pgid', '-u', '--uid') !== undefined) return NONE;
    return wordsFrom(args, p.rest);
  },
  eval: (args) => (args.length ? { kind: 'code', code: joinCode(args, false) } : NONE),
};

export const WRAPPER_NAMES: readonly string[] = [...Object.keys(STEPS), ...SHELLS];

function baseName(s: string): string {
  const i = s.lastIndexOf('/');
  return i >= 0 ? s.slice(i + 1) : s;
}

function findExtras(args: readonly Word[]): Unwrapped['extra'] {
  const extra: Unwrapped['extra'] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Word;
    if (a.dynamic || !['-exec', '-execdir', '-ok', '-okdir'].includes(a.value)) continue;
    const words: Word[] = [];
    let j = i + 1;
    for (; j < args.length; j++) {
      const w = args[j] as Word;
      if (!w.dynamic && (w.value === ';' || w.value === '+')) break;
      words.push(w);
    }
    // The found file's name replaces {}: as the program, or inside the code of a shell or wrapper, it runs.
    const first = words[0];
    const named = first !== undefined && !first.dynamic ? baseName(first.value) : '';
    const hidden = first === undefined || first.value.includes('{}') || ((SHELLS.has(named) || Object.hasOwn(STEPS, named)) && words.some((w) => w.value.includes('{}')));
    if (words.length) extra.push({ wrapper: 'find', words, opaque: hidden });
    i = j;
  }
  return extra;
}

function trapExtras(args: readonly Word[]): Unwrapped['extra'] {
  const a = args[0]?.value === '--' ? args.slice(1) : args;
  const action = a[0];
  if (!action || a.length < 2 || (!action.dynamic && (action.value === '-' || action.value.startsWith('-')))) return [];
  return [{ wrapper: 'trap', code: { text: action.value, dynamic: action.dynamic } }];
}

/** Strips wrappers until the command that really runs. Pure; parsing of `code` is the caller's job. */
export function unwrapCommand(words: readonly Word[]): Unwrapped {
  const out: Unwrapped = { words: [...words], wrappers: [], assignments: [], redirects: [], background: false, extra: [], opaque: false, chdir: false };
  for (let guard = 0; guard < 32; guard++) {
    const first = out.words[0];
    if (!first || first.dynamic) break;
    const name = baseName(first.value);
    const args = out.words.slice(1);
    const step = SHELLS.has(name) ? shellStep(args) : Object.hasOwn(STEPS, name) ? (STEPS[name] as (a: Word[]) => Step)(args) : NONE;
    if (step.opaque) out.opaque = true;
    if (step.kind === 'none') {
      if (name === 'find') out.extra.push(...findExtras(args));
      if (name === 'trap') out.extra.push(...trapExtras(args));
      break;
    }
    out.wrappers.push(name);
    if (step.kind === 'code') {
      out.code = step.code;
      break;
    }
    out.words = step.words;
    out.assignments.push(...(step.assignments ?? []));
    out.redirects.push(...(step.redirects ?? []));
    out.background ||= step.background ?? false;
    out.chdir ||= step.chdir ?? false;
  }
  return out;
}
