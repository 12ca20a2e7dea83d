// One turn of the main session: the user's message in (UserPromptSubmit hooks first), then the agent loop over
// the session's thread, exactly one TurnResult out.
import { platform as osPlatform } from 'node:os';
import type { SystemBlock, UserBlock } from '../model/types.js';
import type { RequestProfile } from '../model/request-defaults.js';
import type { SessionEvent, TurnResult } from '../thread/events.js';
import type { Thread } from '../thread/thread.js';
import type { SharedToolContext } from '../tools/tool.js';
import type { QueuedInput, SessionDeps, SessionSettings } from './config.js';
import { earlyResult, runAgentLoop } from './loop.js';
import { compactBeforePrompt } from './loop-compaction.js';
import { midTurnBlocks } from './fold.js';
import type { Interjection } from '../thread/thread.js';
import { type BuiltPrompt, buildPrompt } from './system-prompt.js';
import type { UsageLedger } from './usage.js';

export { STRUCTURED_OUTPUT_TOOL } from './loop.js';
export { errorCategoryOf } from './errors.js';

export interface TurnContext {
  deps: SessionDeps;
  settings: SessionSettings;
  thread: Thread;
  ledger: UsageLedger;
  shared: { current: SharedToolContext };
  sessionId: string;
  emitStreamEvents: boolean;
  replayUserMessages: boolean;
  betas: string[];
  profile: RequestProfile;
  /** `metadata.user_id` (loop.ts userIdFor). */
  userId: string;
  resultIndex: number;
  queuedCount: () => number;
  /** Takes the prompts queued now that may join the running turn (session/fold.ts); none for a compact turn. */
  takeQueued?: () => QueuedInput[];
  emit: (ev: SessionEvent) => void | Promise<void>;
}

function promptText(content: string | UserBlock[]): string {
  if (typeof content === 'string') return content;
  return content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n');
}

export async function runTurn(tc: TurnContext, input: QueuedInput, signal: AbortSignal): Promise<TurnResult> {
  const { deps, settings, thread } = tc;
  const startedAt = deps.now();
  // Every user message this turn answers: prompts folded into its own, and those that join it mid-turn.
  const userMessageUuids = [...(input.folded ?? []).map((f) => f.uuid), input.uuid];
  const resultBase = { services: deps, ledger: tc.ledger, startedAt, userMessageUuids, resultIndex: tc.resultIndex, queuedCount: tc.queuedCount };

  // Claude Code replays each folded prompt as it was sent, before the turn starts, then the joined one.
  if (tc.replayUserMessages) for (const f of input.folded ?? []) await tc.emit({ type: 'user_replay', uuid: f.uuid, content: f.content, isSynthetic: false });
  await tc.emit({ type: 'turn_started', userMessageUuids: [...userMessageUuids] });
  if (tc.replayUserMessages) await tc.emit({ type: 'user_replay', uuid: input.uuid, content: input.content, isSynthetic: input.isSynthetic });
  const takeQueued = tc.takeQueued;
  const interjections = takeQueued
    ? async (): Promise<Interjection[]> => {
        const taken = takeQueued();
        const out: Interjection[] = [];
        for (const q of taken) {
          userMessageUuids.push(q.uuid);
          if (tc.replayUserMessages) await tc.emit({ type: 'user_replay', uuid: q.uuid, content: q.content, isSynthetic: false });
          out.push({ uuid: q.uuid, content: midTurnBlocks(q.content) });
        }
        return out;
      }
    : undefined;

  // UserPromptSubmit hooks see the prompt before the model does, and may refuse it.
  const prompt = await deps.turnHooks.userPromptSubmit(promptText(input.content), signal);
  // A thread that would pass the automatic threshold with this prompt is compacted first, without it: the prompt
  // then follows the summary verbatim (as Claude Code 2.1.330 sends it), never summarised away with the history.
  const compacted = prompt.block === undefined && deps.compaction ? await compactBeforePrompt(deps.compaction, compactionRun(tc, input.model ?? settings.model, signal), input.content) : undefined;
  // Where a turn the API refuses as too long goes back to (after any compaction: that one stays).
  const before = thread.mark();
  thread.appendUser(input.content, { uuid: input.uuid, isSynthetic: input.isSynthetic });
  if (prompt.block !== undefined) {
    return earlyResult(resultBase, 'error_during_execution', 'hook_stopped', { category: 'permission', retryable: false, status: null, message: `Prompt blocked by a UserPromptSubmit hook: ${prompt.block}` });
  }
  if (signal.aborted) return earlyResult(resultBase, 'error_during_execution', 'aborted_streaming', { category: 'interrupted', retryable: true, status: null, message: 'Interrupted by the user.' });
  for (const ctx of prompt.additionalContext) thread.appendUser([{ type: 'text', text: `<system-reminder>\n${ctx}\n</system-reminder>` }], { isSynthetic: true });

  // `settings` is the session's live object: set_model during a turn takes effect from the next model round.
  const result = await runAgentLoop({
    ...resultBase,
    tools: deps.tools,
    thread,
    settings: input.model ? withTurnModel(settings, input.model) : settings,
    system: (model) => systemFor(tc, model),
    // The context before the first user message (environment, memory files: src/project).
    context: (model) => promptFor(tc, model).context,
    stopHook: (i, s) => deps.turnHooks.stop(i, s),
    shared: tc.shared,
    signal,
    sink: tc.emit,
    emitStreamEvents: tc.emitStreamEvents,
    betas: tc.betas,
    profile: tc.profile,
    userId: tc.userId,
    ...(deps.compaction ? { compaction: deps.compaction } : {}),
    ...(compacted?.kind === 'failed' ? { autoCompactFailed: true } : {}),
    ...(interjections ? { interjections } : {}),
  });
  // The API refused the turn's request as too long and compaction could not shrink it: the turn's messages (the
  // prompt first) leave the conversation, or every later request would carry them and be refused the same way,
  // however short (Claude Code 2.1.330 keeps them, and its next turn fails too: measured). The transcript keeps
  // them, with a rewind entry after them, so a resume continues from the same conversation.
  if (result.error?.category === 'context_overflow') thread.rewind(before, 'prompt_too_long');
  return result;
}

