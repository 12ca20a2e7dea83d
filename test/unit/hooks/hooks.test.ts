import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matcherMatches } from '../../../src/hooks/matcher.js';
import { type HookCallbackPort, HookRunner } from '../../../src/hooks/runner.js';
import { type HookContext, createPermissionRequestHook, createToolHooks, createTurnHooks } from '../../../src/hooks/session-hooks.js';
import { silentLogger } from '../../../src/log/logger.js';

const ctx: HookContext = { sessionId: 's1', transcriptPath: () => '/t.jsonl', cwd: () => '/w', permissionMode: () => 'default' };
const signal = new AbortController().signal;
const call = { toolName: 'Bash', toolUseId: 'toolu_1', input: { command: 'ls' } };

function runnerWith(answers: Record<string, (input: Record<string, unknown>) => unknown>, seen: unknown[] = []): HookRunner {
  const port: HookCallbackPort = {
    call: async (id, input, toolUseId) => {
      seen.push({ id, input, toolUseId });
      const a = answers[id];
      if (!a) throw new Error(`no callback ${id}`);
      return a(input);
    },
  };
  return new HookRunner(port, { PATH: process.env['PATH'] ?? '/bin' }, silentLogger(), undefined);
}

describe('matcher semantics', () => {
  it('follows Claude Code: empty/* all, exact lists, otherwise unanchored regex', () => {
    expect(matcherMatches(undefined, 'Bash')).toBe(true);
    expect(matcherMatches('*', 'Bash')).toBe(true);
    expect(matcherMatches('Bash|Write', 'Write')).toBe(true);
    expect(matcherMatches('Bash, Read', 'Read')).toBe(true);
    expect(matcherMatches('Bash', 'BashOutput')).toBe(false);
    expect(matcherMatches('mcp__memory', 'mcp__memory__read')).toBe(false);
    expect(matcherMatches('mcp__memory__.*', 'mcp__memory__read')).toBe(true);
    expect(matcherMatches('^Notebook', 'NotebookEdit')).toBe(true);
    expect(matcherMatches('(', 'x')).toBe(false);
  });
});

