// The control handlers the current claude-agent-acp needs: generate_session_title (local, persisted on request),
// get_context_usage (an estimated breakdown in Claude Code's shape) and remote_control (a typed refusal).
import { buildInitializeResponse } from '../../../src/control/initialize.js';
import { afterEach, describe, expect, it } from 'vitest';
import { GetContextUsageResponse } from '../../../protocol/src/index.js';
import type { ContextSnapshot } from '../../../src/control/context-usage.js';
import { estimateContextUsage } from '../../../src/control/context-usage.js';
import { type HandlerDeps, createControlHandlers } from '../../../src/control/handlers.js';
import { localSessionTitle } from '../../../src/control/session-title.js';
import { ModelNames, NO_MODEL_POLICY } from '../../../src/model/model-allowlist.js';
import { modelRows } from '../../../src/model/model-rows.js';
import { FIRST_PARTY_ENV } from '../../../src/model/names.js';
import { type SessionHarness, sessionHarness } from '../../support/session-harness.js';

const harnesses: SessionHarness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.session.endOfInput();
});

const EMPTY: ContextSnapshot = { model: 'claude-sonnet-4-5', system: [], tools: [], messages: [] };

function handlers(over: Partial<HandlerDeps> = {}): { h: ReturnType<typeof createControlHandlers>; persisted: string[] } {
  const harness = sessionHarness({});
  harnesses.push(harness);
  const persisted: string[] = [];
  const h = createControlHandlers({
    session: harness.session,
    initialize: () => buildInitializeResponse({ models: modelRows(new ModelNames(FIRST_PARTY_ENV, NO_MODEL_POLICY), 'claude-test'), currentModel: 'claude-test', permissionMode: 'default', account: { apiKeySource: 'none', tokenSource: 'none', apiProvider: 'firstParty' }, hooksApplied: false, agentdVersion: '0.0.0', busy: false, commands: [], agents: [] }),
    bypassRefusal: 'Cannot set permission mode to bypassPermissions because the session was not launched with --allow-dangerously-skip-permissions or --dangerously-skip-permissions.',
    disabledModes: new Map(),
    models: new ModelNames(FIRST_PARTY_ENV, NO_MODEL_POLICY),
    onPermissionMode: () => undefined,
    mcpStatus: () => [],
    reloadSkills: () => [],
    stopTask: async () => false,
    mcpMessage: () => false,
    mcpReconnect: async () => undefined,
    mcpToggle: async () => undefined,
    mcpSetServers: async () => ({ added: [], removed: [], errors: {} }),
    mcpModeOverride: () => true,
    mcpAuth: {
      authenticate: async () => ({ requiresUserAction: false, callbackExpected: false }),
      submitCallback: async () => undefined,
      clearAuth: async () => undefined,
    },
    contextSnapshot: async () => EMPTY,
    reloadOutputStyles: () => ['default'],
    persistTitle: (t) => persisted.push(t),
    ...over,
  });
  return { h, persisted };
}

describe('localSessionTitle', () => {
  it.each([
    ['Please fix the login bug in the auth module. Users cannot sign in since yesterday.', 'Fix the login bug in the auth module'],
    ['can you refactor parser.ts to use a state machine?', 'Refactor parser.ts to use a state machine'],
    ['Hi, could you please add tests for the CSV exporter', 'Add tests for the CSV exporter'],
    ['Hello world example in Rust', 'Hello world example in Rust'],
    ["let's write the release notes", 'Write the release notes'],
    ['```\nstack trace line\n```\n\n  why does this   crash on start?  ', 'Why does this crash on start'],
    ['Fix it. The login page throws', 'Fix it. The login page throws'],
    [
      'Investigate why the nightly integration pipeline keeps timing out on the artifact upload step for arm64',
      'Investigate why the nightly integration pipeline keeps…',
    ],
    ['überprüfe die Konfiguration', 'Überprüfe die Konfiguration'],
  ])('%j → %j', (description, title) => {
    expect(localSessionTitle(description)).toBe(title);
  });

  it.each(['hi', '', '   \n  ', 'ok!', '```\ncode only\n```', '???'])('%j has nothing to title: null', (description) => {
    expect(localSessionTitle(description)).toBeNull();
  });

  it('never exceeds 60 characters', () => {
    expect(localSessionTitle('x'.repeat(500))).toBe(`${'X'}${'x'.repeat(58)}…`);
  });
});

