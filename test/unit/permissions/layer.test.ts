// Fail-closed behaviour of the permission layer with the real ControlClient and can_use_tool prompter.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OutboundFrame } from '../../../protocol/src/index.js';
import { ControlClient } from '../../../src/control/outbound.js';
import { createHostPrompter } from '../../../src/control/permission-prompter.js';
import type { PermissionRequestInfo } from '../../../src/executor/pipeline.js';
import { silentLogger } from '../../../src/log/logger.js';
import { type PermissionLayerDeps, type PermissionRequestHook, createPermissionLayer } from '../../../src/permissions/layer.js';
import type { CommandAnalyzer } from '../../../src/permissions/match.js';
import type { PermissionModeName } from '../../../src/permissions/modes.js';
import { RuleSet } from '../../../src/permissions/rules.js';
import type { PermissionUpdateValue } from '../../../src/permissions/updates.js';
import type { AnyTool } from '../../../src/tools/tool.js';

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-layer-')));
const analyzer: CommandAnalyzer = { analyze: async (c) => ({ ok: true, segments: [{ text: c, forms: [c], coverable: true, paths: [] }], readOnly: false, reasons: ['may change the system'], opaque: false }) };
const Bash: AnyTool = {
  name: 'Bash',
  description: '',
  inputSchema: z.record(z.string(), z.unknown()),
  isConcurrencySafe: () => false,
  isReadOnly: () => false,
  interruptBehavior: 'cancel',
  call: async () => ({ data: null, content: '' }),
  permissionSubject: (i) => ({ kind: 'command', command: String((i as { command?: unknown }).command) }),
};

interface Rig {
  frames: OutboundFrame[];
  client: ControlClient;
  layer: ReturnType<typeof createPermissionLayer>;
  pending: number[];
  mode: { current: PermissionModeName };
  persisted: PermissionUpdateValue[];
}

function rig(
  opts: { interactive?: boolean; timeoutMs?: number; hook?: PermissionRequestHook; mcpModeOverride?: PermissionLayerDeps['mcpModeOverride']; mcpToolPolicy?: PermissionLayerDeps['mcpToolPolicy'] } = {},
): Rig {
  const frames: OutboundFrame[] = [];
  let n = 0;
  const client = new ControlClient({ write: (f) => void frames.push(f) }, () => `req-${++n}`);
  const pending: number[] = [];
  const mode = { current: 'default' as PermissionModeName };
  const rules = new RuleSet();
  const persisted: PermissionUpdateValue[] = [];
  const deps: PermissionLayerDeps = {
    rules,
    getMode: () => mode.current,
    analyzer,
    prompter: opts.interactive === false ? undefined : createHostPrompter({ client, onPending: (p) => pending.push(p), timeoutMs: opts.timeoutMs }),
    ...(opts.hook ? { permissionRequestHook: opts.hook } : {}),
    ...(opts.mcpModeOverride ? { mcpModeOverride: opts.mcpModeOverride } : {}),
    ...(opts.mcpToolPolicy ? { mcpToolPolicy: opts.mcpToolPolicy } : {}),
    updates: {
      rules,
      setMode: (m) => {
        mode.current = m;
      },
      addDirectories: () => undefined,
      removeDirectories: () => undefined,
      persist: async (_d, u) => void persisted.push(u),
      baseDirFor: () => cwd,
    },
    logger: silentLogger(),
  };
  return { frames, client, layer: createPermissionLayer(deps), pending, mode, persisted };
}

function req(command: string, toolUseId = 'toolu_1'): PermissionRequestInfo {
  return { tool: Bash, input: { command }, toolUseId, hook: undefined, shared: { cwd, additionalDirectories: [] } };
}

