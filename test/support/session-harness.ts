// Builds a Session on the in-process scripted model with fake (or given) tools, collecting its events.
import type { RequestSettings } from '../../src/model/request-defaults.js';
import { tmpdir } from 'node:os';
import { passThroughHooks, passThroughPermissions, type PermissionGate, type ToolHooks } from '../../src/executor/pipeline.js';
import { silentLogger } from '../../src/log/logger.js';
import { ScenarioEngine } from '../../src/model/scripted/engine.js';
import { ScriptedModelClient } from '../../src/model/scripted/client.js';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { ModelClient, ModelRequest } from '../../src/model/types.js';
import type { LoopCompaction } from '../../src/session/loop-compaction.js';
import { type LocalCommand, type SessionSettings, type TranscriptRecorder, type TurnHooks, noTurnHooks, nullRecorder } from '../../src/session/config.js';
import type { SessionEvent, TurnResult } from '../../src/session/events.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../../src/session/retry.js';
import { Session } from '../../src/session/session.js';
import { ProcessGroupTracker, createToolEnvironment } from '../../src/tools/environment.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { AnyTool } from '../../src/tools/tool.js';

export interface SessionHarness {
  session: Session;
  events: SessionEvent[];
  requests: ModelRequest[];
  results(): TurnResult[];
  /** Submits a prompt and resolves with its turn result. */
  ask(text: string): Promise<TurnResult>;
  /** Submits a local command (e.g. /compact) and resolves with its turn result. */
  command(local: LocalCommand): Promise<TurnResult>;
}

export function sessionHarness(opts: {
  scenario?: Scenario;
  model?: ModelClient;
  tools?: AnyTool[];
  settings?: Partial<SessionSettings>;
  retry?: Partial<RetryPolicy>;
  hooks?: ToolHooks;
  turnHooks?: TurnHooks;
  permissions?: PermissionGate;
  recorder?: TranscriptRecorder;
  sidechainRecorder?: (agentId: string) => TranscriptRecorder & { close(): void };
  emitStreamEvents?: boolean;
  compaction?: LoopCompaction;
}): SessionHarness {
  const events: SessionEvent[] = [];
  const engine = new ScenarioEngine(opts.scenario ?? { rules: [] }, { cwd: '/w' }, { record: true });
  const model = opts.model ?? new ScriptedModelClient(engine);
  const logger = silentLogger();
  let n = 0;
  // Prompts are numbered on their own (p1, p2, …), apart from the session's uuids.
  let prompts = 0;
  // A prompt's result: the result of the turn that answers its uuid (prompts queued together share one turn).
  const waiters = new Map<string, (r: TurnResult) => void>();
  const settings: SessionSettings = {
    model: 'claude-test',
    fallbackModel: undefined,
    permissionMode: 'default',
    request: plainRequestSettings(),
    maxTurns: undefined,
    maxBudgetUsd: undefined,
    systemPrompt: { kind: 'custom', parts: [''] },
    jsonSchema: undefined,
    ...opts.settings,
  };
  const session = new Session(
    {
      model,
      sink: {
        emit: (e) => {
          events.push(e);
          if (e.type !== 'turn_result') return;
          for (const u of e.result.userMessageUuids) {
            waiters.get(u)?.(e.result);
            waiters.delete(u);
          }
        },
      },
      tools: new ToolRegistry(opts.tools ?? []),
      hooks: opts.hooks ?? passThroughHooks,
      turnHooks: opts.turnHooks ?? noTurnHooks,
      permissions: opts.permissions ?? passThroughPermissions,
      toolEnv: createToolEnvironment({ env: {}, logger, tracker: new ProcessGroupTracker(), spillDir: tmpdir() }),
      recorder: opts.recorder ?? nullRecorder,
      ...(opts.sidechainRecorder ? { sidechainRecorder: opts.sidechainRecorder } : {}),
      logger,
      now: () => Date.now(),
      newUuid: () => `u${++n}`,
      random: () => 0.5,
      retry: { ...DEFAULT_RETRY, ...opts.retry },
      maxToolConcurrency: 10,
      progress: { intervalMs: 100, maxChars: 1000, heartbeatMs: 0 },
      initialShared: { cwd: '/w', additionalDirectories: [] },
      ...(opts.compaction ? { compaction: opts.compaction } : {}),
    },
    { sessionId: 'sess-1', cwd: '/w', additionalDirectories: [], emitStreamEvents: opts.emitStreamEvents ?? false, replayUserMessages: false, betas: [], profile: { provider: 'firstParty', oauth: false }, deviceId: () => 'd'.repeat(64), history: [], startSource: 'startup' },
    settings,
  );
  session.start();
  return {
    session,
    events,
    requests: engine.requests,
    results: () => events.flatMap((e) => (e.type === 'turn_result' ? [e.result] : [])),
    ask: (text) =>
      new Promise((resolve) => {
        const uuid = `p${++prompts}`;
        waiters.set(uuid, resolve);
        session.submit({ uuid, content: text, shouldQuery: true, isSynthetic: false });
      }),
    command: (local) =>
      new Promise((resolve) => {
        const uuid = `p${++prompts}`;
        waiters.set(uuid, resolve);
        session.submit({ uuid, content: '/compact', shouldQuery: true, isSynthetic: false, local });
      }),
  };
}

/** Event kinds in order, compact, for whole-sequence assertions. */
export function kinds(events: readonly SessionEvent[], opts: { usage?: boolean } = {}): string[] {
  return events.filter((e) => opts.usage === true || e.type !== 'usage').map((e) => {
    switch (e.type) {
      case 'assistant_block':
        return `assistant:${e.block.type}${e.block.type === 'tool_use' ? `:${e.block.id}` : ''}${e.aborted ? ':aborted' : ''}${e.error ? `:${e.error}` : ''}`;
      case 'tool_result':
        return `result:${e.toolUseId}:${e.outcome}`;
      case 'turn_result':
        return `turn_result:${e.result.kind}`;
      case 'state':
        return `state:${e.state}`;
      case 'api_retry':
        return `api_retry:${e.attempt}:${e.status}`;
      case 'user_text':
        return `user_text:${e.text}`;
      case 'stream':
        return `stream:${e.event.type}`;
      case 'usage':
        return `usage:${e.call.cost_usd > 0 ? 'cost' : 'free'}`;
      default:
        return e.type;
    }
  });
}

/** Request options with nothing asked (no flag, variable or setting): the model's defaults. */
export function plainRequestSettings(): RequestSettings {
  return {
    thinking: { kind: 'default' },
    thinkingOverride: null,
    display: 'updates',
    displayOverride: null,
    outputDisplay: 'updates',
    effort: { override: undefined, flag: undefined, layers: [] },
    maxOutputTokens: undefined,
    subagentEffort: undefined,
  };
}
