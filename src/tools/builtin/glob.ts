// Glob: file paths matching a pattern, newest first (Claude Code's order: recently touched files are the likely
// ones), capped at 100 with `truncated`. Hidden files are included; .git internals are not.
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import * as z from 'zod/mini';
import type { Tool, ToolOutcome } from '../tool.js';
import { statIfExists } from './file-common.js';

export const GLOB_MAX_RESULTS = 100;
const VCS_DIRS = ['**/.git/**', '**/.svn/**', '**/.hg/**'];

export const GlobInput = z.lazy(() => z.strictObject({
  pattern: z.string().check(z.minLength(1), z.describe('The glob pattern to match files against, e.g. "**/*.ts" or "src/**/*.{js,jsx}"')),
  path: z.optional(
    z.string().check(
      z.describe(
        'The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter "undefined" or "null" - simply omit it for the default behavior. Must be a valid directory path if provided.',
      ),
    ),
  ),
}));
export type GlobInput = z.infer<typeof GlobInput>;

export interface GlobOutput {
  durationMs: number;
  numFiles: number;
  filenames: string[];
  truncated: boolean;
  totalMatches: number;
  countIsComplete: boolean;
}

const DESCRIPTION = `Fast file pattern matching that works with any codebase size.

- Supports glob patterns like "**/*.js" or "src/**/*.ts".
- Returns absolute paths of matching files, most recently modified first (at most ${GLOB_MAX_RESULTS}).
- Use it to find files by name; use Grep to search file contents.`;

export interface GlobToolOptions {
  /** Clock for durationMs (tests pass a fake one). */
  now?: () => number;
}

function root(path: string | undefined, cwd: string): string {
  if (path === undefined) return cwd;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** mtimes for many files, a bounded number at a time, aborting between batches. */
export async function mtimes(files: readonly string[], signal: AbortSignal): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const BATCH = 64;
  for (let i = 0; i < files.length; i += BATCH) {
    signal.throwIfAborted();
    await Promise.all(
      files.slice(i, i + BATCH).map(async (f) => {
        // A file deleted since the walk sorts last rather than failing the search.
        out.set(f, await stat(f).then((s) => s.mtimeMs, () => 0));
      }),
    );
  }
  return out;
}

/** Newest first; equal mtimes by path, so the order is deterministic. */
export function byMtimeDesc(times: ReadonlyMap<string, number>): (a: string, b: string) => number {
  return (a, b) => (times.get(b) ?? 0) - (times.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
}

export function createGlobTool(opts: GlobToolOptions = {}): Tool<GlobInput, GlobOutput> {
  const now = opts.now ?? Date.now;
  return {
    name: 'Glob',
    description: DESCRIPTION,
    inputSchema: GlobInput,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    // Judged by the directory the pattern really starts from: `../x/**` or `link/*` reach beyond `path`.
    permissionSubject: (input, shared) => ({ kind: 'read', path: patternBase(input.pattern, root(input.path, shared.cwd)) }),
    async validateInput(input, { shared }) {
      // The permission check judges `path`; a pattern that leaves it would search somewhere nobody approved.
      if (isAbsolute(input.pattern) || input.pattern.startsWith('~') || input.pattern.split('/').includes('..')) {
        return { ok: false, message: 'The pattern must stay inside the search directory (no absolute paths, "~" or ".."). To search elsewhere, set the path parameter.' };
      }
      const dir = root(input.path, shared.cwd);
      const st = await statIfExists(dir);
      if (!st) return { ok: false, message: `Directory does not exist: ${dir}` };
      if (!st.isDirectory()) return { ok: false, message: `Path is not a directory: ${dir}` };
      return { ok: true };
    },
    async call(input, ctx): Promise<ToolOutcome<GlobOutput>> {
      const started = now();
      const cwd = root(input.path, ctx.shared.cwd);
      const found = await glob(input.pattern, {
        cwd,
        absolute: true,
        dot: true,
        onlyFiles: true,
        followSymbolicLinks: false,
        expandDirectories: false,
        ignore: VCS_DIRS,
        signal: ctx.signal,
      });
      ctx.signal.throwIfAborted();
      // A pattern may name a symlinked directory (`link/*`): keep only files that really are inside the root.
      const realRoot = await realpath(cwd).catch(() => cwd);
      const inside = (await Promise.all(found.map(async (f) => ((await realpath(f).catch(() => f)) + '/').startsWith(`${realRoot}/`) ? f : undefined))).filter((f): f is string => f !== undefined);
      found.length = 0;
      found.push(...inside);
      const times = await mtimes(found, ctx.signal);
      const sorted = [...found].sort(byMtimeDesc(times));
      const filenames = sorted.slice(0, GLOB_MAX_RESULTS);
      const truncated = sorted.length > GLOB_MAX_RESULTS;
      const data: GlobOutput = {
        durationMs: now() - started,
        numFiles: filenames.length,
        filenames,
        truncated,
        totalMatches: sorted.length,
        countIsComplete: true,
      };
      if (filenames.length === 0) return { data, content: 'No files found' };
      const more = truncated
        ? `\n(Results are truncated: showing the ${GLOB_MAX_RESULTS} most recently modified of ${sorted.length} files. Consider using a more specific path or pattern.)`
        : '';
      return { data, content: filenames.join('\n') + more };
    },
  };
}

/** The fixed leading directories of a pattern, resolved against the search root. */
function patternBase(pattern: string, searchRoot: string): string {
  const fixed: string[] = [];
  for (const part of pattern.split('/')) {
    if (/[*?[\]{}!]/.test(part)) break;
    fixed.push(part);
  }
  // The last fixed component may be a file name (`src/a.ts`); its directory is what gets listed.
  if (fixed.length === pattern.split('/').length) fixed.pop();
  const base = fixed.join('/');
  if (base === '') return isAbsolute(pattern) ? '/' : searchRoot;
  return isAbsolute(base) ? base : resolve(searchRoot, base);
}
