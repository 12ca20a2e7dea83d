// Runs the official SDK's query() against agentd on the in-process scripted model, with a scenario written to a
// temp file and every model request recorded, in a fresh workspace.
import { type Options, type SDKMessage, type SDKUserMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { ModelRequest } from '../../src/model/types.js';
import { AGENTD, baseEnv, tappedSpawner, tempDir } from './daemon.js';
import type { FrameTap } from './frames.js';

export interface ScriptedRun {
  cwd: string;
  home: string;
  env: Record<string, string>;
  taps: FrameTap[];
  /** What the model was asked, in order. */
  requests(): ModelRequest[];
  options(extra?: Partial<Options>): Options;
}

export function scriptedRun(scenario: Scenario, opts: { cwd?: string; env?: Record<string, string> } = {}): ScriptedRun {
  const dir = tempDir('agentd-sdk-');
  const scenarioPath = join(dir, 'scenario.json');
  const recordPath = join(dir, 'requests.ndjson');
  writeFileSync(scenarioPath, JSON.stringify(scenario));
  const cwd = opts.cwd ?? tempDir('agentd-ws-');
  const env = baseEnv({ AGENTD_SCENARIO: scenarioPath, AGENTD_SCENARIO_RECORD: recordPath, CLAUDE_CODE_SDK_READS_SESSION_STATE: '1', ...opts.env });
  const taps: FrameTap[] = [];
  return {
    cwd,
    home: env['HOME'] as string,
    env,
    taps,
    requests: () => recordedRequests(recordPath),
    options: (extra = {}) => ({ pathToClaudeCodeExecutable: AGENTD, cwd, env, spawnClaudeCodeProcess: tappedSpawner(taps), ...extra }),
  };
}

/**
 * The requests the scripted model recorded (AGENTD_SCENARIO_RECORD), in order; none when it recorded nothing. A
 * test that polls while the daemon appends can read a line before its newline is written: only complete
 * lines count.
 */
export function recordedRequests(recordPath: string): ModelRequest[] {
  if (!existsSync(recordPath)) return [];
  const text = readFileSync(recordPath, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ModelRequest);
}

export async function collect(q: AsyncIterable<SDKMessage>, onMessage?: (m: SDKMessage) => void | Promise<void>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of q) {
    out.push(m);
    await onMessage?.(m);
  }
  return out;
}

/**
 * Every message, and the error the SDK ended with: a turn that ends with an error result makes the CLI exit 1 at
 * stdin EOF (as Claude Code does), and the SDK then throws "Claude Code returned an error result: <result>".
 */
export async function collectSettled(q: AsyncIterable<SDKMessage>, onMessage?: (m: SDKMessage) => void | Promise<void>): Promise<{ messages: SDKMessage[]; error: string | undefined }> {
  const messages: SDKMessage[] = [];
  try {
    for await (const m of q) {
      messages.push(m);
      await onMessage?.(m);
    }
    return { messages, error: undefined };
  } catch (e) {
    return { messages, error: e instanceof Error ? e.message : String(e) };
  }
}

/** An async-iterable prompt the test feeds message by message. */
export function promptChannel() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  return {
    push(text: string) {
      queue.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' });
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<SDKUserMessage> {
      for (;;) {
        const m = queue.shift();
        if (m) {
          yield m;
          continue;
        }
        if (closed) return;
        await new Promise<void>((r) => {
          wake = r;
        });
      }
    },
  };
}

export { query };

/** tool_result blocks a message list carries, as [tool_use_id, is_error, content-text]. */
export function toolResults(msgs: readonly SDKMessage[]): Array<[string, boolean, string]> {
  const out: Array<[string, boolean, string]> = [];
  for (const m of msgs) {
    if (m.type !== 'user' || !Array.isArray(m.message.content)) continue;
    for (const b of m.message.content) {
      if (b.type === 'tool_result') out.push([b.tool_use_id, b.is_error === true, typeof b.content === 'string' ? b.content : JSON.stringify(b.content)]);
    }
  }
  return out;
}
