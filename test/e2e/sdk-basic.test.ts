// The official TypeScript Agent SDK drives agentd against the loopback Messages server (the real
// @anthropic-ai/sdk path): text turns, multi-turn streaming input, partial messages, interrupt, setModel,
// setPermissionMode.
import { type SDKMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { AGENTD, baseEnv, tappedSpawner, tempDir } from '../support/daemon.js';
import type { FrameTap } from '../support/frames.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { withoutContext } from '../support/context.js';
import { promptChannel as channel } from '../support/sdk-run.js';

const SCENARIO: Scenario = {
  rules: [
    { when: { lastUserText: 'slow story' }, reply: { content: [{ type: 'text', text: 'Once upon a time there was a very slow stream that never seemed to end at all.' }], chunkSize: 4, delays: { chunkMs: 150 } } },
    { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: 'Answer one.' }], usage: { input_tokens: 100, output_tokens: 10 } } },
    { when: { lastUserText: 'second' }, reply: { content: [{ type: 'text', text: 'Answer two; I remember: {{lastUserText}}' }], usage: { input_tokens: 200, output_tokens: 20 } } },
    { reply: { content: [{ type: 'thinking', thinking: 'Considering.' }, { type: 'text', text: 'Hello from the loopback model.' }], usage: { input_tokens: 1000, output_tokens: 50 } } },
  ],
};

let server: LoopbackServer;
let taps: FrameTap[];

beforeEach(async () => {
  server = await startLoopbackServer(SCENARIO);
  taps = [];
});
afterEach(async () => {
  await server.close();
});

function options(extra: Record<string, unknown> = {}) {
  return {
    pathToClaudeCodeExecutable: AGENTD,
    cwd: tempDir(),
    env: baseEnv({ ANTHROPIC_API_KEY: 'sk-test-loopback-key-0000', ANTHROPIC_BASE_URL: server.url, CLAUDE_CODE_SDK_READS_SESSION_STATE: '1' }),
    spawnClaudeCodeProcess: tappedSpawner(taps),
    ...extra,
  };
}

async function collect(q: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of q) out.push(m);
  return out;
}

describe('official SDK over the real Anthropic adapter', () => {
  it('runs a text turn and reports a success result with usage and cost', async () => {
    const msgs = await collect(query({ prompt: 'Say hello', options: options() }));
    const types = msgs.map((m) => `${m.type}${'subtype' in m ? `/${m.subtype}` : ''}`);
    expect(types).toEqual(['system/init', 'assistant', 'assistant', 'result/success']);
    const result = msgs.at(-1);
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'Hello from the loopback model.',
      num_turns: 1,
      stop_reason: 'end_turn',
      permission_denials: [],
      usage: { input_tokens: 1000, output_tokens: 50 },
    });
    // 1000 in × $4/M + 50 out × $20/M for the default model.
    expect((result as { total_cost_usd: number }).total_cost_usd).toBeCloseTo(0.005, 9);
    expect(server.requests).toHaveLength(1);
    // The environment goes before the first prompt (a custom system prompt: the SDK's default `[""]`).
    const sent = server.requests[0]?.body.messages ?? [];
    expect(JSON.stringify(sent[0]?.content)).toContain('# Environment\\n- Working directory: ');
    expect(withoutContext(sent)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Say hello', cache_control: { type: 'ephemeral' } }] }]);
    // @anthropic-ai/sdk 1.x sends the key as a bearer token.
    expect(String(server.requests[0]?.headers['authorization'] ?? server.requests[0]?.headers['x-api-key'])).toContain('sk-test-loopback-key-0000');
  });

  it('keeps a multi-turn conversation through an async-iterable prompt', async () => {
    const input = channel();
    const q = query({ prompt: input, options: options() });
    input.push('first question');
    const seen: SDKMessage[] = [];
    for await (const m of q) {
      seen.push(m);
      if (m.type === 'result' && seen.filter((x) => x.type === 'result').length === 1) input.push('second question');
      if (m.type === 'result' && seen.filter((x) => x.type === 'result').length === 2) input.close();
    }
    const results = seen.filter((m) => m.type === 'result');
    expect(results.map((r) => (r as { result?: string }).result)).toEqual(['Answer one.', 'Answer two; I remember: second question']);
    // usage is per turn, total_cost_usd cumulative.
    expect(results.map((r) => r.usage.input_tokens)).toEqual([100, 200]);
    const costs = results.map((r) => r.total_cost_usd);
    expect(costs[1]).toBeGreaterThan(costs[0] as number);
    // The model saw the first exchange on the second request.
    expect(server.requests[1]?.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('streams partial messages with the assistant frame before content_block_stop', async () => {
    const msgs = await collect(query({ prompt: 'Say hello', options: options({ includePartialMessages: true }) }));
    const kinds = msgs.map((m) => (m.type === 'stream_event' ? `se:${m.event.type}` : m.type === 'system' ? `system/${m.subtype}` : m.type));
    expect(kinds[0]).toBe('system/init');
    expect(kinds).toContain('se:message_start');
    const firstAssistant = kinds.indexOf('assistant');
    expect(kinds[firstAssistant + 1]).toBe('se:content_block_stop');
    expect(kinds.slice(-3)).toEqual(['se:message_delta', 'se:message_stop', 'result']);
  });

  it('interrupt() during streaming ends the turn with error_during_execution and the session goes on', async () => {
    const input = channel();
    const q = query({ prompt: input, options: options({ includePartialMessages: true }) });
    input.push('tell me a slow story');
    const seen: SDKMessage[] = [];
    let interrupted = false;
    for await (const m of q) {
      seen.push(m);
      if (!interrupted && m.type === 'stream_event' && m.event.type === 'content_block_delta') {
        interrupted = true;
        await q.interrupt();
      }
      if (m.type === 'result') {
        if (seen.filter((x) => x.type === 'result').length === 1) input.push('first again');
        else input.close();
      }
    }
    const results = seen.filter((m) => m.type === 'result');
    expect(results[0]).toMatchObject({ subtype: 'error_during_execution', is_error: true, terminal_reason: 'aborted_streaming' });
    expect(results[1]).toMatchObject({ subtype: 'success', result: 'Answer one.' });
    expect(seen.some((m) => m.type === 'user' && JSON.stringify(m.message).includes('[Request interrupted by user]'))).toBe(true);
    expect(server.requests[0]?.outcome).toBe('client_closed');
  });

  it('setModel() and setPermissionMode() resolve and take effect', async () => {
    const input = channel();
    const q = query({ prompt: input, options: options() });
    await q.setModel('claude-some-future-model');
    await q.setPermissionMode('acceptEdits');
    input.push('first question');
    for await (const m of q) {
      if (m.type === 'system' && m.subtype === 'init') expect(m).toMatchObject({ model: 'claude-some-future-model', permissionMode: 'acceptEdits' });
      if (m.type === 'result') {
        // A model missing from the catalog is priced as Claude Code prices it (session/pricing.ts).
        expect(m.modelUsage['claude-some-future-model']).toMatchObject({ costBasis: 'unknown' });
        input.close();
      }
    }
    expect(server.requests[0]?.body.model).toBe('claude-some-future-model');
  });
});
