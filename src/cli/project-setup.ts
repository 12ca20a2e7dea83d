// Wires the project context (src/project: memory files, output styles, nested CLAUDE.md, @file mentions) into
// the daemon. Problems with a project file are logged at once (stderr, naming the file) and reported to the host
// as `file_warning` events (Claude Code's `system/informational` warning frames on the wire) once the session has started, never before the `initialize` answer.
import { homedir } from 'node:os';
import type { InboundUserFrame } from '../../protocol/src/index.js';
import type { Logger } from '../log/logger.js';
import type { ContextSnapshot } from '../control/context-usage.js';
import type { ApiMessage, ToolDefinition, UserBlock } from '../model/types.js';
import { ProjectContext } from '../project/context.js';
import type { SettingSource } from '../project/memory.js';
import type { ProjectProblem } from '../project/problems.js';
import type { QueuedInput, SessionSettings } from '../session/config.js';
import type { SessionEvent } from '../session/events.js';
import { autoCompactThreshold, parseCompactionEnv } from '../compaction/policy.js';
import { contextWindowFor } from '../session/context-window.js';
import { buildPrompt } from '../session/system-prompt.js';
import type { SharedToolContext } from '../tools/tool.js';

export interface ProjectSetup {
  project: ProjectContext;
  /** Starts loading the memory files and lets the queued warnings out; resolves when the files are in. */
  start(): Promise<void>;
}

export function setUpProject(d: {
  cwd: string;
  configDir: string;
  sources: readonly SettingSource[];
  outputStyle: string | undefined;
  additionalDirectories: () => readonly string[];
  /** The permission engine's decision for a Read of a path, nobody asked: memory-file imports obey it. */
  readAccess: (path: string, importer: 'user' | 'repository') => Promise<'allow' | 'ask' | 'deny'>;
  logger: Logger;
  emit: (ev: Extract<SessionEvent, { type: 'file_warning' }>) => void;
}): ProjectSetup {
  let started = false;
  const held: ProjectProblem[] = [];
  const report = (p: ProjectProblem): void => {
    d.emit({ type: 'file_warning', file: 'context', message: p.message, path: p.file });
  };
  const project = new ProjectContext({
    cwd: d.cwd,
    configDir: d.configDir,
    homeDir: homedir(),
    sources: d.sources,
    additionalDirectories: d.additionalDirectories,
    outputStyle: d.outputStyle,
    readAccess: d.readAccess,
    onProblem: (p) => {
      d.logger.warn({ file: p.file, ...(p.from ? { from: p.from } : {}), problem: p.kind }, p.message);
      if (started) report(p);
      else held.push(p);
    },
    onStart: () => {
      started = true;
      for (const p of held.splice(0)) report(p);
    },
  });
  return { project, start: () => project.start() };
}

function promptText(content: string | UserBlock[]): string {
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

/** The user's message with the files it mentions (`@path`) attached before it, unless the client composed it. */
export function withMentions(q: QueuedInput, frame: InboundUserFrame, project: ProjectContext, cwd: string): QueuedInput {
  if (frame.client_composed === true || q.isSynthetic) return q;
  const reminders = project.mentions(promptText(q.content), cwd);
  if (reminders.length === 0) return q;
  const own: UserBlock[] = typeof q.content === 'string' ? [{ type: 'text', text: q.content }] : q.content;
  return { ...q, content: [...reminders.map((text): UserBlock => ({ type: 'text', text })), ...own] };
}

/** What the next model request would carry, for `get_context_usage`. */
export function contextSnapshotOf(d: {
  settings: SessionSettings;
  shared: SharedToolContext;
  project: ProjectContext;
  tools: ToolDefinition[];
  messages: readonly ApiMessage[];
  betas: readonly string[];
  lastCall: ContextSnapshot['lastCall'];
  /** For the compaction switches (DISABLE_COMPACT, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, …). */
  env: Readonly<Record<string, string | undefined>>;
}): ContextSnapshot {
  const threshold = autoCompactThreshold(contextWindowFor(d.settings.model, d.betas), parseCompactionEnv(d.env));
  const env = { cwd: d.shared.cwd, additionalDirectories: d.shared.additionalDirectories, platform: process.platform, date: new Date().toISOString().slice(0, 10), model: d.settings.model, ...d.project.environment() };
  const prompt = buildPrompt(d.settings.systemPrompt, env, d.project.extras());
  return {
    model: d.settings.model,
    system: prompt.system,
    context: prompt.context,
    memoryFiles: d.project.memoryFiles,
    tools: d.tools,
    messages: d.messages,
    betas: d.betas,
    ...(threshold !== undefined ? { autoCompactThreshold: threshold } : {}),
    ...(d.lastCall ? { lastCall: d.lastCall } : {}),
  };
}
