// Grep: ripgrep (the one agentd ships, or a system rg: tools/ripgrep.ts chooses; run by rg-run.ts), a pure-JS engine
// when there is none (grep-js.ts). Both produce the same formats; the output says which one ran (`engine`), since their
// regex dialects and ignore handling differ at the edges.
// Results are paginated like `| tail -n +offset | head -n limit` (250 by default) to protect the context.
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import * as z from 'zod/mini';
import type { Tool, ToolCallContext, ToolOutcome } from '../tool.js';
import { statIfExists } from './file-common.js';
import { byMtimeDesc, mtimes } from './glob.js';
import { compileRegex, searchWithJs } from './grep-js.js';
import { runRg } from './rg-run.js';
import { findRipgrep } from '../ripgrep.js';
import { type GrepEngineResult, type GrepMode, type GrepQuery, comparePaths, splitGlobs } from './grep-query.js';

export const GREP_DEFAULT_HEAD_LIMIT = 250;
const RG_MAX_BUFFER = 64 * 1024 * 1024;

const num = (d: string) => z.optional(z.int().check(z.minimum(0), z.describe(d)));

export const GrepInput = z.lazy(() => z.strictObject({
  pattern: z.string().check(z.describe('The regular expression pattern to search for in file contents')),
  path: z.optional(z.string().check(z.describe('File or directory to search in (rg PATH). Defaults to current working directory.'))),
  glob: z.optional(z.string().check(z.describe('Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'))),
  output_mode: z.optional(
    z.enum(['content', 'files_with_matches', 'count']).check(
      z.describe(
        'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".',
      ),
    ),
  ),
  '-B': num('Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored otherwise.'),
  '-A': num('Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored otherwise.'),
  '-C': num('Alias for context.'),
  context: num('Number of lines to show before and after each match (rg -C). Requires output_mode: "content", ignored otherwise.'),
  '-n': z.optional(z.boolean().check(z.describe('Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. Defaults to true.'))),
  '-i': z.optional(z.boolean().check(z.describe('Case insensitive search (rg -i)'))),
  '-o': z.optional(z.boolean().check(z.describe('Print only the matched parts of each matching line (rg -o). Requires output_mode: "content".'))),
  type: z.optional(z.string().check(z.describe('File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types.'))),
  head_limit: num(`Limit output to first N lines/entries, equivalent to "| head -N". Defaults to ${GREP_DEFAULT_HEAD_LIMIT}; pass 0 for unlimited (use sparingly).`),
  offset: num('Skip first N lines/entries before applying head_limit, equivalent to "| tail -n +N | head -N". Defaults to 0.'),
  multiline: z.optional(z.boolean().check(z.describe('Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.'))),
}));
export type GrepInput = z.infer<typeof GrepInput>;

export interface GrepOutput {
  mode: GrepMode;
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  numMatches?: number;
  appliedLimit?: number;
  appliedOffset?: number;
  timedOut?: boolean;
  /** agentd extension: which engine answered ('js' = the built-in fallback, used when there is no ripgrep at all). */
  engine: 'ripgrep' | 'js';
}

const DESCRIPTION = `A powerful search tool built on ripgrep.

- Supports full regex syntax (e.g. "log.*Error", "function\\s+\\w+"). Literal braces need escaping ("interface\\{\\}").
- Filter files with glob (e.g. "*.js", "**/*.tsx") or type (e.g. "js", "py", "rust").
- output_mode: "files_with_matches" (default, newest files first), "content" (matching lines, with -A/-B/-C context and -n line numbers), "count" (matches per file).
- Patterns match within single lines; set multiline: true for patterns that span lines.
- Results are limited to ${GREP_DEFAULT_HEAD_LIMIT} lines/entries by default; use head_limit and offset to page.`;

export interface GrepToolOptions {
  /** Use the JS engine even when rg is available (tests; environments where rg misbehaves). */
  forceFallback?: boolean;
  /** Path of rg, skipping the lookup (tests). */
  rgPath?: string;
  /** USE_BUILTIN_RIPGREP is falsy: an rg on PATH before the shipped one (tools/ripgrep.ts). */
  preferSystemRipgrep?: boolean;
  /** Stop rg after this long and return what it found (timedOut: true). */
  timeoutMs?: number;
}

