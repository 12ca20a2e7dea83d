// The verdict of a program's grammar on its arguments (shared by the read-only tables).
import type { ParseResult } from './options.js';

export type Parsed = Extract<ParseResult, { ok: true }>;

/** What the grammar says about one command: read-only or why not, and what it reads. */
export interface Judgement {
  readOnly: boolean;
  /** Why it is not read-only (for the prompt). */
  why?: string;
  /** Paths the command reads, as written (relative to its working directory). */
  readPaths: string[];
  /** Paths the command writes through its options or operands (`sort -o F`, `uniq IN OUT`, `find -fprint F`). */
  writePaths?: string[];
  /** The grammar understood the whole command line: readPaths is complete as far as words go. */
  known: boolean;
}

export const UNKNOWN = (why: string): Judgement => ({ readOnly: false, why, readPaths: [], known: false });