describe('generate_session_title', () => {
  it('answers a local title and stores it only when asked to persist', async () => {
    const { h, persisted } = handlers();
    expect(await h.generate_session_title({ subtype: 'generate_session_title', description: 'please fix the flaky upload test', persist: true })).toEqual({
      ok: true,
      response: { title: 'Fix the flaky upload test' },
    });
    expect(await h.generate_session_title({ subtype: 'generate_session_title', description: 'rename the CLI flags' })).toEqual({ ok: true, response: { title: 'Rename the CLI flags' } });
    expect(persisted).toEqual(['Fix the flaky upload test']);
  });

  it('answers null for nothing to title, and stores nothing', async () => {
    const { h, persisted } = handlers();
    expect(await h.generate_session_title({ subtype: 'generate_session_title', description: 'hi', persist: true })).toEqual({ ok: true, response: { title: null } });
    expect(persisted).toEqual([]);
  });

  it('calls a model only when the request asks for one (agentd_use_model), and refuses that when none is wired', async () => {
    const asked: string[] = [];
    const withModel = handlers({
      modelTitle: async (d) => {
        asked.push(d);
        return 'Flaky upload test';
      },
    });
    expect(await withModel.h.generate_session_title({ subtype: 'generate_session_title', description: 'please fix the flaky upload test' })).toEqual({
      ok: true,
      response: { title: 'Fix the flaky upload test' },
    });
    expect(asked).toEqual([]);
    expect(await withModel.h.generate_session_title({ subtype: 'generate_session_title', description: 'please fix the flaky upload test', persist: true, agentd_use_model: true })).toEqual({
      ok: true,
      response: { title: 'Flaky upload test' },
    });
    expect(asked).toEqual(['please fix the flaky upload test']);
    expect(withModel.persisted).toEqual(['Flaky upload test']);

    const without = handlers();
    expect(await without.h.generate_session_title({ subtype: 'generate_session_title', description: 'please fix it', agentd_use_model: true })).toEqual({
      ok: false,
      code: 'not_available',
      error: 'A model-written session title is not available in this agentd session.',
    });
  });
});

describe('remote_control', () => {
  it('refuses to switch Remote Control on with a typed not_available error, and switching it off succeeds', async () => {
    const { h } = handlers();
    expect(await h.remote_control({ subtype: 'remote_control', enabled: true, name: 'laptop' })).toEqual({
      ok: false,
      code: 'not_available',
      error: 'Remote Control is not available with agentd: it connects a Claude Code session to claude.ai, and agentd runs sessions on this machine only.',
    });
    expect(await h.remote_control({ subtype: 'remote_control', enabled: false })).toEqual({ ok: true, response: {} });
  });
});