function rgArgs(q: GrepQuery): string[] {
  const args = ['--no-config', '--hidden', '--color=never', '--max-columns', '500'];
  for (const vcs of ['.git', '.svn', '.hg']) args.push('--glob', `!${vcs}`);
  if (q.multiline) args.push('-U', '--multiline-dotall');
  if (q.ignoreCase) args.push('-i');
  if (q.type !== undefined) args.push('--type', q.type);
  for (const g of q.globs) args.push('--glob', g);
  if (q.mode === 'files_with_matches') args.push('-l');
  else if (q.mode === 'count') args.push('-c', '--with-filename', '--sort=path');
  else {
    // Sorted output costs rg its parallelism but makes offset/head_limit pages stable between calls.
    args.push('--sort=path');
    if (q.lineNumbers) args.push('-n');
    if (q.onlyMatching) args.push('-o');
    if (q.before > 0) args.push('-B', String(q.before));
    if (q.after > 0) args.push('-A', String(q.after));
  }
  args.push('-e', q.pattern, '--', q.root);
  return args;
}

async function searchWithRg(rg: string, q: GrepQuery, ctx: ToolCallContext, timeoutMs: number): Promise<GrepEngineResult> {
  const r = await runRg(rg, rgArgs(q), {
    // rg matches globs containing a slash against paths relative to its cwd: make that the search root.
    cwd: q.rootIsFile ? dirname(q.root) : q.root,
    env: ctx.env,
    signal: ctx.signal,
    timeoutMs,
    maxBytes: RG_MAX_BUFFER,
  });
  const incomplete = r.timedOut ? 'timeout' : r.capped ? 'output_cap' : undefined;
  const stdout = r.stdout;
  // Exit 1 = no match. Exit 2 = an error; with output it was a partial one (an unreadable file), keep the rest.
  if (r.code === 2 && stdout === '' && !incomplete) throw new Error(r.stderr.trim() || 'ripgrep failed');
  if (r.code !== 0 && r.code !== 1 && r.code !== 2 && !incomplete) throw new Error(`ripgrep failed (exit ${r.code ?? 'by signal'}): ${r.stderr.trim()}`);
  const lines = stdout.split('\n');
  // The last element is '' after a final newline, or a cut line when the output was capped.
  lines.pop();
  const result: GrepEngineResult = { files: [], counts: [], lines: [], ...(incomplete ? { incomplete } : {}) };
  if (q.mode === 'files_with_matches') result.files = lines;
  else if (q.mode === 'count') {
    for (const l of lines) {
      const at = l.lastIndexOf(':');
      if (at > 0) result.counts.push({ file: l.slice(0, at), count: Number(l.slice(at + 1)) });
    }
  } else result.lines = lines;
  return result;
}

function paginate<T>(items: readonly T[], headLimit: number | undefined, offset: number | undefined): { shown: T[]; appliedLimit?: number; appliedOffset?: number } {
  const limit = headLimit ?? GREP_DEFAULT_HEAD_LIMIT;
  const off = offset ?? 0;
  const rest = items.slice(off);
  const cut = limit > 0 && rest.length > limit;
  return { shown: cut ? rest.slice(0, limit) : rest, ...(cut ? { appliedLimit: limit } : {}), ...(off > 0 ? { appliedOffset: off } : {}) };
}