/** What a compaction at the start of a turn runs on: the session's services, thread, prompt and tools. */
function compactionRun(tc: TurnContext, model: string, signal: AbortSignal): Parameters<typeof compactBeforePrompt>[1] {
  return {
    services: tc.deps,
    tools: tc.deps.tools,
    thread: tc.thread,
    model,
    fallbackModel: tc.settings.fallbackModel,
    system: systemFor(tc, model),
    emit: tc.emit,
    ledger: tc.ledger,
    shared: tc.shared,
    signal,
  };
}

/** The session's system prompt, and the context before the first user message, for a request to `model`. */
export function promptFor(tc: Pick<TurnContext, 'deps' | 'settings' | 'shared'>, model: string): BuiltPrompt {
  return buildPrompt(
    tc.settings.systemPrompt,
    {
      cwd: tc.shared.current.cwd,
      platform: osPlatform(),
      date: new Date(tc.deps.now()).toISOString().slice(0, 10),
      model,
      additionalDirectories: tc.shared.current.additionalDirectories,
      ...tc.deps.promptContext?.environment(),
    },
    tc.deps.promptContext?.extras(),
  );
}

/** The session's system prompt for a request to `model`. */
export function systemFor(tc: Pick<TurnContext, 'deps' | 'settings' | 'shared'>, model: string): SystemBlock[] {
  return promptFor(tc, model).system;
}

/**
 * The session's settings with another model for one turn (a custom command's `model`). Every other field stays
 * the live session object's (a permission mode changed during the turn applies at once), through the prototype.
 */
function withTurnModel(settings: SessionSettings, model: string): SessionSettings {
  const view = Object.create(settings) as SessionSettings;
  Object.defineProperty(view, 'model', { value: model, writable: true, enumerable: true });
  Object.defineProperty(view, 'planModel', { value: undefined, writable: true, enumerable: true });
  return view;
}
