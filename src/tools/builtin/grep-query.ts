// The search both Grep engines run (ripgrep and the JS fallback), and what they hand back before pagination.

export type GrepMode = 'content' | 'files_with_matches' | 'count';

export interface GrepQuery {
  pattern: string;
  /** Absolute path searched. */
  root: string;
  /** rg prints no file names when searching a single file; the fallback does the same. */
  rootIsFile: boolean;
  /** rg --glob values (a leading ! excludes). */
  globs: string[];
  type?: string;
  mode: GrepMode;
  before: number;
  after: number;
  lineNumbers: boolean;
  ignoreCase: boolean;
  onlyMatching: boolean;
  multiline: boolean;
}

export interface GrepEngineResult {
  /** Files with at least one match (files_with_matches). */
  files: string[];
  /** Matching-line counts per file, in rg's path order (count). */
  counts: Array<{ file: string; count: number }>;
  /** Output lines in rg's format (content). */
  lines: string[];
  /** The engine stopped early (time limit or output cap): there may be more. */
  incomplete?: 'timeout' | 'output_cap';
}

/**
 * rg --sort=path order: directory entries sorted by name at each level, so "a/x" comes before "a-b"
 * (plain string order would put "a-b" first, since '-' < '/').
 */
export function comparePaths(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] as string;
    const y = pb[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/**
 * The `glob` parameter as Claude Code splits it: on whitespace, and on commas outside braces, so
 * "*.ts,*.tsx" and "*.{ts,tsx}" both work.
 */
export function splitGlobs(glob: string | undefined): string[] {
  if (glob === undefined) return [];
  const out: string[] = [];
  for (const raw of glob.split(/\s+/).filter(Boolean)) {
    if (raw.includes('{') && raw.includes('}')) out.push(raw);
    else out.push(...raw.split(',').filter(Boolean));
  }
  return out;
}
