// The port through which a session runs the hooks that shape a whole turn; implemented by session-hooks.ts.
/** Hooks that shape a whole turn rather than a tool call (UserPromptSubmit, Stop). */
export interface TurnHooks {
  userPromptSubmit(prompt: string, signal: AbortSignal): Promise<{ block?: string; additionalContext: string[]; stop?: string }>;
  stop(input: { stopHookActive: boolean; lastAssistantMessage: string }, signal: AbortSignal): Promise<{ continueWith?: string }>;
  /** PreCompact: may block the compaction (exit code 2 or decision "block"). */
  preCompact(trigger: 'manual' | 'auto', customInstructions: string | undefined, signal: AbortSignal): Promise<{ block?: string }>;
  /** PostCompact: told the summary; cannot change it. */
  postCompact(trigger: 'manual' | 'auto', summary: string, signal: AbortSignal): Promise<void>;
  /** SessionStart, run before the first turn; its context is added to the first prompt. */
  sessionStart(source: 'startup' | 'resume', signal: AbortSignal): Promise<{ additionalContext: string[] }>;
  /** SubagentStart, before a subagent's first request; its context is added to the subagent's prompt. */
  subagentStart(input: { agentId: string; agentType: string }, signal: AbortSignal): Promise<{ additionalContext: string[] }>;
  /** SubagentStop, when a subagent would end; a block keeps it going with the reason as its next prompt. */
  subagentStop(
    input: { agentId: string; agentType: string; transcriptPath: string; stopHookActive: boolean; lastAssistantMessage: string },
    signal: AbortSignal,
  ): Promise<{ continueWith?: string }>;
}

export const noTurnHooks: TurnHooks = {
  userPromptSubmit: async () => ({ additionalContext: [] }),
  stop: async () => ({}),
  preCompact: async () => ({}),
  postCompact: async () => undefined,
  sessionStart: async () => ({ additionalContext: [] }),
  subagentStart: async () => ({ additionalContext: [] }),
  subagentStop: async () => ({}),
};
