// Reliability under faults (issue 22), through the official TS SDK against fault-injecting loopback Messages
// servers: a rate limit that names a long wait, the host going away mid-tool, temporary files at exit.
import { type Options, type SDKMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackOptions, type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { collect } from '../support/sdk-run.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KEY = 'sk-test-reliability-00000';

async function loopback(scenario: Scenario, opts: LoopbackOptions = {}): Promise<{ server: LoopbackServer; options: (extra?: Partial<Options>) => Options; cwd: string; env: Record<string, string> }> {
  server = await startLoopbackServer(scenario, {}, opts);
  const cwd = tempDir('agentd-rel-');
  const env = baseEnv({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, AGENTD_RETRY_BASE_DELAY_MS: '10' });
  return { server, cwd, env, options: (extra = {}) => ({ pathToClaudeCodeExecutable: AGENTD, cwd, env, ...extra }) };
}

const typeOf = (m: SDKMessage): string => `${m.type}${'subtype' in m && typeof m.subtype === 'string' ? `/${m.subtype}` : ''}`;

describe('a rate limit whose retry-after is beyond what a turn waits for', () => {
  it('429 with retry-after 3600: the turn ends at once with the API message and the time it names, one request, no retries', async () => {
    const s = await loopback({ rules: [{ reply: { error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your hourly rate limit', retryAfter: 3600 } } }] });
    const msgs = await collect(query({ prompt: 'go', options: s.options() }));
    expect(s.server.requests).toHaveLength(1);
    expect(msgs.filter((m) => typeOf(m) === 'system/api_retry')).toEqual([]);
    const result = msgs.find((m) => m.type === 'result') as Record<string, unknown> | undefined;
    const message = expect.stringMatching(
      /^API error 429 \(rate_limit\): Number of request tokens has exceeded your hourly rate limit \(the API asks to retry after 3600 s, at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z; a turn waits for at most 60 s\)$/,
    );
    expect([result?.['is_error'], result?.['errors'], result?.['agentd_error']]).toEqual([
      true,
      [message],
      { category: 'rate_limit', retryable: true, status: 429, resets_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
  });
});
