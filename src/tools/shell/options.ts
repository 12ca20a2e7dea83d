// Command-line option grammars, matched the way the real programs match them. A grammar lists EVERY option
// of a program (safe and unsafe alike: GNU getopt_long resolves an abbreviation against the whole table, so a
// table that left an option out would resolve `--s` to the wrong one), with how it takes a value and what the
// value is. Parsing fails — and the caller treats the command as unknown — on anything the grammar does not
// know: an unknown option, an ambiguous abbreviation, a value where none is allowed, a missing value.
//
// The tables for GNU tools were taken from the programs themselves (`--help`, and probing every letter and
// every one-letter long prefix for "ambiguous; possibilities: …", which also lists undocumented options).
//
// Notation (compact on purpose: the tables are long):
//   short: one letter per option; a letter followed by `:` takes a value (`-k1` or `-k 1`), by `::` an
//          optional value (glued only, `-L2`). A `#` means `-NUM` is an option (head -5).
//   long:  space-separated names; `name:` takes a value (`--name=v` or `--name v`), `name::` an optional one
//          (`--name=v` only).
//   After the value marker: `@` the value is a path the program reads, `>` a path it writes (unsafe), `!` the
//   option is unsafe (it writes, runs a program, changes the working directory or follows symlinks out):
//   present means "not read-only".

export type ArgKind = 'none' | 'required' | 'optional';
export type Role = 'safe' | 'path' | 'unsafe' | 'write';

export interface OptionDef {
  /** `-x` or `--name` (full name). */
  name: string;
  arg: ArgKind;
  role: Role;
}

export interface Grammar {
  short: ReadonlyMap<string, OptionDef>;
  long: ReadonlyMap<string, OptionDef>;
  /** GNU getopt_long: a long option may be abbreviated to any unambiguous prefix. */
  abbreviations: boolean;
  /** `-5` (head, tail, fold…): a number as an option. */
  numeric: boolean;
  /** GNU permutation: options may follow operands. False: the first operand ends the options (wrappers). */
  permute: boolean;
}

export interface ParsedOption {
  def: OptionDef;
  value?: string;
}

export type ParseResult =
  | {
      ok: true;
      options: ParsedOption[];
      operands: string[];
      /** Without permutation: the index of the first operand (args.length when there is none); else -1. */
      rest: number;
    }
  | { ok: false; why: string };

function marker(spec: string): { base: string; arg: ArgKind; role: Role } {
  let s = spec;
  let role: Role = 'safe';
  if (s.endsWith('@')) {
    role = 'path';
    s = s.slice(0, -1);
  } else if (s.endsWith('>')) {
    role = 'write';
    s = s.slice(0, -1);
  } else if (s.endsWith('!')) {
    role = 'unsafe';
    s = s.slice(0, -1);
  }
  let arg: ArgKind = 'none';
  if (s.endsWith('::')) {
    arg = 'optional';
    s = s.slice(0, -2);
  } else if (s.endsWith(':')) {
    arg = 'required';
    s = s.slice(0, -1);
  }
  return { base: s, arg, role };
}

export interface GrammarSpec {
  short?: string;
  long?: string;
  abbreviations?: boolean;
  permute?: boolean;
}

export function grammar(spec: GrammarSpec): Grammar {
  const short = new Map<string, OptionDef>();
  const long = new Map<string, OptionDef>();
  let numeric = false;
  const s = (spec.short ?? '').replace(/\s+/g, '');
  for (let i = 0; i < s.length; ) {
    const letter = s[i] as string;
    if (letter === '#') {
      numeric = true;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < s.length && ':@!>'.includes(s[j] as string)) j++;
    const m = marker(letter + s.slice(i + 1, j));
    short.set(letter, { name: `-${letter}`, arg: m.arg, role: m.role });
    i = j;
  }
  for (const word of (spec.long ?? '').split(/\s+/).filter(Boolean)) {
    const m = marker(word);
    long.set(m.base, { name: `--${m.base}`, arg: m.arg, role: m.role });
  }
  return { short, long, abbreviations: spec.abbreviations ?? true, numeric, permute: spec.permute ?? true };
}

/** Resolves `--name` as getopt_long does: an exact match, else the only option the prefix starts. */
export function resolveLong(g: Grammar, name: string): OptionDef | 'ambiguous' | undefined {
  const exact = g.long.get(name);
  if (exact) return exact;
  if (!g.abbreviations || name === '') return undefined;
  const hits = [...g.long.entries()].filter(([n]) => n.startsWith(name));
  if (hits.length === 0) return undefined;
  // glibc accepts a prefix of several options that are aliases of each other; we cannot tell aliases apart, so
  // any prefix matching more than one option is refused (the command asks; it is never wrongly allowed).
  return hits.length === 1 ? (hits[0] as [string, OptionDef])[1] : 'ambiguous';
}

/** Parses argv (without the program name) against a grammar. */
export function parseArgs(args: readonly string[], g: Grammar): ParseResult {
  const options: ParsedOption[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      return { ok: true, options, operands, rest: g.permute ? -1 : i + 1 };
    }
    if (!a.startsWith('-') || a === '-') {
      if (!g.permute) return { ok: true, options, operands: args.slice(i), rest: i };
      operands.push(a);
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      const def = resolveLong(g, name);
      if (def === 'ambiguous') return { ok: false, why: `ambiguous option --${name}` };
      if (!def) return { ok: false, why: `unknown option --${name}` };
      if (def.arg === 'none') {
        if (eq >= 0) return { ok: false, why: `${def.name} takes no value` };
        options.push({ def });
      } else if (eq >= 0) options.push({ def, value: a.slice(eq + 1) });
      else if (def.arg === 'optional') options.push({ def });
      else {
        if (i + 1 >= args.length) return { ok: false, why: `${def.name} needs a value` };
        options.push({ def, value: args[++i] });
      }
      continue;
    }
    if (g.numeric && /^-\d+[a-z]?$/.test(a)) {
      options.push({ def: { name: '-NUM', arg: 'none', role: 'safe' }, value: a.slice(1) });
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const letter = a[k] as string;
      const def = g.short.get(letter);
      if (!def) return { ok: false, why: `unknown option -${letter}` };
      if (def.arg === 'none') {
        options.push({ def });
        continue;
      }
      const glued = a.slice(k + 1);
      if (glued !== '' || def.arg === 'optional') options.push(glued === '' ? { def } : { def, value: glued });
      else {
        if (i + 1 >= args.length) return { ok: false, why: `${def.name} needs a value` };
        options.push({ def, value: args[++i] });
      }
      break;
    }
  }
  return { ok: true, options, operands, rest: g.permute ? -1 : args.length };
}

/** True when an option of this name (as resolved) was given. */
export function has(p: Extract<ParseResult, { ok: true }>, ...names: string[]): boolean {
  return p.options.some((o) => names.includes(o.def.name));
}
