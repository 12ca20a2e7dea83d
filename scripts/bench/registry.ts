// Every benchmark, in run order. `--only <name>` picks from here; a new benchmark is one more entry.
import { firstResult, nodeBaseline, startup } from './startup.js';
import { streamThroughput } from './stream.js';
import { idleRss, warmTurn } from './turns.js';
import type { Benchmark } from './types.js';

export const BENCHMARKS: readonly Benchmark[] = [nodeBaseline, startup, firstResult, warmTurn, streamThroughput, idleRss];