describe('get_context_usage', () => {
  const snapshot: ContextSnapshot = {
    model: 'claude-sonnet-4-5',
    system: [{ type: 'text', text: 's'.repeat(400) }],
    tools: [{ name: 'Read', description: 'd'.repeat(100), input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: 'u'.repeat(40) },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a'.repeat(80) },
          { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/w/a.txt' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'r'.repeat(4000) }] },
    ],
  };

  it('estimates each category at ~4 characters a token, in Claude Code’s shape, with the model’s window', () => {
    const u = estimateContextUsage(snapshot);
    expect(GetContextUsageResponse.safeParse(u).success).toBe(true);
    const toolTokens = Math.ceil(JSON.stringify(snapshot.tools[0]).length / 4);
    const call = Math.ceil('Read'.length / 4) + Math.ceil(JSON.stringify({ file_path: '/w/a.txt' }).length / 4);
    const messages = 10 + 20 + call + 1000; // user text, assistant text, the call (name + input JSON), the result text
    const total = 100 + toolTokens + messages;
    expect(u.categories).toEqual([
      { id: 'system_prompt', name: 'System prompt', tokens: 100, color: 'promptBorder', kind: 'used' },
      { id: 'system_tools', name: 'System tools', tokens: toolTokens, color: 'inactive', kind: 'used' },
      { id: 'messages', name: 'Messages', tokens: messages, color: 'purple_FOR_SUBAGENTS_ONLY', kind: 'used' },
      { id: 'free_space', name: 'Free space', tokens: 200_000 - total, color: 'promptBorder', kind: 'free' },
    ]);
    expect({ ...u, categories: undefined, gridRows: undefined }).toEqual({
      categories: undefined,
      gridRows: undefined,
      totalTokens: total,
      maxTokens: 200_000,
      rawMaxTokens: 200_000,
      percentage: 1,
      model: 'claude-sonnet-4-5',
      memoryFiles: [],
      mcpTools: [],
      systemTools: [{ name: 'Read', tokens: toolTokens }],
      systemPromptSections: [{ name: 'System prompt', tokens: 100 }],
      agents: [],
      isAutoCompactEnabled: false,
      messageBreakdown: {
        toolCallTokens: call,
        toolResultTokens: 1000,
        attachmentTokens: 0,
        assistantMessageTokens: 20,
        userMessageTokens: 10,
        redirectedContextTokens: 0,
        unattributedTokens: 0,
        toolCallsByType: [{ name: 'Read', callTokens: call, resultTokens: 1000 }],
        attachmentsByType: [],
      },
      apiUsage: null,
      agentd_estimate: 'estimate',
    });
  });

  it('draws the 10×10 grid: one square per 1% of the window, used rows first, then free space', () => {
    const u = estimateContextUsage({ ...snapshot, messages: [{ role: 'user', content: 'm'.repeat(4 * 5000) }] });
    expect(u.gridRows).toHaveLength(10);
    expect(u.gridRows.every((r) => r.length === 10)).toBe(true);
    const cells = u.gridRows.flat();
    // 100 + ~28 + 5000 tokens of 200k: 1 square each for the system rows, 3 for messages (2 000 tokens a square).
    expect(cells.slice(0, 5).map((c) => [c.categoryName, c.squareFullness])).toEqual([
      ['System prompt', 0.05],
      ['System tools', u.categories[1]!.tokens / 2000],
      ['Messages', 1],
      ['Messages', 1],
      ['Messages', 0.5],
    ]);
    expect(cells.slice(5).every((c) => c.categoryName === 'Free space')).toBe(true);
  });

  it('an empty session has only the free row; the window follows the model', async () => {
    const { h } = handlers({ contextSnapshot: async () => ({ ...EMPTY, model: 'claude-opus-5-5' }) });
    const r = await h.get_context_usage({ subtype: 'get_context_usage', detail: 'summary' });
    expect(r.ok && r.response['categories']).toEqual([{ id: 'free_space', name: 'Free space', tokens: 1_000_000, color: 'promptBorder', kind: 'free' }]);
    expect(r.ok && r.response['rawMaxTokens']).toBe(1_000_000);
  });
});

describe('set_mcp_permission_mode_override', () => {
  it('stores and clears the override; an unknown server gets a warning; askForTools is refused', async () => {
    const calls: unknown[] = [];
    const { h } = handlers({ mcpModeOverride: (server, mode) => (calls.push([server, mode]), server === 'web') });
    const req = (serverName: string, mode: 'default' | 'auto' | null, extra: Record<string, unknown> = {}) =>
      h.set_mcp_permission_mode_override({ subtype: 'set_mcp_permission_mode_override', serverName, mode, ...extra });
    expect(await req('web', 'default')).toEqual({ ok: true, response: {} });
    expect(await req('typo', 'auto')).toEqual({
      ok: true,
      response: { warning: 'No MCP server named "typo" is known; the override is stored and applies once a server with that name connects.' },
    });
    expect(await req('typo', null)).toEqual({ ok: true, response: { warning: 'No MCP server named "typo" is known.' } });
    expect(await req('web', 'default', { askForTools: [{ name: 'navigate' }] })).toEqual({
      ok: false,
      code: 'not_available',
      error: 'set_mcp_permission_mode_override: askForTools is not supported by agentd.',
    });
    expect(calls).toEqual([
      ['web', 'default'],
      ['typo', 'auto'],
      ['typo', null],
    ]);
  });
});
