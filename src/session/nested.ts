// A nested agent loop: what a tool runs when it delegates to an agent of its own (the subagent tool). It has its
// own thread (recorded as a sidechain), system prompt, toolset and model settings; it shares the session's
// services, usage ledger and host, and reports through the session's sink with every event stamped with the
// tool_use id of the call that runs it. Its signal is the call's: interrupting the outer turn stops it.
import type { SystemBlock, UserBlock } from '../model/types.js';
import type { RequestProfile, RequestSettings } from '../model/request-defaults.js';
import type { SessionEvent, TurnResult } from '../thread/events.js';
import { type SidechainRecorder, nullRecorder } from '../thread/recorder.js';
import { Thread } from '../thread/thread.js';
import type { SharedToolContext } from '../tools/tool.js';
import { type AgentLoopParams, type LoopServices, type LoopSettings, type Toolset, runAgentLoop } from './loop.js';
import type { UsageLedger } from './usage.js';

export interface NestedLoopSpec {
  /** The tool_use id of the call that runs the loop: every event of the loop carries it. */
  parentToolUseId: string;
  /** Names the sidechain transcript (`agent-<id>.jsonl`). */
  agentId: string;
  prompt: string | UserBlock[];
  system: (model: string) => SystemBlock[];
  tools: Toolset;
  /** The loop's model and limits; its thinking and effort are the session's (`request` of the host). */
  settings: Readonly<Omit<LoopSettings, 'request'>>;
  /** The calling tool's signal. */
  signal: AbortSignal;
  emitStreamEvents?: boolean;
  /**
   * Report the loop's text and thinking blocks too (Claude Code's forwardSubagentText); by default only its tool
   * calls and results reach the host (they are recorded in the sidechain either way).
   */
  forwardText?: boolean;
  /** Sees every event of the loop, forwarded or not (a task counts tool uses and tokens from them). */
  observe?: (ev: SessionEvent) => void;
  /**
   * Report this text as the loop's first user message (a `user_text` event with the parent id), as Claude Code
   * forwards a foreground subagent's prompt; undefined: not reported (it is recorded in the sidechain either way).
   */
  reportPrompt?: string;
  /** Stop hooks of the loop (SubagentStop for a subagent). */
  stopHook?: AgentLoopParams['stopHook'];
}

export interface NestedLoopOutcome {
  result: TurnResult;
  thread: Thread;
}

/** What the session lends a nested loop. */
export interface NestedLoopHost {
  services: LoopServices;
  ledger: UsageLedger;
  shared: { current: SharedToolContext };
  sink: (ev: SessionEvent) => void | Promise<void>;
  sidechainRecorder: ((agentId: string) => SidechainRecorder) | undefined;
  sessionId: string;
  betas: readonly string[];
  profile: RequestProfile;
  userId: string;
  /** The session's request options, read when the loop starts (a subagent thinks as the session does, measured). */
  request: () => RequestSettings;
}

/** Events of the outer turn's shape that a nested loop does not report (its own progress is its messages). */
const NOT_FORWARDED: ReadonlySet<SessionEvent['type']> = new Set(['model_request', 'stream', 'usage']);

export async function runNestedLoop(host: NestedLoopHost, spec: NestedLoopSpec): Promise<NestedLoopOutcome> {
  const services = host.services;
  const recorder = host.sidechainRecorder?.(spec.agentId) ?? { ...nullRecorder, close: () => undefined };
  const thread = new Thread({ recorder, newUuid: services.newUuid });
  const promptUuid = services.newUuid();
  thread.appendUser(spec.prompt, { uuid: promptUuid, isSynthetic: false });
  if (spec.reportPrompt !== undefined) await host.sink({ type: 'user_text', uuid: promptUuid, text: spec.reportPrompt, parentToolUseId: spec.parentToolUseId });
  const result = await runAgentLoop({
    services,
    tools: spec.tools,
    thread,
    settings: { ...spec.settings, request: subagentRequest(host.request()) },
    system: spec.system,
    ledger: host.ledger,
    // Its own copy: a `cd` inside the subagent does not move the session.
    shared: { current: host.shared.current },
    signal: spec.signal,
    sink: (ev) => {
      spec.observe?.(ev);
      if (spec.emitStreamEvents !== true && NOT_FORWARDED.has(ev.type)) return undefined;
      if (spec.forwardText === false && ev.type === 'assistant_block' && ev.block.type !== 'tool_use') return undefined;
      return host.sink(ev);
    },
    parentToolUseId: spec.parentToolUseId,
    ...(spec.stopHook ? { stopHook: spec.stopHook } : {}),
    emitStreamEvents: spec.emitStreamEvents === true,
    betas: host.betas,
    profile: host.profile,
    userId: host.userId,
    startedAt: services.now(),
    userMessageUuids: [],
    resultIndex: 0,
    queuedCount: () => 0,
  });
  try {
    await thread.flush();
  } catch (err) {
    services.logger.error({ err, agentId: spec.agentId }, 'sidechain transcript flush failed');
  }
  recorder.close();
  return { result, thread };
}

/** CLAUDE_CODE_SUBAGENT_EFFORT outranks every other effort source for a subagent's requests. */
function subagentRequest(r: RequestSettings): RequestSettings {
  return r.subagentEffort === undefined ? r : { ...r, effort: { ...r.effort, override: r.subagentEffort } };
}