describe('SDK callback hooks', () => {
  it('PreToolUse sends Claude Code’s input fields and honours deny, rewrite and context', async () => {
    const seen: unknown[] = [];
    const r = runnerWith(
      {
        hook_0: () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'ls -la' }, additionalContext: 'be brief' } }),
        hook_1: () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not on Fridays' } }),
      },
      seen,
    );
    r.setCallbacks([{ kind: 'callback', event: 'PreToolUse', matcher: 'Bash', callbackIds: ['hook_0', 'hook_1'], timeoutSec: undefined }]);
    const out = await createToolHooks(r, ctx).preToolUse(call, signal);
    expect(out).toEqual({
      decision: { behavior: 'deny', reason: 'not on Fridays', source: 'callback:hook_1' },
      updatedInput: { command: 'ls -la' },
      additionalContext: ['be brief'],
    });
    expect(seen[0]).toEqual({
      id: 'hook_0',
      input: { session_id: 's1', transcript_path: '/t.jsonl', cwd: '/w', permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' },
      toolUseId: 'toolu_1',
    });
  });

  it('a PreToolUse hook that errors or answers garbage blocks the call', async () => {
    const r = runnerWith({ hook_0: () => ({ decision: 'maybe' }) });
    r.setCallbacks([{ kind: 'callback', event: 'PreToolUse', matcher: undefined, callbackIds: ['hook_0', 'hook_missing'], timeoutSec: undefined }]);
    const out = await createToolHooks(r, ctx).preToolUse(call, signal);
    expect(out.decision).toMatchObject({ behavior: 'deny' });
    expect(out.decision?.reason).toMatch(/failed \(returned an invalid answer|failed \(no callback hook_missing\)/);
  });

  it('PostToolUse gets tool_response and can add context, replace the output and stop the turn', async () => {
    const r = runnerWith({
      hook_0: (i) => ({ continue: false, stopReason: 'enough', hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: `saw ${JSON.stringify(i['tool_response'])}`, updatedToolOutput: 'redacted' } }),
    });
    r.setCallbacks([{ kind: 'callback', event: 'PostToolUse', matcher: undefined, callbackIds: ['hook_0'], timeoutSec: undefined }]);
    expect(await createToolHooks(r, ctx).postToolUse({ ...call, response: { stdout: 'a' }, durationMs: 3 }, signal)).toEqual({
      additionalContext: ['saw {"stdout":"a"}'],
      updatedOutput: 'redacted',
      stop: { reason: 'enough' },
    });
  });

  it('PermissionRequest hooks decide allow/deny; a failing one denies', async () => {
    const r = runnerWith({ hook_0: () => ({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: { command: 'ls' } } } }) });
    r.setCallbacks([{ kind: 'callback', event: 'PermissionRequest', matcher: undefined, callbackIds: ['hook_0'], timeoutSec: undefined }]);
    const hook = createPermissionRequestHook(r, ctx);
    const prompt = { toolName: 'Bash', input: { command: 'rm x' }, toolUseId: 't', suggestions: [], decisionReason: 'x', decisionReasonType: 'mode' };
    expect(await hook(prompt, signal)).toEqual({ behavior: 'allow', updatedInput: { command: 'ls' }, source: 'hook:callback:hook_0' });
    const bad = runnerWith({});
    bad.setCallbacks([{ kind: 'callback', event: 'PermissionRequest', matcher: undefined, callbackIds: ['nope'], timeoutSec: undefined }]);
    expect(await createPermissionRequestHook(bad, ctx)(prompt, signal)).toMatchObject({ behavior: 'deny' });
  });
});

describe('mcp_server provenance', () => {
  it('MCP tools carry mcp_server in PreToolUse, PostToolUse, PostToolUseFailure and PermissionRequest inputs', async () => {
    const seen: Array<{ input: Record<string, unknown> }> = [];
    const r = runnerWith({ hook_0: () => ({}) }, seen);
    r.setCallbacks(
      (['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest'] as const).map((event) => ({ kind: 'callback' as const, event, matcher: undefined, callbackIds: ['hook_0'], timeoutSec: undefined })),
    );
    const mcp = { toolName: 'mcp__web__ping', toolUseId: 'toolu_2', input: {}, mcpServer: { name: 'web', source: 'sdk' } };
    const hooks = createToolHooks(r, ctx);
    await hooks.preToolUse(mcp, signal);
    await hooks.postToolUse({ ...mcp, response: 'pong', durationMs: 1 }, signal);
    await hooks.postToolUseFailure({ ...mcp, error: 'boom', isInterrupt: false, durationMs: 1 }, signal);
    await createPermissionRequestHook(r, ctx)({ toolName: 'mcp__web__ping', input: {}, toolUseId: 'toolu_2', suggestions: [], decisionReason: 'x', decisionReasonType: 'mode', mcpServer: { name: 'web', source: 'sdk' } }, signal);
    expect(seen.map((x) => [x.input['hook_event_name'], x.input['mcp_server']])).toEqual([
      ['PreToolUse', { name: 'web', source: 'sdk' }],
      ['PostToolUse', { name: 'web', source: 'sdk' }],
      ['PostToolUseFailure', { name: 'web', source: 'sdk' }],
      ['PermissionRequest', { name: 'web', source: 'sdk' }],
    ]);
    // A built-in tool's inputs have no such field.
    seen.length = 0;
    await hooks.preToolUse(call, signal);
    expect(Object.keys(seen[0]?.input ?? {})).not.toContain('mcp_server');
  });
});

