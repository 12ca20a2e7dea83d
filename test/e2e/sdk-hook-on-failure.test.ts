// `onFailure` on the SDK's hook matchers, through the official SDK: initialize answers
// hook_on_failure_supported, so the host's word is honoured — a throwing PreToolUse callback with "block" stops
// the call, with "continue" the call goes on to the permission check and runs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookCallback } from '@anthropic-ai/claude-agent-sdk';
import { collect, query, scriptedRun, toolResults } from '../support/sdk-run.js';

const scenario = {
  rules: [
    { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'toolu_w', name: 'Write', input: { file_path: '{{cwd}}/out.txt', content: 'x\n' } }] } },
    { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'done' }] } },
  ],
};
const throwing: HookCallback = async () => {
  throw new Error('policy service unreachable');
};
const allow = async (_n: string, input: Record<string, unknown>) => ({ behavior: 'allow' as const, updatedInput: input });

describe('onFailure of a hook matcher through the SDK', () => {
  it('"block": a PreToolUse callback that throws blocks the call; nothing is written', async () => {
    const run = scriptedRun(scenario);
    const msgs = await collect(query({ prompt: 'write', options: run.options({ canUseTool: allow, hooks: { PreToolUse: [{ matcher: 'Write', hooks: [throwing], onFailure: 'block' }] } }) }));
    expect(toolResults(msgs)).toEqual([['toolu_w', true, 'The hook callback:hook_0 failed (policy service unreachable), and its onFailure is "block".']]);
    expect(existsSync(join(run.cwd, 'out.txt'))).toBe(false);
  });

  it('"continue": the call goes on to the permission check (the host allows) and runs', async () => {
    const run = scriptedRun(scenario);
    const msgs = await collect(query({ prompt: 'write', options: run.options({ canUseTool: allow, hooks: { PreToolUse: [{ matcher: 'Write', hooks: [throwing], onFailure: 'continue' }] } }) }));
    expect(toolResults(msgs).map(([id, isError]) => [id, isError])).toEqual([['toolu_w', false]]);
    expect(existsSync(join(run.cwd, 'out.txt'))).toBe(true);
  });
});
