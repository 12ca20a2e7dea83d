// `onFailure` on a hook registration (the SDK's hook matchers, settings hooks): `block` makes a failed hook a
// block of the action its event guards, `continue` lets the action go on; unset keeps agentd's default (a
// permission-deciding hook's failure blocks the call, any other hook's is reported). Ignored on Stop.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type HookCallbackPort, HookRunner, type OnFailure } from '../../../src/hooks/runner.js';
import { type HookContext, createPermissionRequestHook, createToolHooks, createTurnHooks } from '../../../src/hooks/session-hooks.js';
import { silentLogger } from '../../../src/log/logger.js';

const ctx: HookContext = { sessionId: 's1', transcriptPath: () => '/t.jsonl', cwd: () => '/w', permissionMode: () => 'default' };
const signal = new AbortController().signal;
const call = { toolName: 'Bash', toolUseId: 'toolu_1', input: { command: 'ls' } };
const prompt = { toolName: 'Bash', input: { command: 'rm x' }, toolUseId: 't', suggestions: [], decisionReason: 'x', decisionReasonType: 'mode' };

/** Every callback fails: the host answered the hook_callback request with an error. */
function failingCallbacks(event: string, onFailure: OnFailure | undefined): HookRunner {
  const port: HookCallbackPort = { call: async () => Promise.reject(new Error('host callback threw')) };
  const r = new HookRunner(port, { PATH: process.env['PATH'] ?? '/bin' }, silentLogger(), undefined);
  r.setCallbacks([{ kind: 'callback', event, matcher: undefined, callbackIds: ['hook_0'], timeoutSec: undefined, ...(onFailure ? { onFailure } : {}) }]);
  return r;
}

const BLOCKED = 'The hook callback:hook_0 failed (host callback threw), and its onFailure is "block".';

describe('onFailure of SDK callback hooks', () => {
  it('PreToolUse: block denies with the reason; continue lets the call go on to the permission check; unset blocks (agentd’s default)', async () => {
    expect(await createToolHooks(failingCallbacks('PreToolUse', 'block'), ctx).preToolUse(call, signal)).toEqual({ decision: { behavior: 'deny', reason: BLOCKED, source: 'callback:hook_0' } });
    expect(await createToolHooks(failingCallbacks('PreToolUse', 'continue'), ctx).preToolUse(call, signal)).toEqual({});
    expect(await createToolHooks(failingCallbacks('PreToolUse', undefined), ctx).preToolUse(call, signal)).toEqual({
      decision: { behavior: 'deny', reason: 'The PreToolUse hook callback:hook_0 failed (host callback threw), so the call is blocked.', source: 'callback:hook_0' },
    });
  });

  it('PermissionRequest: block denies; continue leaves the decision to the host', async () => {
    expect(await createPermissionRequestHook(failingCallbacks('PermissionRequest', 'block'), ctx)(prompt, signal)).toEqual({ behavior: 'deny', message: BLOCKED, source: 'hook:callback:hook_0' });
    expect(await createPermissionRequestHook(failingCallbacks('PermissionRequest', 'continue'), ctx)(prompt, signal)).toBeUndefined();
  });

  it('UserPromptSubmit: block blocks the prompt (unset and continue let it through, as before)', async () => {
    expect(await createTurnHooks(failingCallbacks('UserPromptSubmit', 'block'), ctx).userPromptSubmit('hi', signal)).toEqual({ block: BLOCKED, additionalContext: [] });
    expect(await createTurnHooks(failingCallbacks('UserPromptSubmit', undefined), ctx).userPromptSubmit('hi', signal)).toEqual({ additionalContext: [] });
    expect(await createTurnHooks(failingCallbacks('UserPromptSubmit', 'continue'), ctx).userPromptSubmit('hi', signal)).toEqual({ additionalContext: [] });
  });

  it('PreCompact: block blocks the compaction; Stop ignores onFailure (it guards no action)', async () => {
    expect(await createTurnHooks(failingCallbacks('PreCompact', 'block'), ctx).preCompact('manual', undefined, signal)).toEqual({ block: BLOCKED });
    expect(await createTurnHooks(failingCallbacks('Stop', 'block'), ctx).stop({ stopHookActive: false, lastAssistantMessage: 'done' }, signal)).toEqual({});
  });
});

describe('onFailure of settings command hooks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-onfailure-'));
  const one = join(dir, 'one.sh');
  writeFileSync(one, '#!/bin/sh\necho "hook trouble" >&2; exit 1\n', { mode: 0o755 });
  const runner = (onFailure: OnFailure | undefined): HookRunner => {
    const r = new HookRunner({ call: async () => ({}) }, { PATH: process.env['PATH'] ?? '/bin' }, silentLogger(), undefined);
    r.addCommands([{ kind: 'command', event: 'PreToolUse', matcher: undefined, command: one, timeoutSec: undefined, source: 'userSettings', ...(onFailure ? { onFailure } : {}) }]);
    return r;
  };

  it('exit 1 is non-blocking by default (Claude Code’s documented semantics) and a block with onFailure "block"', async () => {
    expect(await createToolHooks(runner(undefined), { ...ctx, cwd: () => dir }).preToolUse(call, signal)).toEqual({});
    expect(await createToolHooks(runner('block'), { ...ctx, cwd: () => dir }).preToolUse(call, signal)).toEqual({
      decision: { behavior: 'deny', reason: `The hook command:${one} failed (exited with code 1: hook trouble), and its onFailure is "block".`, source: `command:${one}` },
    });
  });
});
