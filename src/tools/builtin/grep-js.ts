// Grep's pure-JS engine, used when ripgrep is not on PATH. It mirrors rg's output formats (path:line:text,
// path-line-text for context, `--` between groups, rg's sort-by-path order) so results read the same from both
// engines. Known differences: only the search root's .gitignore is honoured (not nested ones or git's global
// excludes), file types come from a built-in table, and regexes are JavaScript's, not Rust's.
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import picomatch from 'picomatch';
import { glob } from 'tinyglobby';
import type { GrepEngineResult, GrepQuery } from './grep-query.js';
import { comparePaths } from './grep-query.js';

const MAX_FILE_BYTES = 20 * 1024 * 1024;
const MAX_COLUMNS = 500;
const VCS_IGNORES = ['**/.git/**', '**/.svn/**', '**/.hg/**'];

/** A subset of `rg --type-list`: the common languages. */
const TYPES: Record<string, string[]> = {
  c: ['c', 'h'],
  cpp: ['cpp', 'cc', 'cxx', 'hpp', 'hh', 'hxx', 'h', 'inl'],
  cs: ['cs'],
  css: ['css', 'scss', 'sass', 'less'],
  go: ['go'],
  html: ['html', 'htm', 'xhtml'],
  java: ['java'],
  js: ['js', 'jsx', 'mjs', 'cjs', 'vue'],
  json: ['json', 'jsonl', 'json5'],
  kotlin: ['kt', 'kts'],
  lua: ['lua'],
  md: ['md', 'markdown', 'mdx', 'mkd'],
  markdown: ['md', 'markdown', 'mdx', 'mkd'],
  php: ['php', 'phtml'],
  py: ['py', 'pyi'],
  python: ['py', 'pyi'],
  rb: ['rb', 'gemspec', 'rake'],
  ruby: ['rb', 'gemspec', 'rake'],
  rust: ['rs'],
  scala: ['scala', 'sc'],
  sh: ['sh', 'bash', 'zsh', 'ksh'],
  sql: ['sql'],
  swift: ['swift'],
  toml: ['toml'],
  ts: ['ts', 'tsx', 'mts', 'cts'],
  typescript: ['ts', 'tsx', 'mts', 'cts'],
  txt: ['txt'],
  xml: ['xml', 'xsd', 'xsl', 'svg'],
  yaml: ['yaml', 'yml'],
};

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

async function insideGitRepo(dir: string): Promise<boolean> {
  for (let d = dir; ; d = dirname(d)) {
    if (await exists(join(d, '.git'))) return true;
    if (dirname(d) === d) return false;
  }
}

/** .gitignore lines → tinyglobby ignore globs (negations cannot be expressed and are dropped). */
export function gitignoreToGlobs(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('!')) continue;
    const dirOnly = line.endsWith('/');
    line = line.replace(/\/+$/, '');
    const anchored = line.includes('/');
    line = line.replace(/^\//, '');
    const base = anchored ? line : `**/${line}`;
    if (!dirOnly) out.push(base);
    out.push(`${base}/**`);
  }
  return out;
}

async function listFiles(q: GrepQuery, signal: AbortSignal): Promise<string[]> {
  if (q.rootIsFile) return [q.root];
  const ignore = [...VCS_IGNORES];
  if (await insideGitRepo(q.root)) {
    const gi = await readFile(join(q.root, '.gitignore'), 'utf8').catch(() => '');
    ignore.push(...gitignoreToGlobs(gi));
  }
  const files = await glob('**/*', { cwd: q.root, absolute: true, dot: true, onlyFiles: true, followSymbolicLinks: false, ignore, signal });
  const includes = q.globs.filter((g) => !g.startsWith('!'));
  const excludes = q.globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  // rg: a glob without a slash matches a file name (or, for excludes, any directory name) at any depth.
  const matcher = (g: string): ((rel: string) => boolean) => {
    const m = picomatch(g, { dot: true });
    return g.includes('/') ? (rel) => m(rel) : (rel) => m(rel.slice(rel.lastIndexOf('/') + 1));
  };
  const inc = includes.map(matcher);
  const exc = excludes.map((g) => {
    const m = picomatch(g, { dot: true });
    return g.includes('/') ? (rel: string) => m(rel) || rel.split('/').some((_, i, parts) => m(parts.slice(0, i + 1).join('/'))) : (rel: string) => rel.split('/').some((seg) => m(seg));
  });
  let exts: Set<string> | undefined;
  if (q.type !== undefined) {
    const list = TYPES[q.type];
    if (!list) throw new Error(`unrecognized file type: ${q.type} (the built-in search knows: ${Object.keys(TYPES).join(', ')})`);
    exts = new Set(list);
  }
  return files
    .filter((f) => {
      const rel = relative(q.root, f).split('\\').join('/');
      if (inc.length > 0 && !inc.some((m) => m(rel))) return false;
      if (exc.some((m) => m(rel))) return false;
      if (exts) {
        const dot = f.lastIndexOf('.');
        if (dot === -1 || !exts.has(f.slice(dot + 1).toLowerCase())) return false;
      }
      return true;
    })
    .sort(comparePaths);
}

