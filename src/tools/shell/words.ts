// Static evaluation of shell words: quote removal for literals, and a verdict for everything else. A word is
// "dynamic" when its value is only known when the shell runs it ($VAR, $(…), globs, ~, {a,b}, arithmetic).
// Alongside the value we build a "shadow" of the same length in which quoted characters are blanked out, so
// glob, tilde and brace checks see only the characters the shell would act on.
import type { SyntaxNode } from './parser.js';

export const REASONS = {
  variable: "A variable in this command can't be checked before it runs",
  substitution: "A command substitution ($(…), backticks, <(…)) runs a command that can't be checked before it runs",
  glob: "A wildcard in this command expands to file names that can't be checked before it runs",
  tilde: "A ~ in this command expands to a home directory that can't be checked before it runs",
  brace: "Brace expansion in this command can't be checked before it runs",
  arithmetic: "Arithmetic in this command can't be checked before it runs",
  quoting: "Quoting in this command can't be checked before it runs",
  code: "This command evaluates code stored in a value (arithmetic, subscripts, ${…} operators, indirection, declare), which can't be checked before it runs",
  hidden: "The program this command runs is hidden (a variable, a shell reading a script or stdin, source, PATH or a similar setting) and can't be checked before it runs",
  parser: 'The shell may read this command differently from the analyser (heredoc delimiter, quoting), so it cannot be checked',
} as const;

/** `$name`, `${name}`, `${#name}`, positional and special parameters: expanding them evaluates nothing. */
export function isPlainExpansion(text: string): boolean {
  return /^\$([A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*#?$!_-])$/.test(text) || /^\$\{#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!_-])\}$/.test(text);
}

/** Arithmetic on literal numbers only (`$((1+2))`): a name or `$` in it evaluates a variable's value as code. */
export function isLiteralArithmetic(text: string): boolean {
  const inner = text.replace(/^\$?\(\(|\)\)$/g, '').replace(/^\$\[|\]$/g, '');
  return /^[0-9\s+\-*/%()<>=!&|^~?:,]*$/.test(inner);
}

export interface WordValue {
  /** The value after quote removal; the source text when the word is dynamic. */
  value: string;
  dynamic: boolean;
  /** The word contains a command or process substitution. */
  substitution: boolean;
  /**
   * The word's text holds syntax the grammar should have split out (a backtick, a quote, an expansion), so
   * the parser and bash may disagree about it: the command cannot be trusted to mean what the tree says.
   */
  unparsed: boolean;
  reasons: string[];
}

interface Acc {
  value: string;
  shadow: string;
  dynamic: boolean;
  substitution: boolean;
  unparsed: boolean;
  reasons: Set<string>;
}

const QUOTED = '\u0000';
const EXPANSION_START = /[A-Za-z_{(0-9@*#?$!-]/;

function dyn(acc: Acc, reason: string): void {
  acc.dynamic = true;
  acc.reasons.add(reason);
}

/** Unquoted text: backslash quotes the next character, backslash-newline disappears. */
function unquoted(acc: Acc, text: string): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '\\') {
      // An escaped backtick is a nested substitution inside backticks; the grammar keeps it as text.
      if (next === '`') acc.unparsed = true;
      if (next === undefined) {
        acc.value += c;
        acc.shadow += QUOTED;
      } else if (next !== '\n') {
        acc.value += next;
        acc.shadow += QUOTED;
      }
      i++;
      continue;
    }
    // The grammar splits expansions and quotes into their own nodes; seeing one here means the parser and
    // bash may disagree about this word, so it cannot be trusted. Nested backticks are the known case.
    if (c === '`' || c === "'" || c === '"' || (c === '$' && next !== undefined && EXPANSION_START.test(next))) {
      acc.unparsed = true;
      dyn(acc, REASONS.quoting);
    }
    acc.value += c;
    acc.shadow += c;
  }
}

/** Inside double quotes a backslash only quotes $ ` " \ and newline. */
function doubleQuoted(acc: Acc, text: string): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '\\' && next === '`') acc.unparsed = true;
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') {
        acc.value += next;
        acc.shadow += QUOTED;
      }
      i++;
      continue;
    }
    if (c === '`' || (c === '$' && next !== undefined && EXPANSION_START.test(next))) {
      acc.unparsed = true;
      dyn(acc, REASONS.quoting);
    }
    acc.value += c;
    acc.shadow += QUOTED;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** `$'…'` (ANSI-C quoting). Returns undefined when the text holds something we do not decode exactly. */