function paginationNote(o: { appliedLimit?: number; appliedOffset?: number }): string {
  const parts: string[] = [];
  if (o.appliedLimit !== undefined) parts.push(`limit: ${o.appliedLimit}`);
  if (o.appliedOffset !== undefined) parts.push(`offset: ${o.appliedOffset}`);
  return parts.length > 0 ? `[Showing results with pagination = ${parts.join(', ')}]` : '';
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function incompleteNote(r: GrepEngineResult): string {
  if (r.incomplete === 'timeout') return '\n(The search hit its time limit; there may be more results. Narrow the path, glob or type.)';
  if (r.incomplete === 'output_cap') return '\n(The search output hit its size cap; there may be more results. Narrow the pattern, path, glob or type.)';
  return '';
}

async function present(q: GrepQuery, input: GrepInput, r: GrepEngineResult, engine: GrepOutput['engine'], signal: AbortSignal): Promise<ToolOutcome<GrepOutput>> {
  const timedOut = r.incomplete === 'timeout' ? { timedOut: true } : {};
  const tail = incompleteNote(r);
  if (q.mode === 'files_with_matches') {
    const times = await mtimes(r.files, signal);
    const sorted = [...r.files].sort(byMtimeDesc(times));
    const p = paginate(sorted, input.head_limit, input.offset);
    const data: GrepOutput = { mode: q.mode, numFiles: p.shown.length, filenames: p.shown, ...pick(p), ...timedOut, engine };
    if (p.shown.length === 0) return { data, content: `No files found${tail}` };
    const note = paginationNote(p);
    return { data, content: `Found ${plural(p.shown.length, 'file')}${note ? ` ${note}` : ''}\n${p.shown.join('\n')}${tail}` };
  }
  if (q.mode === 'count') {
    const sorted = [...r.counts].sort((a, b) => comparePaths(a.file, b.file));
    const p = paginate(sorted, input.head_limit, input.offset);
    const numMatches = p.shown.reduce((n, c) => n + c.count, 0);
    const content = p.shown.map((c) => `${c.file}:${c.count}`).join('\n');
    const data: GrepOutput = { mode: q.mode, numFiles: p.shown.length, filenames: [], content, numMatches, ...pick(p), ...timedOut, engine };
    if (p.shown.length === 0) return { data, content: `No matches found${tail}` };
    const note = paginationNote(p);
    return {
      data,
      content: `${content}\n\nFound ${numMatches} total ${numMatches === 1 ? 'occurrence' : 'occurrences'} across ${plural(p.shown.length, 'file')}.${note ? ` ${note}` : ''}${tail}`,
    };
  }
  const p = paginate(r.lines, input.head_limit, input.offset);
  const content = p.shown.join('\n');
  const data: GrepOutput = { mode: q.mode, numFiles: 0, filenames: [], content, numLines: p.shown.length, ...pick(p), ...timedOut, engine };
  if (p.shown.length === 0) return { data, content: `No matches found${tail}` };
  const note = paginationNote(p);
  return { data, content: `${content}${note ? `\n\n${note}` : ''}${tail}` };
}

function pick(p: { appliedLimit?: number; appliedOffset?: number }): { appliedLimit?: number; appliedOffset?: number } {
  return { ...(p.appliedLimit !== undefined ? { appliedLimit: p.appliedLimit } : {}), ...(p.appliedOffset !== undefined ? { appliedOffset: p.appliedOffset } : {}) };
}

function searchRoot(input: GrepInput, cwd: string): string {
  if (input.path === undefined) return cwd;
  return isAbsolute(input.path) ? input.path : resolve(cwd, input.path);
}

export function createGrepTool(opts: GrepToolOptions = {}): Tool<GrepInput, GrepOutput> {
  let rgLookup: Promise<string | undefined> | undefined;
  const findRg = (ctx: ToolCallContext): Promise<string | undefined> => {
    if (opts.forceFallback) return Promise.resolve(undefined);
    if (opts.rgPath !== undefined) return Promise.resolve(opts.rgPath);
    rgLookup ??= findRipgrep({ preferSystem: opts.preferSystemRipgrep === true, path: ctx.env.childEnv['PATH'] }).then((rg) => rg?.command);
    return rgLookup;
  };
  return {
    name: 'Grep',
    description: DESCRIPTION,
    inputSchema: GrepInput,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    permissionSubject: (input, shared) => ({ kind: 'read', path: searchRoot(input, shared.cwd) }),
    async validateInput(input, { shared }) {
      const root = searchRoot(input, shared.cwd);
      if (!(await statIfExists(root))) return { ok: false, message: `Path does not exist: ${root}. Note: your current working directory is ${shared.cwd}.` };
      return { ok: true };
    },
    async call(input, ctx) {
      ctx.signal.throwIfAborted();
      const root = searchRoot(input, ctx.shared.cwd);
      const st = await stat(root);
      const mode = input.output_mode ?? 'files_with_matches';
      const ctxLines = input.context ?? input['-C'] ?? 0;
      const q: GrepQuery = {
        pattern: input.pattern,
        root,
        rootIsFile: !st.isDirectory(),
        globs: splitGlobs(input.glob),
        ...(input.type !== undefined ? { type: input.type } : {}),
        mode,
        before: input['-B'] ?? ctxLines,
        after: input['-A'] ?? ctxLines,
        lineNumbers: input['-n'] ?? true,
        ignoreCase: input['-i'] ?? false,
        onlyMatching: input['-o'] ?? false,
        multiline: input.multiline ?? false,
      };
      const rg = await findRg(ctx);
      if (rg) return present(q, input, await searchWithRg(rg, q, ctx, opts.timeoutMs ?? 60_000), 'ripgrep', ctx.signal);
      compileRegex(q); // a bad pattern fails before the walk
      return present(q, input, await searchWithJs(q, ctx.signal), 'js', ctx.signal);
    },
  };
}
