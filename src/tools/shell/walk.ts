// One pass over a tree-sitter-bash syntax tree: every simple command becomes a raw segment (words evaluated,
// assignments and redirects attached), and the flags that make a command uncheckable are collected. The
// walk visits every node, anonymous ones included, so constructs it has no case for still have their inner
// commands found (the grammar nests `&& rm y` after a heredoc start inside the heredoc node, for example).
import type { SyntaxNode } from './parser.js';
import type { Redirect } from './types.js';
import type { Word } from './wrappers.js';
import { REASONS, type WordValue, evaluateAssignment, evaluateWord, isLiteralArithmetic, isPlainExpansion } from './words.js';

export interface RawSegment {
  words: Word[];
  assignments: Word[];
  redirects: Redirect[];
  text: string;
}

export interface WalkResult {
  ok: boolean;
  segments: RawSegment[];
  substitution: boolean;
  background: boolean;
  dynamic: boolean;
  /** Code in values, hidden programs, or a parser disagreement (see CommandAnalysis.opaque). */
  opaque: boolean;
  reasons: Set<string>;
}

const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const TEST_WORDS = new Set([
  'word', 'string', 'raw_string', 'number', 'concatenation', 'simple_expansion', 'expansion', 'command_substitution',
  'process_substitution', 'arithmetic_expansion', 'ansi_c_string', 'translated_string', 'test_operator', 'regex',
  'extglob_pattern',
]);
const ARITH_TEST = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

class Walker {
  readonly r: WalkResult = { ok: true, segments: [], substitution: false, background: false, dynamic: false, opaque: false, reasons: new Set() };

  constructor(private readonly source: string) {}

  opaque(reason: string): void {
    this.r.opaque = true;
    this.r.dynamic = true;
    this.r.reasons.add(reason);
  }

  private note(w: WordValue): Word {
    if (w.dynamic) {
      this.r.dynamic = true;
      for (const reason of w.reasons) this.r.reasons.add(reason);
    }
    if (w.substitution) this.r.substitution = true;
    if (w.unparsed) this.r.ok = false;
    return { value: w.value, dynamic: w.dynamic };
  }

  private push(seg: RawSegment): void {
    this.r.segments.push(seg);
  }

  walk(node: SyntaxNode): void {
    if (node.type === 'ERROR' || node.isMissing) {
      this.r.ok = false;
      this.opaque(REASONS.parser);
      return;
    }
    switch (node.type) {
      case 'command':
        return this.command(node);
      case 'declaration_command':
      case 'unset_command':
        return this.declaration(node);
      case 'test_command':
        return this.test(node);
      case 'variable_assignment':
      case 'variable_assignments':
        return this.assignmentsOnly(node);
      case 'redirected_statement':
        return this.redirected(node);
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect':
        // A redirect with no command (`$(< file)`): a segment of its own, so it is still seen.
        this.push({ words: [], assignments: [], redirects: this.redirects(node), text: node.text });
        return this.inRedirect(node);
      case 'command_substitution':
      case 'process_substitution':
        this.r.substitution = true;
        this.flag(REASONS.substitution);
        return this.children(node);
      case 'arithmetic_expansion':
        this.flag(REASONS.arithmetic);
        if (!isLiteralArithmetic(node.text)) this.opaque(REASONS.code);
        return this.children(node);
      case 'simple_expansion':
      case 'expansion':
        this.flag(REASONS.variable);
        // ${x=…}, ${x:=…}, ${y@P}, ${!x}, ${a[x]}, ${x:1:2}, ${x/…/…}: they assign, index, evaluate or transform.
        if (!isPlainExpansion(node.text)) this.opaque(REASONS.code);
        return this.children(node);
      case 'subscript':
      case 'c_style_for_statement':
      case 'arithmetic_command':
        this.opaque(REASONS.code);
        return this.children(node);
      case 'compound_statement':
        if (node.firstChild?.type === '((') {
          this.flag(REASONS.arithmetic);
          if (!isLiteralArithmetic(node.text)) this.opaque(REASONS.code);
        }
        return this.children(node);
      case 'heredoc_body':
        return this.heredocBody(node);
      case '&':
        this.r.background = true;
        return;
      default:
        return this.children(node);
    }
  }

  private flag(reason: string): void {
    this.r.dynamic = true;
    this.r.reasons.add(reason);
  }

  private children(node: SyntaxNode): void {
    for (const c of node.children) this.walk(c);
  }

  private command(node: SyntaxNode): void {
    if (joinsLines(node)) this.r.ok = false;
    const seg: RawSegment = { words: [], assignments: [], redirects: [], text: node.text };
    for (const c of node.children) {
      if (c.type === 'variable_assignment') seg.assignments.push(this.note(evaluateAssignment(c)));
      else if (REDIRECTS.has(c.type)) seg.redirects.push(...this.redirects(c));
      else if (c.type === 'command_name') {
        const inner = c.namedChildren.length === 1 ? (c.namedChildren[0] as SyntaxNode) : c;
        seg.words.push(this.note(evaluateWord(inner)));
      } else if (c.isNamed && c.type !== 'comment') seg.words.push(this.note(evaluateWord(c)));
    }
    this.push(seg);
    // Commands nested in the words (substitutions) and in redirect targets come after this one.
    this.nested(node);
  }

