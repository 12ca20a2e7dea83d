// The system prompt. Three cases, as the SDKs use them (protocol.md §12.1):
//  - no systemPrompt in initialize (the claude_code preset): agentd's own agent prompt plus environment;
//  - an empty custom prompt (`[""]`, the TS SDK default, or Python's `--system-prompt ""`): the one-line
//    identity Claude Code uses in that case;
//  - a custom prompt: exactly the given text blocks.
// appendSystemPrompt is added as a last block in every case.
import type { SystemBlock } from '../model/types.js';

export type SystemPromptSpec = { kind: 'preset'; append?: string } | { kind: 'custom'; parts: string[]; append?: string };

export const EMPTY_CUSTOM_IDENTITY = "You are a Claude agent, built on Anthropic's Claude Agent SDK.";

export interface PromptEnvironment {
  cwd: string;
  platform: string;
  date: string;
  model: string;
  additionalDirectories: readonly string[];
}

function presetPrompt(env: PromptEnvironment): string {
  return [
    'You are an AI agent that helps with software engineering tasks, run by agentd (a headless agent daemon).',
    'Use the tools you are given to inspect and change the workspace. Prefer reading files before editing them,',
    'keep changes minimal and focused, and report what you did and what you found concisely.',
    'Tool results may be cut or refused; when a call is denied or interrupted, do not retry it blindly.',
    '',
    '# Environment',
    `- Working directory: ${env.cwd}`,
    ...(env.additionalDirectories.length ? [`- Additional directories: ${env.additionalDirectories.join(', ')}`] : []),
    `- Platform: ${env.platform}`,
    `- Date: ${env.date}`,
    `- Model: ${env.model}`,
  ].join('\n');
}

export function buildSystemBlocks(spec: SystemPromptSpec, env: PromptEnvironment): SystemBlock[] {
  const blocks: SystemBlock[] = [];
  if (spec.kind === 'preset') blocks.push({ type: 'text', text: presetPrompt(env) });
  else {
    const parts = spec.parts.filter((p) => p.length > 0);
    if (parts.length === 0) blocks.push({ type: 'text', text: EMPTY_CUSTOM_IDENTITY });
    else for (const p of parts) blocks.push({ type: 'text', text: p });
  }
  if (spec.append) blocks.push({ type: 'text', text: spec.append });
  const last = blocks[blocks.length - 1];
  // The system prompt rarely changes: let the API cache it.
  if (last) blocks[blocks.length - 1] = { ...last, cache_control: { type: 'ephemeral' } };
  return blocks;
}
