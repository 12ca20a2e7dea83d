// The port through which a session runs the hooks that shape a whole turn; implemented by session-hooks.ts.
/** Hooks that shape a whole turn rather than a tool call (UserPromptSubmit, Stop). */
export interface TurnHooks {
  userPromptSubmit(prompt: string, signal: AbortSignal): Promise<{ block?: string; additionalContext: string[]; stop?: string }>;
  stop(input: { stopHookActive: boolean; lastAssistantMessage: string }, signal: AbortSignal): Promise<{ continueWith?: string }>;
  /** SessionStart, run before the first turn; its context is added to the first prompt. */
  sessionStart(source: 'startup' | 'resume', signal: AbortSignal): Promise<{ additionalContext: string[] }>;
}

export const noTurnHooks: TurnHooks = {
  userPromptSubmit: async () => ({ additionalContext: [] }),
  stop: async () => ({}),
  sessionStart: async () => ({ additionalContext: [] }),
};