  /** Walks inside each child of a command-like node without treating the child itself as a statement. */
  private nested(node: SyntaxNode): void {
    for (const c of node.children) {
      if (REDIRECTS.has(c.type)) this.inRedirect(c);
      // The words themselves are walked too: an expansion or arithmetic as a whole word must be seen.
      else if (c.type === 'variable_assignment' || c.type === 'variable_name' || !c.isNamed) this.children(c);
      else this.walk(c);
    }
  }

  /** Commands and substitutions inside a redirect that was already recorded (nested redirects too). */
  private inRedirect(node: SyntaxNode): void {
    for (const c of node.children) {
      if (REDIRECTS.has(c.type)) this.inRedirect(c);
      else this.walk(c);
    }
  }

  private declaration(node: SyntaxNode): void {
    if (joinsLines(node)) this.r.ok = false;
    // declare/typeset/local/readonly/export with a value or an option (-i makes later assignments arithmetic,
    // -n makes names references), and unset of a subscript, evaluate code in values.
    const kw = node.firstChild?.type ?? '';
    for (const c of node.namedChildren) {
      if (kw === 'unset') {
        if (c.text.includes('[')) this.opaque(REASONS.code);
      } else if (c.type === 'variable_assignment' || (c.type !== 'variable_name' && !['-p', '-f', '-F'].includes(c.text))) this.opaque(REASONS.code);
    }
    const seg: RawSegment = { words: [], assignments: [], redirects: [], text: node.text };
    for (const c of node.children) {
      if (!c.isNamed) seg.words.push({ value: c.type, dynamic: false });
      else if (c.type === 'variable_assignment') seg.words.push(this.note(evaluateAssignment(c)));
      else if (c.type === 'variable_name') seg.words.push({ value: c.text, dynamic: false });
      else if (REDIRECTS.has(c.type)) seg.redirects.push(...this.redirects(c));
      else seg.words.push(this.note(evaluateWord(c)));
    }
    this.push(seg);
    this.nested(node);
  }