function answer(r: Rig, i: number, response: Record<string, unknown> | { error: string }): void {
  const f = r.frames[i];
  if (!f || f.type !== 'control_request') throw new Error(`frame ${i} is not a control_request`);
  r.client.handleResponse(
    'error' in response
      ? { type: 'control_response', response: { subtype: 'error', request_id: f.request_id, error: String(response.error) } }
      : { type: 'control_response', response: { subtype: 'success', request_id: f.request_id, response } },
  );
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('asking the host', () => {
  it('sends can_use_tool with the call, the suggestions and the reason, and applies an allow', async () => {
    const r = rig();
    const p = r.layer.check(req('make build'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.frames).toEqual([
      {
        type: 'control_request',
        request_id: 'req-1',
        request: {
          subtype: 'can_use_tool',
          tool_name: 'Bash',
          input: { command: 'make build' },
          tool_use_id: 'toolu_1',
          permission_suggestions: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make:*' }], behavior: 'allow', destination: 'localSettings' }],
          decision_reason: 'may change the system',
          decision_reason_type: 'mode',
          display_name: 'Bash',
        },
      },
    ]);
    expect(r.pending).toEqual([1]);
    answer(r, 0, { behavior: 'allow', updatedInput: { command: 'make test' }, toolUseID: 'toolu_1' });
    expect(await p).toEqual({ behavior: 'allow', rewrite: { input: { command: 'make test' }, by: 'host' }, meta: { decision: 'accept', source: 'user_temporary', decidedBy: 'host:allow' }, approval: { by: 'host' } });
    expect(r.pending).toEqual([1, 0]);
  });

  it('remembers updatedPermissions: the next identical call is not asked again; settings destinations persist', async () => {
    const r = rig();
    const p = r.layer.check(req('make build'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    answer(r, 0, {
      behavior: 'allow',
      updatedPermissions: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make:*' }], behavior: 'allow', destination: 'localSettings' }],
    });
    expect(await p).toMatchObject({ behavior: 'allow', meta: { source: 'user_permanent' } });
    expect(await r.layer.check(req('make build', 'toolu_2'), new AbortController().signal)).toMatchObject({ behavior: 'allow', meta: { decidedBy: 'rule:Bash(make:*)@localSettings' } });
    expect(r.frames).toHaveLength(1);
    expect(r.persisted).toEqual([{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make:*' }], behavior: 'allow', destination: 'localSettings' }]);
  });

  it('a deny carries the host message and its interrupt flag', async () => {
    const r = rig();
    const p = r.layer.check(req('rm -rf /'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    answer(r, 0, { behavior: 'deny', message: 'No way.', interrupt: true, toolUseID: 'toolu_1' });
    expect(await p).toEqual({ behavior: 'deny', message: 'No way.', interrupt: true, meta: { decision: 'reject', source: 'user_reject', decidedBy: 'host:deny' } });
  });

  it("an allow whose updatedInput a deny rule forbids is a deny (agentd's: Claude Code would run it); an input sent back unchanged is no rewrite", async () => {
    const r = rig();
    r.layer.rules.add([{ toolName: 'Bash', ruleContent: 'rm:*', behavior: 'deny', source: 'userSettings', baseDir: cwd }]);
    const p = r.layer.check(req('make build'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    answer(r, 0, { behavior: 'allow', updatedInput: { command: 'rm -rf build' }, toolUseID: 'toolu_1' });
    const message = 'The permission handler (Bash) returned updatedInput that a deny rule forbids, so the call was not run: Permission to use Bash(rm -rf build) has been denied by the rule Bash(rm:*) (userSettings).';
    expect(await p).toEqual({
      behavior: 'deny',
      message,
      meta: { decision: 'reject', source: 'config', reasonType: 'rule', decidedBy: 'rule:Bash(rm:*)@userSettings' },
      announce: { reasonType: 'rule', reason: message },
    });
    const same = r.layer.check(req('make build', 'toolu_2'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    answer(r, 1, { behavior: 'allow', updatedInput: { command: 'make build' }, toolUseID: 'toolu_2' });
    expect(await same).toEqual({ behavior: 'allow', meta: { decision: 'accept', source: 'user_temporary', decidedBy: 'host:allow' }, approval: { by: 'host' } });
  });
});

describe('fail closed', () => {
  it('an error reply is a deny, reported as a failed request', async () => {
    const r = rig();
    const p = r.layer.check(req('make'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    answer(r, 0, { error: 'canUseTool callback is not provided.' });
    expect(await p).toMatchObject({ behavior: 'deny', message: 'Tool permission request failed: canUseTool callback is not provided. The call was denied.' });
  });

  it('a malformed answer, or one about another call, is a deny', async () => {
    const r = rig();
    const p1 = r.layer.check(req('make'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    answer(r, 0, { behavior: 'deny' });
    expect(await p1).toMatchObject({ behavior: 'deny', message: expect.stringContaining('not a valid permission result') });
    const p2 = r.layer.check(req('make', 'toolu_x'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    answer(r, 1, { behavior: 'allow', toolUseID: 'toolu_other' });
    expect(await p2).toMatchObject({ behavior: 'deny', message: expect.stringContaining('answered for another call') });
  });

  it('an interrupt while the host has not answered denies at once and cancels the request', async () => {
    const r = rig();
    const ctl = new AbortController();
    const p = r.layer.check(req('make'), ctl.signal);
    await vi.advanceTimersByTimeAsync(50);
    ctl.abort();
    expect(await p).toMatchObject({ behavior: 'deny', message: 'Tool permission request failed: The request was cancelled. The call was denied.' });
    expect(r.frames[1]).toEqual({ type: 'control_cancel_request', request_id: 'req-1' });
    expect(r.client.inFlight).toBe(0);
  });

  it('stdin closing with a request pending denies it; later requests are denied without being sent', async () => {
    const r = rig();
    const p = r.layer.check(req('make'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    r.client.closeAll('stdin closed');
    expect(await p).toMatchObject({ behavior: 'deny', message: expect.stringContaining('closed before request req-1 was answered') });
    expect(await r.layer.check(req('make', 't2'), new AbortController().signal)).toMatchObject({ behavior: 'deny' });
    expect(r.frames).toHaveLength(1);
  });

  it('the optional deadline denies when it fires (and there is no hidden one)', async () => {
    const r = rig({ timeoutMs: 5000 });
    const p = r.layer.check(req('make'), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(4999);
    expect(r.client.inFlight).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await p).toMatchObject({ behavior: 'deny', message: expect.stringContaining('No answer from the host within 5000 ms') });

    const r2 = rig();
    r2.layer.check(req('make'), new AbortController().signal).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(24 * 3600 * 1000);
    expect(r2.client.inFlight).toBe(1);
  });

  it('without a prompt tool an ask is denied at once, saying what would allow it', async () => {
    const r = rig({ interactive: false });
    expect(await r.layer.check(req('make build'), new AbortController().signal)).toMatchObject({
      behavior: 'deny',
      message: 'Bash was denied: it needs permission (may change the system) and no one can be asked in this session (no --permission-prompt-tool). To allow it, add allow rules such as Bash(make:*) (--allowedTools or settings).',
      announce: { reasonType: 'mode' },
    });
  });

  it('dontAsk denies whatever is not pre-approved', async () => {
    const r = rig();
    r.mode.current = 'dontAsk';
    expect(await r.layer.check(req('make'), new AbortController().signal)).toMatchObject({ behavior: 'deny', meta: { decidedBy: 'mode:dontAsk' } });
    expect(r.frames).toEqual([]);
  });

  it('a PermissionRequest hook that decides first wins and the host request is cancelled', async () => {
    const r = rig({ hook: async () => ({ behavior: 'deny', message: 'policy says no', source: 'hook:policy' }) });
    expect(await r.layer.check(req('make'), new AbortController().signal)).toMatchObject({ behavior: 'deny', message: 'policy says no', meta: { source: 'hook' } });
    expect(r.frames.map((f) => f.type)).toEqual(['control_request', 'control_cancel_request']);
  });
});

describe('set_mcp_permission_mode_override in the layer', () => {
  const mcpTool = (server: string): AnyTool => ({
    ...Bash,
    name: `mcp__${server}__go`,
    mcpServer: { name: server, source: 'dynamic' },
    permissionSubject: () => ({ kind: 'none' }),
  });
  const call = (tool: AnyTool): PermissionRequestInfo => ({ tool, input: {}, toolUseId: 't', hook: undefined, shared: { cwd, additionalDirectories: [] } });

  it('a pinned server is not auto-allowed by bypassPermissions (tighten-only); others still are', async () => {
    const overrides = new Map<string, 'default' | 'auto'>([['web', 'default'], ['cls', 'auto']]);
    const r = rig({ interactive: false, mcpModeOverride: (s) => overrides.get(s) });
    r.mode.current = 'bypassPermissions';
    const signal = new AbortController().signal;
    for (const server of ['web', 'cls']) {
      const v = await r.layer.check(call(mcpTool(server)), signal);
      expect(v).toMatchObject({ behavior: 'deny', meta: { decidedBy: 'mode:default' } });
      expect(v.behavior === 'deny' ? v.message : '').toMatch(
        new RegExp(`^mcp__${server}__go was denied: it needs permission \\(mcp__${server}__go needs permission\\.\\) and no one can be asked in this session`),
      );
    }
    expect(await r.layer.check(call(mcpTool('free')), signal)).toMatchObject({ behavior: 'allow', meta: { decidedBy: 'mode:bypassPermissions' } });
    expect(await r.layer.check(req('rm -rf x'), signal)).toMatchObject({ behavior: 'allow', meta: { decidedBy: 'mode:bypassPermissions' } });
    overrides.delete('web');
    expect(await r.layer.check(call(mcpTool('web')), signal)).toMatchObject({ behavior: 'allow', meta: { decidedBy: 'mode:bypassPermissions' } });
  });
});

describe('per-tool MCP policies in the layer', () => {
  const mcpTool = (server: string): AnyTool => ({ ...Bash, name: `mcp__${server}__go`, mcpServer: { name: server, source: 'dynamic' }, permissionSubject: () => ({ kind: 'none' }) });
  const call = (tool: AnyTool): PermissionRequestInfo => ({ tool, input: {}, toolUseId: 't', hook: undefined, shared: { cwd, additionalDirectories: [] } });
  const policies = new Map([
    ['mcp__deny__go', 'always_deny' as const],
    ['mcp__ask__go', 'always_ask' as const],
    ['mcp__allow__go', 'always_allow' as const],
  ]);
  const signal = new AbortController().signal;

  it('always_deny denies in every mode; always_ask asks where the mode or a rule would allow; always_allow allows an ask', async () => {
    const r = rig({ interactive: false, mcpToolPolicy: (_s, name) => policies.get(name) });
    r.mode.current = 'bypassPermissions';
    expect(await r.layer.check(call(mcpTool('deny')), signal)).toMatchObject({ behavior: 'deny', meta: { decidedBy: 'mcpPolicy:always_deny' } });
    // Asked, and nobody can answer here: denied, naming the policy.
    const asked = await r.layer.check(call(mcpTool('ask')), signal);
    expect(asked).toMatchObject({ behavior: 'deny', meta: { decidedBy: 'mcpPolicy:always_ask' } });
    expect(asked.behavior === 'deny' ? asked.message : '').toContain('always_ask');
    r.mode.current = 'default';
    r.layer.rules.add([{ toolName: 'mcp__ask', behavior: 'allow', source: 'session', baseDir: cwd }]);
    expect(await r.layer.check(call(mcpTool('ask')), signal)).toMatchObject({ behavior: 'deny', meta: { decidedBy: 'mcpPolicy:always_ask' } });
    expect(await r.layer.check(call(mcpTool('allow')), signal)).toMatchObject({ behavior: 'allow', meta: { decidedBy: 'mcpPolicy:always_allow' } });
    // A deny rule still wins over always_allow.
    r.layer.rules.add([{ toolName: 'mcp__allow__go', behavior: 'deny', source: 'session', baseDir: cwd }]);
    expect(await r.layer.check(call(mcpTool('allow')), signal)).toMatchObject({ behavior: 'deny', meta: { decidedBy: expect.stringContaining('rule') } });
  });
});
