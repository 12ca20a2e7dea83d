// Where pino comes from. This plain version requires it from node_modules (tests, scripts). The daemon's build
// replaces this module with one that requires dist/agentd-log.js: pino bundled into one file that the launcher
// runs with a V8 code cache, so the first line logged costs ~6 ms instead of ~24 ms of compiling pino's files
// (BENCHMARKS.md, start-up) — a start that logs a settings warning pays it before answering `initialize`.
import { createRequire } from 'node:module';
import type pinoTypes from 'pino';

export function loadPino(): typeof pinoTypes {
  return createRequire(import.meta.url)('pino') as typeof pinoTypes;
}
