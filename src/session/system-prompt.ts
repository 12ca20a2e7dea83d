// The system prompt and the context that travels with the first user message. The cases, as the SDKs use them
// (protocol.md §12.1, sdk.d.ts `Options.systemPrompt`):
//  - the claude_code preset (no systemPrompt in initialize, or `--system-prompt` absent): agentd's own agent
//    prompt as a static, cacheable block, then a dynamic block with the environment (working directory, git,
//    platform, OS, date, model) and the output style. `excludeDynamicSections` moves the dynamic part into the
//    first user message, so the system prompt is byte-identical across users and sessions (cross-session cache);
//  - an empty custom prompt (`[""]`, the TS SDK default, or Python's `--system-prompt ""`): the one-line identity
//    Claude Code uses in that case;
//  - a custom prompt: exactly the given text blocks. `SYSTEM_PROMPT_DYNAMIC_BOUNDARY` as a standalone element
//    splits it into a static block and a dynamic block (a cache breakpoint on each); the marker itself is
//    never sent.
// With a custom prompt the environment goes to the first user message, as Claude Code 2.1.330 sends it, so the
// model always knows the working directory and platform (Read and Write need absolute paths).
// appendSystemPrompt is added as a last block in every case. The memory files (CLAUDE.md) always travel in the
// first user message (see withContext), as Claude Code sends them.
import type { ApiMessage, SystemBlock, UserBlock } from '../model/types.js';

export type SystemPromptSpec =
  | { kind: 'preset'; append?: string; excludeDynamicSections?: boolean }
  | { kind: 'custom'; parts: string[]; append?: string };

export const EMPTY_CUSTOM_IDENTITY = "You are a Claude agent, built on Anthropic's Claude Agent SDK.";

/** The SDK's `SYSTEM_PROMPT_DYNAMIC_BOUNDARY` (sdk.d.ts): a standalone element of a custom prompt array. */
export const SYSTEM_PROMPT_DYNAMIC_BOUNDARY = '__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__';

export interface PromptEnvironment {
  cwd: string;
  platform: string;
  date: string;
  model: string;
  additionalDirectories: readonly string[];
  /** Unknown until the project context has looked (then true or false). */
  isGitRepo?: boolean;
  osVersion?: string;
}

/** What the project adds to the prompt (src/project builds it; the session only places it). */
export interface PromptExtras {
  /** The active output style, unless it is the default one. */
  outputStyle?: { name: string; prompt: string; keepCodingInstructions: boolean };
  /** Reminders for the first user message (memory files), already wrapped in <system-reminder>. */
  reminders?: readonly string[];
}

export interface BuiltPrompt {
  system: SystemBlock[];
  /** Text blocks that go before the first user message's own content, every request. */
  context: string[];
}

const INTRO =
  'You are an AI agent that helps with software engineering tasks, run by agentd (a headless agent daemon). ' +
  'Use the tools you are given to inspect and change the workspace.';
const STYLE_INTRO =
  'You are an AI agent run by agentd (a headless agent daemon). Answer in the output style described below, and use the tools you are given when the task needs them.';
const CODING = [
  'Read files before editing them; keep changes minimal and focused on what was asked.',
  'Paths given to file tools must be absolute: build them from the working directory below.',
  'Report what you did and what you found concisely; say so plainly when something failed or was not done.',
];
const ALWAYS = [
  'Tool results may be cut or refused; when a call is denied or interrupted, do not retry it blindly.',
  'Text inside <system-reminder> tags comes from agentd, not from the user or a tool.',
];

function staticPrompt(style: PromptExtras['outputStyle']): string {
  const lines = [style ? STYLE_INTRO : INTRO, ''];
  if (!style || style.keepCodingInstructions) lines.push(...CODING.map((l) => `- ${l}`));
  lines.push(...ALWAYS.map((l) => `- ${l}`));
  return lines.join('\n');
}

