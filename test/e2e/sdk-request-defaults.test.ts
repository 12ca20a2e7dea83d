// The request defaults through the official TS SDK against the loopback model: with the SDK's default options
// agentd's first model request carries what Claude Code 2.1.330's does (test/fixtures/claude-code-first-request.json,
// captured by test/measure/request-defaults.measure.ts), and the SDK's thinking/effort options and
// setMaxThinkingTokens reach the requests as they do there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Options, type SDKUserMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { AGENTD, ROOT, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackServer, type RecordedRequest, startLoopbackServer } from '../support/loopback-server.js';
import type { Scenario } from '../../src/model/scripted/scenario.js';

interface Captured {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}
const CLAUDE_CODE: Captured = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/claude-code-first-request.json'), 'utf8')) as Captured;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A request as compared: the body without the prompt text (`system`, and `messages`, which carry the environment and
 * reminders) and the tool set (`tools`: names, descriptions and schemas), ids normalised; with the path and the
 * headers that carry request defaults (betas, API version, app, session id).
 */
function comparable(r: Captured): Record<string, unknown> {
  const { system: _system, messages: _messages, tools: _tools, metadata, ...rest } = r.body;
  const userId = JSON.parse((metadata as { user_id: string }).user_id) as Record<string, string>;
  const sessionId = userId['session_id'] ?? '';
  return {
    path: r.path,
    headers: {
      'anthropic-beta': r.headers['anthropic-beta'],
      'anthropic-version': r.headers['anthropic-version'],
      'x-app': r.headers['x-app'],
      'x-claude-code-session-id': r.headers['x-claude-code-session-id'] === sessionId ? '<the session id>' : r.headers['x-claude-code-session-id'],
    },
    body: {
      ...rest,
      // A JSON object in a string, keys in Claude Code's order.
      metadata: { user_id: Object.keys(userId).join(',') },
      device_id: /^[0-9a-f]{64}$/.test(userId['device_id'] ?? '') ? '<64 hex digits>' : userId['device_id'],
      account_uuid: userId['account_uuid'],
      session_id: UUID.test(sessionId) ? '<uuid>' : sessionId,
    },
  };
}

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const THINKING_REPLY: Scenario = { rules: [{ reply: { content: [{ type: 'thinking', thinking: 'Let me think.', signature: 'sig-1' }, { type: 'text', text: 'answer' }] } }] };

/** Runs the prompts one turn at a time through query(); `between[i]` runs after turn i. */
async function run(options: Partial<Options>, prompts: string[], between: Array<(q: ReturnType<typeof query>) => Promise<void>> = []): Promise<RecordedRequest[]> {
  await server?.close();
  server = await startLoopbackServer(THINKING_REPLY);
  const env = baseEnv({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url });
  let release: () => void = () => undefined;
  async function* input(): AsyncGenerator<SDKUserMessage> {
    for (const p of prompts) {
      yield { type: 'user', message: { role: 'user', content: p }, parent_tool_use_id: null, session_id: '' };
      await new Promise<void>((r) => (release = r));
    }
  }
  const q = query({ prompt: input(), options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env, ...options } });
  let results = 0;
  for await (const m of q) {
    if (m.type !== 'result') continue;
    expect(m.subtype).toBe('success');
    await between[results]?.(q);
    results++;
    release();
    if (results === prompts.length) break;
  }
  return server.requests;
}

const defaultsOf = (r: RecordedRequest): Record<string, unknown> => {
  const b = r.body as unknown as Record<string, unknown>;
  return { model: b['model'], max_tokens: b['max_tokens'], thinking: b['thinking'], context_management: b['context_management'], output_config: b['output_config'], temperature: b['temperature'], betas: r.headers['anthropic-beta'] };
};

describe('request defaults through the official SDK', () => {
  it("with default options, the first request is Claude Code 2.1.330's but for the prompt text and the tool set", async () => {
    const [first] = await run({}, ['hi']);
    expect(first).toBeDefined();
    const ours = comparable({ path: first?.path ?? '', headers: first?.headers as Record<string, string>, body: first?.body as unknown as Record<string, unknown> });
    expect(ours).toEqual(comparable(CLAUDE_CODE));
  });

  it('thinking {enabled, budgetTokens} on a budget model, then setMaxThinkingTokens(0): budget, then off with temperature 1; the signed thinking block goes back', async () => {
    const requests = await run({ model: 'claude-sonnet-4-5', thinking: { type: 'enabled', budgetTokens: 8000 } }, ['first', 'second'], [(q) => q.setMaxThinkingTokens(0)]);
    const base = 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20';
    expect(requests.map(defaultsOf)).toEqual([
      { model: 'claude-sonnet-4-5', max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 8000, display: 'updates' }, context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }, output_config: undefined, temperature: undefined, betas: `${base},thinking-display-updates-2026-08-18` },
      { model: 'claude-sonnet-4-5', max_tokens: 32000, thinking: { type: 'disabled' }, context_management: undefined, output_config: undefined, temperature: 1, betas: base },
    ]);
    // The API requires the signed thinking block back, unchanged, in the conversation.
    expect(requests[1]?.body.messages.find((m) => m.role === 'assistant')).toEqual({ role: 'assistant', content: [{ type: 'thinking', thinking: 'Let me think.', signature: 'sig-1' }, { type: 'text', text: 'answer' }] });
  });

  it('effort and an adaptive thinking display from the SDK options; thinking disabled on a model that refuses it stays adaptive', async () => {
    const requests = await run({ effort: 'low', thinking: { type: 'disabled' } }, ['one']);
    expect(requests.map(defaultsOf)).toEqual([
      {
        model: 'claude-opus-5-5',
        max_tokens: 128000,
        thinking: { type: 'adaptive', display: 'updates' },
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        output_config: { effort: 'low' },
        temperature: undefined,
        betas: CLAUDE_CODE.headers['anthropic-beta'],
      },
    ]);
    const summarized = await run({ thinking: { type: 'adaptive', display: 'summarized' } }, ['two']);
    expect(summarized.map(defaultsOf)).toEqual([
      {
        model: 'claude-opus-5-5',
        max_tokens: 128000,
        thinking: { type: 'adaptive', display: 'summarized' },
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        output_config: { effort: 'medium' },
        temperature: undefined,
        // No display-updates beta without the `updates` display.
        betas: 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,per-turn-control-2026-07-01,mid-conversation-tool-changes-2026-07-01,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20,effort-2025-11-24',
      },
    ]);
  });
});
