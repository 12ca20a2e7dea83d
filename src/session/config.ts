// Session configuration and the ports the session is built from (implemented by model/, tools/, executor/,
// permissions/, hooks/, store/ and, for the sink, control/).
import type { Logger } from '../log/logger.js';
import type { Provider } from '../model/catalog.js';
import type { ApiMessage, ModelClient, UserBlock } from '../model/types.js';
import type { RequestProfile, RequestSettings } from '../model/request-defaults.js';
import type { PermissionGate, ToolHooks } from '../executor/pipeline.js';
import type { ProgressOptions } from '../executor/progress.js';
import type { PermissionModeName } from '../permissions/modes.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { SharedToolContext, ToolEnvironment } from '../tools/tool.js';
import type { EventSink, SessionEvent } from '../thread/events.js';
import type { SidechainRecorder, TranscriptRecorder } from '../thread/recorder.js';
import type { RetryPolicy } from './retry.js';
import type { PromptEnvironment, PromptExtras, SystemPromptSpec } from './system-prompt.js';

export interface SessionSettings {
  /** The resolved model name (model/names.ts): what requests go to, system/init shows and modelUsage keys. */
  model: string;
  /** `opusplan`: the model requests go to while the permission mode is plan. */
  planModel?: string | undefined;
  fallbackModel: string | undefined;
  permissionMode: PermissionModeName;
  /**
   * Thinking, its display, effort and max_tokens as asked for (model/request-defaults.ts turns them into a
   * request's fields for its model). Live: set_max_thinking_tokens changes the overrides for the next request.
   */
  request: RequestSettings;
  maxTurns: number | undefined;
  maxBudgetUsd: number | undefined;
  systemPrompt: SystemPromptSpec;
  /** `--json-schema`: the turn's answer must be JSON matching this schema (see structured-output.ts). */
  jsonSchema: Record<string, unknown> | undefined;
}

export interface SessionOptions {
  sessionId: string;
  cwd: string;
  additionalDirectories: string[];
  emitStreamEvents: boolean;
  replayUserMessages: boolean;
  betas: string[];
  /** Who requests go to (provider, subscription token): decides betas and what the model is sent. */
  profile: RequestProfile;
  /**
   * `metadata.device_id` of requests: this installation's persistent id (Claude Code's format). A function, called
   * at the first model request: a session that never sends one (a subcommand, a refused start) reads and writes
   * nothing for it.
   */
  deviceId: () => string;
  /** Messages to start from (resume/fork). */
  history: ApiMessage[];
  /** What SessionStart hooks are told. */
  startSource: 'startup' | 'resume';
  /** The model provider: prices the models the catalog does not know (session/pricing.ts). */
  provider?: Provider;
}

export interface QueuedInput {
  uuid: string;
  content: string | UserBlock[];
  /** false: append to the conversation without starting a turn. */
  shouldQuery: boolean;
  isSynthetic: boolean;
  /**
   * A slash command the host typed (src/commands): run where this input would become a turn, in queue order.
   * It either answers locally (no model call) or hands back the content of the turn to run instead.
   */
  command?: LocalCommandRun;
  /** A command the session runs itself instead of sending `content` to the model (a slash command). */
  local?: LocalCommand;
  /**
   * The model for this turn only: a custom command's `model` frontmatter. Claude Code 2.1.330 sends that turn's
   * requests to it and the next turn to the session's model again (measured).
   */
  model?: string;
  /**
   * Prompts that were queued right before this one and folded into it (session/fold.ts), oldest first: their
   * replay frames are sent, and the turn's result answers their uuids too.
   */
  folded?: ReadonlyArray<{ uuid: string; content: string | UserBlock[] }>;
}

/** Commands answered by the session, in turn order (so one that arrives during a turn waits for it). */
export type LocalCommand = { kind: 'compact'; instructions: string | undefined };

export type LocalCommandOutcome =
  /** Run a normal turn with this content instead (a custom command's expansion). */
  | { kind: 'turn'; content: string | UserBlock[]; model?: string }
  /** Answered locally: `text` is shown as a synthetic assistant message and is the result's text. */
  | { kind: 'output'; command: string; text: string }
  /** Refused or failed locally: an error result naming why. */
  | { kind: 'error'; command: string; message: string };

export interface LocalCommandContext {
  readonly signal: AbortSignal;
  /** /clear: drops the conversation the next request would carry. */
  clearConversation(): void;
  emit(ev: SessionEvent): void | Promise<void>;
}

export type LocalCommandRun = (ctx: LocalCommandContext) => Promise<LocalCommandOutcome>;

export { type TurnHooks, noTurnHooks } from '../hooks/turn-hooks.js';
import type { TurnHooks } from '../hooks/turn-hooks.js';
import type { LoopCompaction } from './loop-compaction.js';
export { type RecordedEvent, type TranscriptRecorder, nullRecorder } from '../thread/recorder.js';

export interface SessionDeps {
  model: ModelClient;
  sink: EventSink;
  tools: ToolRegistry;
  hooks: ToolHooks;
  turnHooks: TurnHooks;
  permissions: PermissionGate;
  toolEnv: ToolEnvironment;
  recorder: TranscriptRecorder;
  logger: Logger;
  now: () => number;
  newUuid: () => string;
  random: () => number;
  retry: RetryPolicy;
  maxToolConcurrency: number;
  progress: ProgressOptions;
  /** Shared tool context (cwd may be changed by tools). */
  initialShared: SharedToolContext;
  /** Automatic compaction, /compact and prompt-too-long recovery; absent: the thread is never compacted. */
  compaction?: LoopCompaction;
  /** Opens a nested loop's sidechain transcript (absent: nested loops are not recorded). */
  sidechainRecorder?: (agentId: string) => SidechainRecorder;
  /**
   * Called when the first turn starts; resolves when everything it needs is loaded (the tools load after
   * start-up; MCP servers declared by then are waited for, within their budget).
   */
  ready?: () => Promise<void>;
  /** What the project adds to every request (memory files, output style, environment facts); read per request. */
  promptContext?: PromptContextPort;
  /**
   * CLAUDE_CODE_ENTRYPOINT as the transcript records it (`sdk-ts`, `sdk-py`, `sdk-cli` for the CLI run by a
   * user): Claude Code's API error texts point a CLI user at `--model`, an SDK's user at nothing.
   */
  entrypoint?: string;
}

/** Implemented by src/project; the session awaits `ready()` before its first turn. */
export interface PromptContextPort {
  /** Resolves when the context is loaded (never rejects); awaited before the first turn. */
  ready(): Promise<void>;
  environment(): Pick<PromptEnvironment, 'isGitRepo' | 'osVersion'>;
  extras(): PromptExtras;
}
