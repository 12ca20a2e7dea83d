// What the daemon loads after start-up: the tool implementations and the shell analyser (with execa, tree-sitter
// and the globbing libraries behind them). Built as its own bundle (dist/agentd-tools.js) and required on demand.
export { builtinTools } from './builtin/index.js';
export { createBackgroundRegistry } from './builtin/background.js';
export { analyzeCommand, isReadOnlyCommand, isReadOnlySegment, renderSegment, segmentForms, touchesFile, warmShellParser } from './shell/index.js';
