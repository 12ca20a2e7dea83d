// The shell command analyser: parse (tree-sitter-bash), list every simple command, judge read-only-ness.
export { analyzeCommand, analyzeCommandSync, commandName, renderSegment, segmentForms, touchesFile } from './analyze.js';
export { warmShellParser } from './parser.js';
export { READ_ONLY_COMMANDS, isReadOnlyCommand, isReadOnlySegment } from './read-only.js';
export type { CommandAnalysis, Redirect, RedirectKind, SimpleCommand } from './types.js';
export { WRAPPER_NAMES } from './wrappers.js';
