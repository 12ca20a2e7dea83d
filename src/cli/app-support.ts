// Helpers of the composition root: the model client, the retry policy, prompt and input conversions, one-shot
// output. Kept apart so app.ts stays the readable wiring of the object graph.
import { appendFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { InboundUserFrame, OutboundFrame } from '../../protocol/src/index.js';
import { AnthropicModelClient } from '../model/anthropic.js';
import { DIRECT, type NetConfig } from '../net/config.js';
import type { ModelSetup } from './credentials.js';
import { ScenarioEngine } from '../model/scripted/engine.js';
import { ScriptedModelClient } from '../model/scripted/client.js';
import { loadScenario } from '../model/scripted/load.js';
import type { ModelClient, UserBlock } from '../model/types.js';
import type { LocalCommand, QueuedInput } from '../session/config.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../session/retry.js';
import type { CompactHooks } from '../compaction/compact.js';
import { parseCompactionEnv } from '../compaction/policy.js';
import type { LoopCompaction } from '../session/loop-compaction.js';
import { contextWindowFor } from '../session/context-window.js';
import type { SystemPromptSpec } from '../session/system-prompt.js';
import { newUuid } from '../util/ids.js';
import { assertNever } from '../util/assert-never.js';
import type { SessionEvent } from '../thread/events.js';
import type { OpenedSession, TranscriptTrouble } from '../store/index.js';
import { AGENTD_VERSION } from '../version.js';
import type { AppConfig } from '../config/config.js';
import type { EnvConfig } from '../config/env.js';
import { type CliOptions, StartupError } from './options.js';

export function buildModel(opts: CliOptions, config: AppConfig, cwd: string, sessionId: string, setup?: ModelSetup, net: NetConfig = DIRECT): ModelClient {
  if (opts.modelProvider === 'scripted') {
    const loaded = loadScenario(opts.scenario);
    if (!loaded.ok) throw new StartupError('scenario_invalid', loaded.message);
    const engine = new ScenarioEngine(loaded.scenario, { cwd });
    const recordPath = opts.scenarioRecord;
    return new ScriptedModelClient(engine, recordPath ? { record: (req) => appendFileSync(recordPath, `${JSON.stringify(req)}\n`) } : {});
  }
  if (!setup) throw new Error('buildModel: a model setup is required for the anthropic provider');
  const a = config.env.anthropic;
  return new AnthropicModelClient({
    provider: setup.provider,
    net,
    // Claude Code's identifying headers (measured on 2.1.330: anthropic-version 2023-06-01, x-app cli and the
    // session id) beside agentd's own; the user agent stays agentd's.
    headers: {
      'anthropic-version': '2023-06-01',
      'x-app': 'cli',
      'x-claude-code-session-id': sessionId,
      'x-agentd-session-id': sessionId,
      'user-agent': `agentd/${AGENTD_VERSION}${config.env.clientApp ? ` ${config.env.clientApp}` : ''}`,
    },
    timeoutMs: a.timeoutMs ?? 600_000,
  });
}

/** The retry policy, with documented environment overrides (used by tests and impatient CI jobs). */
export function retryPolicy(env: EnvConfig): RetryPolicy {
  const r = env.retry;
  return {
    ...DEFAULT_RETRY,
    ...(r.maxRetries !== undefined ? { maxAttempts: r.maxRetries + 1 } : {}),
    ...(r.baseDelayMs !== undefined ? { baseDelayMs: r.baseDelayMs } : {}),
    ...(r.firstEventTimeoutMs !== undefined ? { firstEventTimeoutMs: r.firstEventTimeoutMs } : {}),
    ...(r.idleTimeoutMs !== undefined ? { idleTimeoutMs: r.idleTimeoutMs } : {}),
  };
}

export function systemPromptFrom(opts: CliOptions): SystemPromptSpec {
  const append = opts.appendSystemPrompt;
  if (opts.systemPrompt !== undefined) return { kind: 'custom', parts: [opts.systemPrompt], ...(append ? { append } : {}) };
  return { kind: 'preset', ...(append ? { append } : {}) };
}

export function toQueued(frame: InboundUserFrame): QueuedInput {
  // Inbound blocks were validated for their `type`; the model receives them as the host sent them.
  const content = frame.message.content as string | UserBlock[];
  const local = frame.shouldQuery === false ? undefined : localCommand(content);
  return {
    uuid: frame.uuid ?? newUuid(),
    content,
    shouldQuery: frame.shouldQuery !== false,
    isSynthetic: frame.isSynthetic === true,
    ...(local ? { local } : {}),
  };
}

/** `/compact [instructions]` as the whole prompt (a string, or one text block): run by the session, not sent. */
function localCommand(content: string | UserBlock[]): LocalCommand | undefined {
  const only = typeof content === 'string' ? content : content.length === 1 && content[0]?.type === 'text' && 'text' in content[0] ? String(content[0].text) : undefined;
  const m = only === undefined ? null : /^\/compact(?:\s+([\s\S]*))?$/.exec(only.trim());
  return m ? { kind: 'compact', instructions: m[1]?.trim() || undefined } : undefined;
}

export function printText(r: OutboundFrame): string {
  if (r.type !== 'result') return '';
  if (r.subtype === 'success') return r.result;
  return `Error (${r.subtype}): ${r.errors.join('; ')}`;
}

export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** The session's compaction: Claude Code's environment switches, the model's window, PreCompact/PostCompact. */
export function sessionCompaction(env: Readonly<Record<string, string | undefined>>, hooks: CompactHooks, transcriptPath: () => string | undefined): LoopCompaction {
  return { settings: parseCompactionEnv(env), contextWindow: (model) => contextWindowFor(model), transcriptPath, hooks };
}

/** A transcript's trouble as the session event the projector turns into a frame. */
function troubleEvent(t: TranscriptTrouble): SessionEvent {
  switch (t.kind) {
    case 'failing':
      return { type: 'transcript_writes', state: 'failing', code: t.code, path: t.path };
    case 'recovered':
      return { type: 'transcript_writes', state: 'recovered', lines: t.lines, path: t.path };
    case 'lost':
      return { type: 'writes_lost', errorCode: t.code, sessionIds: [t.sessionId], ...(t.firstLostUuid !== undefined ? { firstLostUuid: t.firstLostUuid } : {}) };
    default:
      return assertNever(t, 'transcript trouble');
  }
}

/**
 * The transcript's notices to the host, as session events: its troubles (a failing write, its recovery, lines
 * lost for good) and a resume's repaired links. A resume writes (its repairs) before the projector exists: until
 * `ready()` they wait a microtask; after, they go out at once, so one sent at close precedes the exit.
 */
export function transcriptNotices(emit: (ev: SessionEvent) => void): {
  onTrouble: (t: TranscriptTrouble) => void;
  relinked: (r: NonNullable<OpenedSession['relinked']>) => void;
  ready: () => void;
} {
  let ready = false;
  const send = (ev: SessionEvent): void => (ready ? emit(ev) : queueMicrotask(() => emit(ev)));
  return {
    onTrouble: (t) => send(troubleEvent(t)),
    relinked: (r) => send({ type: 'transcript_relinked', path: r.path, links: r.links }),
    ready: () => {
      ready = true;
    },
  };
}
