// A project file agentd could not use as it stands: reported once (a stderr line naming the file and a
// `system/informational` warning frame) and skipped or cut, never fatal.

export type ProblemKind =
  | 'too_large'
  | 'binary'
  | 'unreadable'
  | 'import_loop'
  | 'import_outside'
  | 'import_denied'
  | 'import_depth'
  | 'invalid_frontmatter'
  | 'unknown_output_style'
  /** A project file that is (or lies under) a link leading out of the repository and the user's Claude folder. */
  | 'outside_link';

export interface ProjectProblem {
  kind: ProblemKind;
  /** The file the problem is about (for an import: the target, with the importing file in `from`). */
  file: string;
  from?: string;
  message: string;
}