  private test(node: SyntaxNode): void {
    const words: Word[] = [];
    const collect = (n: SyntaxNode): void => {
      if (TEST_WORDS.has(n.type) || n.childCount === 0) {
        words.push(n.isNamed ? this.note(evaluateWord(n)) : { value: n.type, dynamic: false });
        return;
      }
      for (const c of n.children) collect(c);
    };
    collect(node);
    const isDouble = node.firstChild?.type === '[[';
    // [[ ]] evaluates the operands of -eq & co. as arithmetic, and array subscripts in arithmetic (and in
    // -v/-R names) run command substitutions: `[[ 'a[$(rm x)]' -eq 1 ]]` runs rm. Plain numbers are safe.
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as Word;
      if (w.dynamic) continue;
      if (isDouble && ARITH_TEST.has(w.value)) {
        // A dynamic operand (`$x`) is not a plain number either: its value is evaluated as arithmetic.
        for (const operand of [words[i - 1], words[i + 1]]) {
          if (!operand || operand.dynamic || !/^-?\d+$/.test(operand.value)) {
            this.flag(REASONS.arithmetic);
            this.opaque(REASONS.code);
          }
        }
      }
      if ((w.value === '-v' || w.value === '-R') && (words[i + 1]?.dynamic || words[i + 1]?.value.includes('['))) {
        this.flag(REASONS.arithmetic);
        this.opaque(REASONS.code);
      }
    }
    this.push({ words, assignments: [], redirects: [], text: node.text });
    this.children(node);
  }

  private assignmentsOnly(node: SyntaxNode): void {
    const nodes = node.type === 'variable_assignment' ? [node] : node.namedChildren.filter((c) => c.type === 'variable_assignment');
    this.push({ words: [], assignments: nodes.map((n) => this.note(evaluateAssignment(n))), redirects: [], text: node.text });
    for (const n of nodes) this.children(n);
  }

  private redirected(node: SyntaxNode): void {
    const body = node.childForFieldName('body');
    const start = this.r.segments.length;
    if (body) this.walk(body);
    const redirects: Redirect[] = [];
    for (const c of node.children) if (REDIRECTS.has(c.type)) redirects.push(...this.redirects(c));
    // The redirects apply to everything the body runs (`{ a; b; } > f`).
    const end = this.r.segments.length;
    if (end === start) this.push({ words: [], assignments: [], redirects, text: node.text });
    else for (let i = start; i < end; i++) (this.r.segments[i] as RawSegment).redirects.push(...redirects);
    for (const c of node.children) {
      if (c.id === body?.id) continue;
      if (REDIRECTS.has(c.type)) this.inRedirect(c);
      else this.walk(c);
    }
  }

  /**
   * Heredocs are where tree-sitter and bash are known to disagree: a delimiter with partial quoting
   * (`<<E'O'F`), an escaped or odd delimiter, or an end line bash would not accept. Only plain delimiters
   * (`EOF`, `'EOF'`, `"EOF"`) whose body ends exactly where bash ends it are trusted.
   */
  private heredocConsistent(node: SyntaxNode): void {
    const start = node.children.find((c) => c.type === 'heredoc_start');
    if (!start) return;
    const m = /^(?:([A-Za-z0-9_.-]+)|'([A-Za-z0-9_.-]+)'|"([A-Za-z0-9_.-]+)")$/.exec(start.text);
    const fail = (): void => {
      this.r.ok = false;
      this.opaque(REASONS.parser);
    };
    if (!m) return fail();
    const delimiter = (m[1] ?? m[2] ?? m[3]) as string;
    const stripTabs = node.children.some((c) => !c.isNamed && c.type === '<<-');
    const end = node.children.find((c) => c.type === 'heredoc_end');
    const body = node.children.find((c) => c.type === 'heredoc_body');
    const norm = (line: string): string => (stripTabs ? line.replace(/^\t+/, '') : line);
    if (!end || norm(end.text) !== delimiter) return fail();
    const lineStart = this.source.lastIndexOf('\n', end.startIndex - 1) + 1;
    const before = this.source.slice(lineStart, end.startIndex);
    if (before !== '' && !(stripTabs && /^\t+$/.test(before))) return fail();
    if (end.endIndex !== this.source.length && this.source[end.endIndex] !== '\n') return fail();
    // bash ends the body at the first line equal to the delimiter: none may come earlier.
    if (body) {
      const bodyStart = this.source.lastIndexOf('\n', body.startIndex - 1) + 1;
      const lines = this.source.slice(bodyStart, lineStart).split('\n');
      // The first line is the rest of the line holding `<<`, unless the body starts on a line of its own.
      const from = bodyStart === body.startIndex ? 0 : 1;
      if (lines.slice(from, -1).some((line) => norm(line) === delimiter)) return fail();
    }
  }

  private heredocBody(node: SyntaxNode): void {
    // The grammar does not parse backticks in heredoc bodies; bash runs them when the delimiter is unquoted.
    const start = node.parent?.children.find((c) => c.type === 'heredoc_start');
    const quoted = start ? /['"\\]/.test(start.text) : false;
    if (!quoted && node.text.includes('`')) {
      this.r.ok = false;
      this.r.substitution = true;
      this.flag(REASONS.substitution);
    }
    this.children(node);
  }

  /** The redirects of one redirect node (a heredoc node may carry more, nested). */
  private redirects(node: SyntaxNode): Redirect[] {
    if (node.type === 'heredoc_redirect') {
      this.heredocConsistent(node);
      const start = node.children.find((c) => c.type === 'heredoc_start');
      const delimiter = start ? start.text.replace(/['"\\]/g, '') : null;
      const op = node.children.find((c) => !c.isNamed)?.type ?? '<<';
      const nested = node.children.filter((c) => c.type === 'file_redirect' || c.type === 'herestring_redirect');
      return [{ op, fd: null, target: delimiter, kind: 'heredoc' }, ...nested.flatMap((c) => this.redirects(c))];
    }
    const fdNode = node.childForFieldName('descriptor');
    const fd = fdNode && /^\d+$/.test(fdNode.text) ? Number(fdNode.text) : null;
    const op = node.children.find((c) => !c.isNamed)?.type ?? '';
    const values = node.namedChildren.filter((c) => c.id !== fdNode?.id).map((d) => this.note(evaluateWord(d)));
    const only = values.length === 1 ? values[0] : undefined;
    const target = only && !only.dynamic ? only.value : null;
    if (node.type === 'herestring_redirect') return [{ op: '<<<', fd, target, kind: 'herestring' }];
    if (op.endsWith('&-') || ((op === '>&' || op === '<&') && target !== null && /^(\d+|-)$/.test(target))) {
      return [{ op, fd, target: target ?? '-', kind: 'dup' }];
    }
    return [{ op, fd, target, kind: op.startsWith('<') ? 'read' : 'write' }];
  }
}

/**
 * True when a newline separates two parts of one simple command. Bash ends a simple command at an unescaped
 * newline, so the grammar has joined two commands into one, and the tree cannot be trusted. It happens:
 * `a | b | c⏎rm x && d` comes back with `c rm x` as one command, which would hide rm as an argument.
 */
function joinsLines(node: SyntaxNode): boolean {
  const parts = node.children;
  for (let i = 1; i < parts.length; i++) {
    const gap = node.text.slice((parts[i - 1] as SyntaxNode).endIndex - node.startIndex, (parts[i] as SyntaxNode).startIndex - node.startIndex);
    if (gap.replace(/\\\n/g, '').includes('\n')) return true;
  }
  return false;
}

export function walkProgram(root: SyntaxNode, source: string): WalkResult {
  const w = new Walker(source);
  if (root.hasError) {
    w.r.ok = false;
    w.opaque(REASONS.parser);
  }
  w.walk(root);
  return w.r;
}
