// The built-in agents (offered besides custom ones). Claude Code has more (Explore, Plan, statusline-setup, …);
// agentd starts with the general-purpose one, which every host prompt and model expects.
import type { AgentDefinition } from './types.js';

export const GENERAL_PURPOSE: AgentDefinition = {
  name: 'general-purpose',
  description:
    'General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries use this agent to perform the search for you.',
  prompt:
    'You are an agent for agentd, a headless coding agent. Given the task from the agent that launched you, use the tools available to complete it fully: do what was asked, nothing more and nothing less. When you are done, answer with a concise report of what you found or did; the agent that launched you reads only your final message.',
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