export function decodeAnsiC(inner: string): string | undefined {
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = inner[i + 1];
    if (e === undefined) return undefined;
    i++;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    let m: RegExpMatchArray | null;
    const rest = inner.slice(i);
    if ((m = /^[0-7]{1,3}/.exec(rest))) {
      out += String.fromCharCode(parseInt(m[0], 8) & 0xff);
      i += m[0].length - 1;
    } else if ((m = /^x([0-9a-fA-F]{1,2})/.exec(rest)) || (m = /^u([0-9a-fA-F]{1,4})/.exec(rest)) || (m = /^U([0-9a-fA-F]{1,8})/.exec(rest))) {
      const cp = parseInt(m[1] as string, 16);
      if (cp > 0x10ffff) return undefined;
      out += String.fromCodePoint(cp);
      i += m[0].length - 1;
    } else if (e === 'c' && inner[i + 1] !== undefined) {
      out += String.fromCharCode((inner.charCodeAt(i + 1) & 0x1f) >>> 0);
      i++;
    } else out += '\\' + e;
  }
  // Bash cuts a $'…' string at a NUL byte: the value would not be what it looks like.
  return out.includes('\u0000') ? undefined : out;
}

function evalInto(acc: Acc, node: SyntaxNode): void {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'test_operator':
    case 'special_variable_name':
      unquoted(acc, node.text);
      return;
    case 'raw_string': {
      const inner = node.text.slice(1, -1);
      acc.value += inner;
      acc.shadow += QUOTED.repeat(inner.length);
      return;
    }
    case 'string':
      for (const c of node.children) {
        if (!c.isNamed) continue;
        if (c.type === 'string_content') doubleQuoted(acc, c.text);
        else evalInto(acc, c);
      }
      return;
    case 'concatenation':
      for (const c of node.children) evalInto(acc, c);
      return;
    case 'ansi_c_string': {
      const decoded = decodeAnsiC(node.text.slice(2, -1));
      if (decoded === undefined) dyn(acc, REASONS.quoting);
      else {
        acc.value += decoded;
        acc.shadow += QUOTED.repeat(decoded.length);
      }
      return;
    }
    case 'simple_expansion':
    case 'expansion':
      dyn(acc, REASONS.variable);
      return;
    case 'command_substitution':
    case 'process_substitution':
      acc.substitution = true;
      dyn(acc, REASONS.substitution);
      return;
    case 'arithmetic_expansion':
      dyn(acc, REASONS.arithmetic);
      return;
    case 'brace_expression':
      dyn(acc, REASONS.brace);
      return;
    default:
      // translated_string ($"…"), subscripts, anything the grammar adds later: not a literal we can vouch for.
      dyn(acc, REASONS.quoting);
  }
}

function finish(acc: Acc, node: SyntaxNode, tildeAfterColon: boolean): WordValue {
  const s = acc.shadow;
  if (/[*?]/.test(s) || /\[[^\]]*\]/.test(s)) dyn(acc, REASONS.glob);
  if (tildeAfterColon ? /(^|:)~/.test(s) : s.startsWith('~')) dyn(acc, REASONS.tilde);
  if (/\{[^{}]*(,|\.\.)[^{}]*\}/.test(s)) dyn(acc, REASONS.brace);
  return wordValue(acc, node);
}

/** The word's value: its text as written when any part of it is only known at run time. */
function wordValue(acc: Acc, node: SyntaxNode): WordValue {
  return {
    value: acc.dynamic ? node.text : acc.value,
    dynamic: acc.dynamic,
    substitution: acc.substitution,
    unparsed: acc.unparsed,
    reasons: [...acc.reasons],
  };
}

function newAcc(): Acc {
  return { value: '', shadow: '', dynamic: false, substitution: false, unparsed: false, reasons: new Set() };
}

/** Evaluates one word (a command name, an argument, a redirect target). */
export function evaluateWord(node: SyntaxNode): WordValue {
  const acc = newAcc();
  evalInto(acc, node);
  return finish(acc, node, false);
}

/** Evaluates `NAME=value` / `NAME+=value` (tilde expands after `=` and after each `:` in assignments). */
export function evaluateAssignment(node: SyntaxNode): WordValue {
  const acc = newAcc();
  const name = node.childForFieldName('name');
  if (!name || name.type !== 'variable_name') dyn(acc, REASONS.arithmetic); // a[i]=…: the subscript is arithmetic
  acc.value += name?.text ?? '';
  acc.shadow += QUOTED.repeat((name?.text ?? '').length);
  const op = node.children.find((c) => !c.isNamed && (c.type === '=' || c.type === '+='));
  acc.value += op?.type ?? '=';
  acc.shadow += QUOTED.repeat((op?.type ?? '=').length);
  const start = acc.shadow.length;
  const value = node.childForFieldName('value');
  if (value?.type === 'array') {
    const items = value.namedChildren.map((c) => {
      const w = evaluateWord(c);
      if (w.dynamic) {
        acc.dynamic = true;
        for (const r of w.reasons) acc.reasons.add(r);
      }
      acc.substitution ||= w.substitution;
      acc.unparsed ||= w.unparsed;
      return w.value;
    });
    acc.value += `(${items.join(' ')})`;
    acc.shadow += QUOTED.repeat(acc.value.length - start);
  } else if (value) evalInto(acc, value);
  // Only the value part decides about ~ and globs (`x=*` assigns a literal star: no globbing in assignments).
  const shadow = acc.shadow.slice(start);
  if (/(^|:)~/.test(shadow)) dyn(acc, REASONS.tilde);
  return wordValue(acc, node);
}
