// The built-in agents (offered besides custom ones). Claude Code has more (Explore, Plan, statusline-setup, …);
// agentd starts with the general-purpose one, which every host prompt and model expects.
import type { AgentDefinition } from './types.js';

export const GENERAL_PURPOSE: AgentDefinition = {
  name: 'general-purpose',
  description:
    'General-purpose agent for researching complex questions, searching for code and carrying out multi-step tasks. Use it when a search may take several tries.',
  prompt:
    'You are a subagent started by another agent to carry out one task. Use the tools you have to finish it, then answer with a concise report of what you found or did: the parent agent sees only your final message. Give absolute file paths and quote the relevant lines where they matter.',
  tools: undefined,
  disallowedTools: [],
  model: undefined,
  maxTurns: undefined,
  background: false,
  skills: [],
  source: 'built-in',
  file: undefined,
};

export const BUILTIN_AGENTS: readonly AgentDefinition[] = [GENERAL_PURPOSE];
