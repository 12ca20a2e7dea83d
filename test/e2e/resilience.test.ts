// Model API resilience over the real @anthropic-ai/sdk path, against the loopback Messages server (issue 5):
// 529 twice then success, a stream cut mid-tool_use, a stall (watchdog), 401.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { AGENTD, STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runTurn(scenario: Scenario, env: Record<string, string> = {}) {
  server = await startLoopbackServer(scenario);
  const d = startDaemon({
    env: baseEnv({ ANTHROPIC_API_KEY: 'sk-test-key-000000', ANTHROPIC_BASE_URL: server.url, AGENTD_RETRY_BASE_DELAY_MS: '20', ...env }),
  });
  d.send(initializeFrame());
  d.send(userFrame('go'));
  d.endInput();
  const exit = await d.exited;
  return { d, exit, frames: d.tap.frames, requests: server.requests };
}

const kinds = (frames: Array<Record<string, unknown>>): string[] =>
  frames.filter((f) => f['type'] !== 'control_response').map((f) => `${String(f['type'])}${f['subtype'] ? `/${String(f['subtype'])}` : ''}`);

describe('resilience against the loopback Messages server', () => {
  it('529 twice then success: two api_retry frames, one result', async () => {
    const { frames, exit } = await runTurn({
      rules: [
        {
          replies: [
            { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
            { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
            { content: [{ type: 'text', text: 'Succeeded after two overloaded errors.' }] },
          ],
        },
      ],
    });
    expect(exit.code).toBe(0);
    expect(kinds(frames)).toEqual(['system/init', 'system/api_retry', 'system/api_retry', 'assistant', 'result/success']);
    expect(frames.filter((f) => f['subtype'] === 'api_retry').map((f) => [f['attempt'], f['max_retries'], f['error_status'], f['error']])).toEqual([
      [1, 10, 529, 'overloaded'],
      [2, 10, 529, 'overloaded'],
    ]);
    expect(frames.find((f) => f['type'] === 'result')).toMatchObject({ is_error: false, result: 'Succeeded after two overloaded errors.' });
  });

  it('a stream cut mid-tool_use is retried: no orphan tool_result, one result', async () => {
    const { frames, requests } = await runTurn({
      rules: [
        {
          when: { hasToolResults: false },
          replies: [
            {
              content: [
                { type: 'text', text: 'Let me look.' },
                { type: 'tool_use', id: 'toolu_cut', name: 'Glob', input: { pattern: '*.nothing-here' } },
              ],
              disconnectAfterBlocks: 1,
              // Let the first block reach the client before the connection drops.
              delays: { afterBlockMs: { '0': 100 } },
            },
            { content: [{ type: 'tool_use', id: 'toolu_ok', name: 'Glob', input: { pattern: '*.nothing-here' } }] },
          ],
        },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Nothing found.' }] } },
      ],
    });
    expect(kinds(frames)).toEqual(['system/init', 'assistant', 'system/api_retry', 'assistant', 'user', 'assistant', 'result/success']);
    const results = frames.filter((f) => f['type'] === 'user').map((f) => JSON.stringify(f));
    expect(results).toHaveLength(1);
    expect(results[0]).toContain('toolu_ok');
    expect(JSON.stringify(requests[2]?.body.messages)).not.toContain('toolu_cut');
    expect(requests[0]?.outcome).toBe('disconnected');
  });

  it('a stalled response trips the watchdog, is retried, and ends as a typed timeout error', async () => {
    const { frames, requests } = await runTurn({ rules: [{ reply: { stall: true } }] }, { AGENTD_FIRST_EVENT_TIMEOUT_MS: '300', AGENTD_MAX_RETRIES: '1' });
    expect(requests).toHaveLength(2);
    expect(frames.filter((f) => f['subtype'] === 'api_retry')).toHaveLength(1);
    // Claude Code's shape for a turn the API never answered: `success` with is_error and the error's text.
    expect(frames.find((f) => f['type'] === 'result')).toMatchObject({
      subtype: 'success',
      is_error: true,
      result: 'API Error: No response from the model API in 300 ms.',
      agentd_error: { category: 'timeout', retryable: true },
    });
  });

  it('401: a typed authentication error result, no retries; exit code 1 (stream-json and -p, as Claude Code)', async () => {
    const { frames, requests, exit } = await runTurn({ rules: [{ reply: { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } } }] });
    expect(requests).toHaveLength(1);
    expect(exit.code).toBe(1); // the last result was an error: Claude Code exits 1 in stream-json too (measured)
    expect(frames.find((f) => f['type'] === 'assistant')).toMatchObject({ error: 'authentication_failed', message: { model: '<synthetic>' } });
    expect(frames.find((f) => f['type'] === 'result')).toMatchObject({
      subtype: 'success',
      is_error: true,
      result: 'Invalid API key · Fix external API key',
      api_error_status: 401,
      agentd_error: { category: 'authentication', retryable: false, status: 401 },
    });
    // Async spawn: the loopback server lives in this process and must keep serving.
    const p = spawn(process.execPath, [AGENTD, '-p', 'hi'], { env: baseEnv({ ANTHROPIC_API_KEY: 'sk-test-key-000000', ANTHROPIC_BASE_URL: server?.url }), cwd: tempDir() });
    let out = '';
    p.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const status = await new Promise((r) => p.on('exit', r));
    expect(status).toBe(1);
    expect(out).toBe('Invalid API key · Fix external API key\n');
  });

});

describe('fallback model', () => {
  it('switches to --fallback-model after three consecutive overloads', async () => {
    server = await startLoopbackServer({
      rules: [
        { when: { model: 'claude-backup' }, reply: { content: [{ type: 'text', text: 'from the fallback' }] } },
        { reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } } },
      ],
    });
    const d = startDaemon({
      args: [...STREAM_ARGS, '--fallback-model', 'claude-backup'],
      env: baseEnv({ ANTHROPIC_API_KEY: 'sk-test-key-000000', ANTHROPIC_BASE_URL: server.url, AGENTD_RETRY_BASE_DELAY_MS: '10' }),
    });
    d.send(initializeFrame());
    d.send(userFrame('go'));
    d.endInput();
    await d.exited;
    expect(server.requests.map((r) => r.body.model)).toEqual(['claude-opus-5-5', 'claude-opus-5-5', 'claude-opus-5-5', 'claude-backup']);
    expect(d.tap.frames.find((f) => f['type'] === 'result')).toMatchObject({ subtype: 'success', result: 'from the fallback' });
  });
});
