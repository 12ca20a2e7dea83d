// Commands that run another command: `env X=1 cmd`, `sudo cmd`, `xargs cmd`, `timeout 5 cmd`, `sh -c '…'`,
// `eval …`, and the commands hidden in `find -exec … ;` and `trap '…' SIG`. Unwrapping them makes the inner
// command a segment of its own, so a rule about `rm` also sees `nohup rm` and `bash -c 'rm x'`.
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
  extra: Array<{ wrapper: string; words?: Word[]; code?: Code }>;
}

interface OptionSpec {
  /** Short options that take a value (`-u NAME` or `-uNAME`). */
  short?: string;
  /** Long options that take a value (`--chdir DIR` or `--chdir=DIR`). */
  long?: readonly string[];
  /** Accept `-10` (nice's old syntax) as an option. */
  numeric?: boolean;
}

interface Parsed {
  /** Options seen, with their values (short by letter, long by name). */
  opts: Map<string, string | true>;
  /** Index of the first operand, or -1 when an option word is dynamic (we cannot tell what it does). */
  rest: number;
}

/** getopt-style scan: clusters, attached values, `--`, long options with `=`. */
function parseOptions(args: readonly Word[], spec: OptionSpec): Parsed {
  const opts = new Map<string, string | true>();
  const short = spec.short ?? '';
  const long = new Set(spec.long ?? []);
  let i = 0;
  while (i < args.length) {
    const a = args[i] as Word;
    if (a.dynamic) return { opts, rest: -1 };
    const v = a.value;
    if (v === '--') return { opts, rest: i + 1 };
    if (!v.startsWith('-') || v === '-') break;
    if (spec.numeric && /^-\d+$/.test(v)) {
      opts.set('n', v.slice(1));
      i++;
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq >= 0 ? v.slice(2, eq) : v.slice(2);
      if (eq >= 0) opts.set(name, v.slice(eq + 1));
      else if (long.has(name)) {
        const next = args[i + 1];
        if (next?.dynamic) return { opts, rest: -1 };
        opts.set(name, next?.value ?? '');
        i++;
      } else opts.set(name, true);
      i++;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const letter = v[k] as string;
      if (!short.includes(letter)) {
        opts.set(letter, true);
        continue;
      }
      if (k + 1 < v.length) opts.set(letter, v.slice(k + 1));
      else {
        const next = args[i + 1];
        if (next?.dynamic) return { opts, rest: -1 };
        opts.set(letter, next?.value ?? '');
        i++;
      }
      break;
    }
    i++;
  }
  return { opts, rest: i };
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/** Single-quotes a word for re-parsing as shell code. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

type Step =
  | { kind: 'none' }
  | { kind: 'words'; words: Word[]; assignments?: Word[]; redirects?: Redirect[]; background?: boolean }
  | { kind: 'code'; code: Code };

const NONE: Step = { kind: 'none' };
/** The wrapped command: the words from `rest` on; NONE when the options were not understood or nothing follows. */
function wordsFrom(args: readonly Word[], rest: number): Step {
  return rest >= 0 && rest < args.length ? { kind: 'words', words: args.slice(rest) } : NONE;
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

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);

function shellStep(args: Word[]): Step {
  let i = 0;
  let hasC = false;
  while (i < args.length) {
    const a = args[i] as Word;
    if (a.dynamic) return NONE;
    const v = a.value;
    if (v === '--' || v === '-') {
      i++;
      break;
    }
    if (v === '--rcfile' || v === '--init-file') {
      i += 2;
      continue;
    }
    if (v.startsWith('--')) {
      i++;
      continue;
    }
    if (!/^[-+]/.test(v) || v.length < 2) break;
    if (v.includes('c')) hasC = true;
    // -o OPTION / -O SHOPT take the next word.
    if (/[oO]/.test(v)) i++;
    i++;
  }
  const code = args[i];
  if (!hasC || !code) return NONE; // a script file, or commands from stdin: nothing we can see
  return { kind: 'code', code: { text: code.value, dynamic: code.dynamic } };
}

const STEPS: Record<string, (args: Word[]) => Step> = {
  env(args) {
    const p = parseOptions(args, { short: 'uCS', long: ['unset', 'chdir', 'split-string'] });
    if (p.rest < 0) return NONE;
    // A lone `-` is the old spelling of -i.
    const operands = args[p.rest]?.value === '-' && !args[p.rest]?.dynamic ? args.slice(p.rest + 1) : args.slice(p.rest);
    const { assignments, rest } = takeAssignments(operands);
    const split = p.opts.get('S') ?? p.opts.get('split-string');
    if (typeof split === 'string') {
      return { kind: 'code', code: { text: [split, ...rest.map((w) => shellQuote(w.value))].join(' '), dynamic: rest.some((w) => w.dynamic) } };
    }
    return rest.length ? { kind: 'words', words: rest, assignments } : NONE;
  },
  nohup: (args) => (args.length ? { kind: 'words', words: args[0]?.value === '--' ? args.slice(1) : args } : NONE),
  builtin: (args) => (args.length ? { kind: 'words', words: args } : NONE),
  coproc: (args) => (args.length ? { kind: 'words', words: args, background: true } : NONE),
  time(args) {
    const p = parseOptions(args, { short: 'of', long: ['output', 'format'] });
    if (p.rest < 0 || p.rest >= args.length) return NONE;
    const out = p.opts.get('o') ?? p.opts.get('output');
    const redirects: Redirect[] = typeof out === 'string' ? [{ op: '>', fd: null, target: out, kind: 'write' }] : [];
    return { kind: 'words', words: args.slice(p.rest), redirects };
  },
  nice(args) {
    const p = parseOptions(args, { short: 'n', long: ['adjustment'], numeric: true });
    return wordsFrom(args, p.rest);
  },
  timeout(args) {
    const p = parseOptions(args, { short: 'sk', long: ['signal', 'kill-after'] });
    // The first operand is the duration.
    return p.rest >= 0 && p.rest + 1 < args.length ? { kind: 'words', words: args.slice(p.rest + 1) } : NONE;
  },
  command(args) {
    const p = parseOptions(args, {});
    if (p.rest < 0 || p.opts.has('v') || p.opts.has('V') || p.rest >= args.length) return NONE; // a lookup
    return { kind: 'words', words: args.slice(p.rest) };
  },
  exec(args) {
    const p = parseOptions(args, { short: 'a' });
    return wordsFrom(args, p.rest);
  },
  sudo(args) {
    const p = parseOptions(args, {
      short: 'ugCDhprtTUR',
      long: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'chroot'],
    });
    if (p.rest < 0) return NONE;
    for (const o of ['e', 'edit', 'l', 'list', 'v', 'validate', 'V', 'version']) if (p.opts.has(o)) return NONE;
    const { assignments, rest } = takeAssignments(args.slice(p.rest));
    return rest.length ? { kind: 'words', words: rest, assignments } : NONE;
  },
  doas(args) {
    const p = parseOptions(args, { short: 'uC' });
    return wordsFrom(args, p.rest);
  },
  xargs(args) {
    const p = parseOptions(args, {
      short: 'adEILPsn',
      long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    });
    if (p.rest < 0) return NONE;
    const rest = args.slice(p.rest);
    // With no command, xargs runs echo.
    return { kind: 'words', words: rest.length ? rest : [{ value: 'echo', dynamic: false }] };
  },
  stdbuf(args) {
    const p = parseOptions(args, { short: 'ioe', long: ['input', 'output', 'error'] });
    return wordsFrom(args, p.rest);
  },
  setsid(args) {
    const p = parseOptions(args, {});
    return wordsFrom(args, p.rest);
  },
  ionice(args) {
    const p = parseOptions(args, { short: 'cnpPu', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] });
    if (p.rest < 0 || ['p', 'P', 'u', 'pid', 'pgid', 'uid'].some((o) => p.opts.has(o))) return NONE;
    return p.rest < args.length ? { kind: 'words', words: args.slice(p.rest) } : NONE;
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
    if (words.length) extra.push({ wrapper: 'find', words });
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
  const out: Unwrapped = { words: [...words], wrappers: [], assignments: [], redirects: [], background: false, extra: [] };
  for (let guard = 0; guard < 32; guard++) {
    const first = out.words[0];
    if (!first || first.dynamic) break;
    const name = baseName(first.value);
    const args = out.words.slice(1);
    const step = SHELLS.has(name) ? shellStep(args) : Object.hasOwn(STEPS, name) ? (STEPS[name] as (a: Word[]) => Step)(args) : NONE;
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
  }
  return out;
}
