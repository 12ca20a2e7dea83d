// Shared helpers of the store tests: a temporary CLAUDE_CONFIG_DIR and project dir, recorded-event builders, and
// the official SDK's session readers pointed at that root (the SDK reads process.env.CLAUDE_CONFIG_DIR, so each
// test stubs it and vitest restores it).
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import type { Logger } from '../../../src/log/logger.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { AssistantBlock, UserBlock } from '../../../src/model/types.js';
import type { RecordedEvent } from '../../../src/session/config.js';
import type { DecisionMeta } from '../../../src/session/events.js';
import { type OpenSessionOptions, openSession } from '../../../src/store/session-store.js';

export interface TempProject {
  root: string;
  cwd: string;
  cleanup(): void;
}

/** A fresh config root and project dir; CLAUDE_CONFIG_DIR is stubbed to the root for the SDK. */
export function tempProject(): TempProject {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-store-')));
  const root = join(base, 'config');
  const cwd = join(base, 'my.project');
  mkdirSync(cwd, { recursive: true });
  vi.stubEnv('CLAUDE_CONFIG_DIR', root);
  return { root, cwd, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}


export interface LogLine {
  level: string;
  obj: object;
  msg: string | undefined;
}

/** A logger that keeps what it is given, to assert warnings. */
export function memoryLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, obj, msg });
    };
  const l: Logger & { lines: LogLine[] } = {
    ...silentLogger(),
    lines,
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    child: () => l,
  };
  return l;
}

let clock = Date.parse('2026-01-02T03:04:05.000Z');
export function openTest(p: TempProject, o: Partial<OpenSessionOptions> = {}): ReturnType<typeof openSession> {
  return openSession({
    root: p.root,
    cwd: p.cwd,
    env: {},
    persist: true,
    now: () => (clock += 1000),
    newUuid: randomUUID,
    logger: silentLogger(),
    ...o,
  });
}

// ---- recorded events ----

export function prompt(text: string | UserBlock[], opts: { uuid?: string; synthetic?: boolean } = {}): RecordedEvent {
  return { type: 'user_prompt', uuid: opts.uuid ?? randomUUID(), content: text, isSynthetic: opts.synthetic === true };
}

export function block(messageId: string, b: AssistantBlock, opts: { uuid?: string; model?: string; error?: string; supersedes?: string[] } = {}): RecordedEvent {
  return {
    type: 'assistant_block',
    uuid: opts.uuid ?? randomUUID(),
    meta: { id: messageId, model: opts.model ?? 'claude-test', usage: { input_tokens: 10, output_tokens: 5 }, requestId: `req_${messageId}` },
    block: b,
    ...(opts.error !== undefined ? { error: opts.error } : {}),
    ...(opts.supersedes !== undefined ? { supersedes: opts.supersedes } : {}),
  };
}

export function text(t: string): AssistantBlock {
  return { type: 'text', text: t };
}

export function toolUse(id: string, name = 'Read', input: Record<string, unknown> = { file_path: `/tmp/${id}` }): AssistantBlock {
  return { type: 'tool_use', id, name, input };
}

export function result(toolUseId: string, content: string, opts: { uuid?: string; isError?: boolean; data?: unknown; decision?: DecisionMeta } = {}): RecordedEvent {
  return {
    ...(opts.decision ? { decision: opts.decision } : {}),
    type: 'tool_result',
    uuid: opts.uuid ?? randomUUID(),
    toolUseId,
    toolName: 'Read',
    block: { type: 'tool_result', tool_use_id: toolUseId, content, ...(opts.isError ? { is_error: true } : {}) },
    data: opts.data ?? { content },
    outcome: opts.isError ? 'error' : 'success',
  };
}

export function marker(t: string): RecordedEvent {
  return { type: 'user_text', uuid: randomUUID(), text: t };
}

/** JSON round trip: what a value looks like after a trip through the file (undefined fields gone). */
export function viaJson(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}