export function environmentSection(env: PromptEnvironment): string {
  return [
    '# Environment',
    `- Working directory: ${env.cwd}`,
    ...(env.additionalDirectories.length ? [`- Additional working directories: ${env.additionalDirectories.join(', ')}`] : []),
    ...(env.isGitRepo === undefined ? [] : [`- Git repository: ${env.isGitRepo ? 'yes' : 'no'}`]),
    `- Platform: ${env.platform}`,
    ...(env.osVersion ? [`- OS version: ${env.osVersion}`] : []),
    `- Today's date: ${env.date}`,
    `- Model: ${env.model}`,
  ].join('\n');
}

function styleSection(style: NonNullable<PromptExtras['outputStyle']>): string {
  return `# Output style: ${style.name}\n${style.prompt}`;
}

const reminder = (text: string): string => `<system-reminder>\n${text}\n</system-reminder>`;
const cached = (text: string): SystemBlock => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });

export function buildPrompt(spec: SystemPromptSpec, env: PromptEnvironment, extras: PromptExtras = {}): BuiltPrompt {
  const blocks: SystemBlock[] = [];
  const context: string[] = [];
  const style = extras.outputStyle;
  if (spec.kind === 'preset') {
    // The static block is the same for every user and session: a cache breakpoint after it lets sessions share it.
    blocks.push(cached(staticPrompt(style)));
    const dynamic = [environmentSection(env), ...(style ? [styleSection(style)] : [])].join('\n\n');
    if (spec.excludeDynamicSections) context.push(reminder(dynamic));
    else blocks.push({ type: 'text', text: dynamic });
  } else {
    const parts = spec.parts.filter((p) => p.length > 0);
    const at = parts.indexOf(SYSTEM_PROMPT_DYNAMIC_BOUNDARY);
    if (at >= 0) {
      const before = parts.slice(0, at).filter((p) => p !== SYSTEM_PROMPT_DYNAMIC_BOUNDARY);
      const after = parts.slice(at + 1).filter((p) => p !== SYSTEM_PROMPT_DYNAMIC_BOUNDARY);
      if (before.length) blocks.push(cached(before.join('\n\n')));
      if (after.length) blocks.push({ type: 'text', text: after.join('\n\n') });
      if (blocks.length === 0) blocks.push({ type: 'text', text: EMPTY_CUSTOM_IDENTITY });
    } else if (parts.length === 0) blocks.push({ type: 'text', text: EMPTY_CUSTOM_IDENTITY });
    else for (const p of parts) blocks.push({ type: 'text', text: p });
    context.push(reminder(environmentSection(env)));
    if (style) context.push(reminder(styleSection(style)));
  }
  if (spec.append) blocks.push({ type: 'text', text: spec.append });
  context.push(...(extras.reminders ?? []));
  const last = blocks[blocks.length - 1];
  // The system prompt rarely changes: let the API cache it.
  if (last) blocks[blocks.length - 1] = { ...last, cache_control: { type: 'ephemeral' } };
  return { system: blocks, context };
}

export function buildSystemBlocks(spec: SystemPromptSpec, env: PromptEnvironment, extras: PromptExtras = {}): SystemBlock[] {
  return buildPrompt(spec, env, extras).system;
}

// The first message with the context in front, kept per (message, context) so that every request of a session
// sends the same frozen object: the request serialiser reuses its JSON (model/request-body.ts) and the prompt
// cache sees an identical prefix.
const withContextCache = new WeakMap<ApiMessage, { key: string; message: ApiMessage }>();

/** The messages of a request with the context text blocks put before the first user message's own content. */
export function withContext(messages: ApiMessage[], context: readonly string[]): ApiMessage[] {
  const first = messages[0];
  if (context.length === 0 || !first || first.role !== 'user') return messages;
  const key = context.join('\u0000');
  let hit = withContextCache.get(first);
  if (!hit || hit.key !== key) {
    const own: UserBlock[] = typeof first.content === 'string' ? [{ type: 'text', text: first.content }] : first.content;
    const message: ApiMessage = Object.freeze({ role: 'user', content: Object.freeze([...context.map((text): UserBlock => ({ type: 'text', text })), ...own]) as UserBlock[] });
    hit = { key, message };
    withContextCache.set(first, hit);
  }
  const out = messages.slice();
  out[0] = hit.message;
  return out;
}