describe('command hooks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-hooks-'));
  const cmdCtx: HookContext = { ...ctx, cwd: () => dir };
  const script = (name: string, body: string): string => {
    const p = join(dir, name);
    writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return p;
  };
  const runner = (event: string, command: string, timeoutSec?: number): HookRunner => {
    const r = runnerWith({});
    r.addCommands([{ kind: 'command', event, matcher: undefined, command, timeoutSec, source: 'projectSettings' }]);
    return r;
  };

  it('gets the JSON input on stdin and answers with JSON on stdout', async () => {
    const cmd = script('json.sh', `input=$(cat); case "$input" in *'"tool_name":"Bash"'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check"}}';; esac`);
    expect(await createToolHooks(runner('PreToolUse', cmd), cmdCtx).preToolUse(call, signal)).toEqual({ decision: { behavior: 'ask', reason: 'check', source: `command:${cmd}` } });
  });

  it('exit code 2 blocks with stderr as the reason; other exit codes (a crash reported by sh too) are non-blocking', async () => {
    const two = script('two.sh', 'echo "rm is not allowed here" >&2; exit 2');
    expect((await createToolHooks(runner('PreToolUse', two), cmdCtx).preToolUse(call, signal)).decision).toEqual({ behavior: 'deny', reason: 'rm is not allowed here', source: `command:${two}` });
    const one = script('one.sh', 'echo "hook trouble" >&2; exit 1');
    expect(await createToolHooks(runner('PreToolUse', one), cmdCtx).preToolUse(call, signal)).toEqual({});
    const crash = script('crash.sh', 'kill -SEGV $$');
    expect(await createToolHooks(runner('PreToolUse', crash), cmdCtx).preToolUse(call, signal)).toEqual({});
  });

  it('PermissionRequest: exit 1 is non-blocking (the host is asked), exit 2 denies with stderr', async () => {
    const prompt = { toolName: 'Bash', input: { command: 'rm x' }, toolUseId: 't', suggestions: [], decisionReason: 'x', decisionReasonType: 'mode' };
    const one = script('pr-one.sh', 'echo "hook trouble" >&2; exit 1');
    expect(await createPermissionRequestHook(runner('PermissionRequest', one), cmdCtx)(prompt, signal)).toBeUndefined();
    const two = script('pr-two.sh', 'echo "never rm" >&2; exit 2');
    expect(await createPermissionRequestHook(runner('PermissionRequest', two), cmdCtx)(prompt, signal)).toEqual({ behavior: 'deny', message: 'never rm', source: `hook:command:${two}` });
  });

  it('a hook that times out is killed and blocks', async () => {
    const slow = script('slow.sh', 'sleep 30');
    const started = Date.now();
    const out = await createToolHooks(runner('PreToolUse', slow, 1), cmdCtx).preToolUse(call, signal);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out.decision).toMatchObject({ behavior: 'deny', reason: expect.stringContaining('timed out after 1000 ms') });
  });

  it('UserPromptSubmit: plain stdout becomes context; exit 2 blocks the prompt', async () => {
    const ctxHook = script('ctx.sh', 'echo "today is a holiday"');
    expect(await createTurnHooks(runner('UserPromptSubmit', ctxHook), cmdCtx).userPromptSubmit('hi', signal)).toEqual({ additionalContext: ['today is a holiday'] });
    const block = script('block.sh', 'echo "no secrets in prompts" >&2; exit 2');
    expect(await createTurnHooks(runner('UserPromptSubmit', block), cmdCtx).userPromptSubmit('hi', signal)).toEqual({ block: 'no secrets in prompts', additionalContext: [] });
  });

  it('Stop: decision block keeps the agent going with the reason', async () => {
    const stop = script('stop.sh', `echo '{"decision":"block","reason":"run the tests first"}'`);
    expect(await createTurnHooks(runner('Stop', stop), cmdCtx).stop({ stopHookActive: false, lastAssistantMessage: 'done' }, signal)).toEqual({ continueWith: 'run the tests first' });
  });
});
