// Every benchmark, in run order. `--only <name>` picks from here; a new benchmark is one more entry.
import { compaction150k } from './compaction.js';
import { agentFirstRequest, agentsParallelRss } from './agents.js';
import { interruptLatency } from './interrupt.js';
import { queued2000 } from './queued.js';
import { session200Turns } from './long-session.js';
import { mcpStdio10, sdkMcpRoundTrip } from './mcp.js';
import { native } from './native.js';
import { initProjectContext } from './project.js';
import { initProjectCommands } from './project-commands.js';
import { initInstructions } from './init-instructions.js';
import { firstResult, nodeBaseline, startup, startupAb, startupLoaders } from './startup.js';
import { authStatusJson } from './subcommands.js';
import { streamThroughput } from './stream.js';
import { bashReadonlySandboxed } from './sandbox.js';
import { bashSettingsSandboxed } from './settings-sandbox.js';
import { bash50mb, reads200, toolsParallel } from './tools.js';
import { warmTurnProxy } from './proxy.js';
import { idleRss, warmTurn } from './turns.js';
import type { Benchmark } from './types.js';

export const BENCHMARKS: readonly Benchmark[] = [
  nodeBaseline,
  startup,
  startupLoaders,
  startupAb,
  firstResult,
  initProjectContext,
  initProjectCommands,
  initInstructions,
  authStatusJson,
  warmTurn,
  warmTurnProxy,
  streamThroughput,
  idleRss,
  toolsParallel,
  reads200,
  bash50mb,
  bashReadonlySandboxed,
  bashSettingsSandboxed,
  session200Turns,
  interruptLatency,
  queued2000,
  sdkMcpRoundTrip,
  agentFirstRequest,
  agentsParallelRss,
  mcpStdio10,
  compaction150k,
  native,
];
