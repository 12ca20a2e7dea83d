// A small line diff producing jsdiff-style `structuredPatch` hunks (the shape Claude Code's Write/Edit outputs
// carry and UIs such as claude-agent-acp render). Myers' O(ND) algorithm after trimming the common prefix and
// suffix; past an edit distance bound it degrades to one replace-everything-in-between hunk (still a correct
// patch, just not minimal) so a pathological diff cannot eat the CPU.
// No `diff` package is installed and this is ~150 lines; not worth a dependency.

export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

type OpKind = ' ' | '-' | '+';
interface Op {
  kind: OpKind;
  line: string;
}

const CONTEXT = 3;
const MAX_EDIT_DISTANCE = 2000;
const NO_NEWLINE = '\\ No newline at end of file';

/** Lines with their terminators, so "a" at EOF and "a\n" differ (as in jsdiff). */
function tokenize(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', start)) {
    out.push(s.slice(start, i + 1));
    start = i + 1;
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}

function myers(a: readonly string[], b: readonly string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d] = v as it was before step d, for k in [-d-1, d+1] (index k + d + 1): O(D²) memory, not O(D·N).
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    if (d > maxD) return undefined;
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[off + k - 1] ?? 0) < (v[off + k + 1] ?? 0));
      let x = down ? (v[off + k + 1] ?? 0) : (v[off + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b);
    }
  }
  return undefined;
}

function backtrack(trace: readonly Int32Array[], a: readonly string[], b: readonly string[]): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d > 0; d--) {
    const t = trace[d] as Int32Array;
    const at = (k: number): number => t[k + d + 1] ?? 0;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: ' ', line: a[x - 1] as string });
      x--;
      y--;
    }
    if (prevK === k + 1) ops.push({ kind: '+', line: b[prevY] as string });
    else ops.push({ kind: '-', line: a[prevX] as string });
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: ' ', line: a[x - 1] as string });
    x--;
    y--;
  }
  return ops.reverse();
}

function diffOps(a: readonly string[], b: readonly string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const midA = a.slice(pre, a.length - suf);
  const midB = b.slice(pre, b.length - suf);
  const mid = myers(midA, midB, MAX_EDIT_DISTANCE) ?? [
    ...midA.map((line): Op => ({ kind: '-', line })),
    ...midB.map((line): Op => ({ kind: '+', line })),
  ];
  return [
    ...a.slice(0, pre).map((line): Op => ({ kind: ' ', line })),
    ...mid,
    ...a.slice(a.length - suf).map((line): Op => ({ kind: ' ', line })),
  ];
}

/** The hunks turning `oldText` into `newText`, with 3 lines of context (jsdiff's structuredPatch). */
export function structuredPatch(oldText: string, newText: string): PatchHunk[] {
  if (oldText === newText) return [];
  const ops = diffOps(tokenize(oldText), tokenize(newText));
  // Line numbers (0-based) before each op.
  const oldNo: number[] = [];
  const newNo: number[] = [];
  let o = 0;
  let n = 0;
  for (const op of ops) {
    oldNo.push(o);
    newNo.push(n);
    if (op.kind !== '+') o++;
    if (op.kind !== '-') n++;
  }
  const changes: number[] = [];
  ops.forEach((op, i) => {
    if (op.kind !== ' ') changes.push(i);
  });
  const hunks: PatchHunk[] = [];
  let idx = 0;
  while (idx < changes.length) {
    const first = changes[idx] as number;
    let last = first;
    // Extend while the next change is close enough that the contexts would touch or overlap.
    while (idx + 1 < changes.length && (changes[idx + 1] as number) - last <= 2 * CONTEXT + 1) {
      idx++;
      last = changes[idx] as number;
    }
    idx++;
    const s = Math.max(0, first - CONTEXT);
    const e = Math.min(ops.length, last + 1 + CONTEXT);
    const lines: string[] = [];
    let oldLines = 0;
    let newLines = 0;
    for (let i = s; i < e; i++) {
      const op = ops[i] as Op;
      if (op.kind !== '+') oldLines++;
      if (op.kind !== '-') newLines++;
      const endsNl = op.line.endsWith('\n');
      lines.push(op.kind + (endsNl ? op.line.slice(0, -1) : op.line));
      if (!endsNl) lines.push(NO_NEWLINE);
    }
    hunks.push({ oldStart: (oldNo[s] ?? o) + 1, oldLines, newStart: (newNo[s] ?? n) + 1, newLines, lines });
  }
  return hunks;
}