interface FileMatches {
  lines: string[];
  /** Line index → number of matches on it. */
  hits: Map<number, number>;
  /** -o: each match's line index and text, in order. */
  parts: Array<{ line: number; text: string }>;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

function search(text: string, re: RegExp, q: GrepQuery): FileMatches {
  const lines = splitLines(text);
  const hits = new Map<number, number>();
  const parts: Array<{ line: number; text: string }> = [];
  if (!q.multiline) {
    lines.forEach((line, i) => {
      let n = 0;
      for (const m of line.matchAll(re)) {
        if (m[0] === '' && n > 0) continue;
        n++;
        if (m[0] !== '') parts.push({ line: i, text: m[0] });
      }
      if (n > 0) hits.set(i, n);
    });
    return { lines, hits, parts };
  }
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (off: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= off) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  for (const m of text.matchAll(re)) {
    if (m[0] === '') continue;
    const a = lineOf(m.index);
    const b = Math.min(lineOf(m.index + m[0].length - 1), lines.length - 1);
    parts.push({ line: a, text: m[0] });
    for (let i = a; i <= b; i++) hits.set(i, (hits.get(i) ?? 0) + (i === a ? 1 : 0));
  }
  return { lines, hits, parts };
}

function renderContent(file: string | undefined, fm: FileMatches, q: GrepQuery, out: string[], state: { printed: boolean }): void {
  const prefix = (sep: string, i: number): string => `${file !== undefined ? `${file}${sep}` : ''}${q.lineNumbers ? `${i + 1}${sep}` : ''}`;
  if (q.onlyMatching) {
    for (const p of fm.parts) out.push(`${prefix(':', p.line)}${p.text}`);
    return;
  }
  const context = q.before > 0 || q.after > 0;
  const matchLines = [...fm.hits.keys()].sort((a, b) => a - b);
  let last = -1; // last printed line index in this file
  for (const m of matchLines) {
    const from = Math.max(m - q.before, last + 1);
    if (from > m) continue;
    if (context && state.printed && (last === -1 || from > last + 1)) out.push('--');
    const to = Math.min(m + q.after, fm.lines.length - 1);
    for (let i = from; i <= to; i++) {
      // A later match inside this window starts its own window (so its after-context is printed too).
      if (i > m && fm.hits.has(i)) break;
      const isMatch = i === m || fm.hits.has(i);
      const text = fm.lines[i] ?? '';
      const shown = text.length > MAX_COLUMNS ? (isMatch ? '[Omitted long matching line]' : '[Omitted long context line]') : text;
      out.push(`${prefix(isMatch ? ':' : '-', i)}${shown}`);
      last = i;
      state.printed = true;
    }
  }
}

export function compileRegex(q: Pick<GrepQuery, 'pattern' | 'ignoreCase' | 'multiline'>): RegExp {
  try {
    return new RegExp(q.pattern, `gm${q.ignoreCase ? 'i' : ''}${q.multiline ? 's' : ''}`);
  } catch (e) {
    throw new Error(`regex parse error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function searchWithJs(q: GrepQuery, signal: AbortSignal): Promise<GrepEngineResult> {
  const re = compileRegex(q);
  signal.throwIfAborted();
  const files = await listFiles(q, signal);
  // tinyglobby returns what it has when aborted; an aborted search must not look like a complete one.
  signal.throwIfAborted();
  const result: GrepEngineResult = { files: [], counts: [], lines: [] };
  const state = { printed: false };
  const BATCH = 16;
  for (let i = 0; i < files.length; i += BATCH) {
    signal.throwIfAborted();
    const batch = files.slice(i, i + BATCH);
    const found = await Promise.all(
      batch.map(async (f) => {
        const buf = await readFile(f, { signal }).catch((e: unknown) => {
          if (signal.aborted) throw e;
          return undefined; // unreadable (permissions, vanished): skipped, as rg does after a warning
        });
        if (!buf || buf.length > MAX_FILE_BYTES) return undefined;
        // Binary files are skipped when walking a directory (rg's default); an explicit file is searched.
        if (!q.rootIsFile && buf.subarray(0, 8192).includes(0)) return undefined;
        return search(buf.toString('utf8'), re, q);
      }),
    );
    found.forEach((fm, j) => {
      const file = batch[j] as string;
      if (!fm || fm.hits.size === 0) return;
      result.files.push(file);
      result.counts.push({ file, count: fm.hits.size });
      if (q.mode === 'content') renderContent(q.rootIsFile ? undefined : file, fm, q, result.lines, state);
    });
  }
  return result;
}
