// Credentials through the official TypeScript SDK against the loopback Messages server (issue 14):
// CLAUDE_CODE_OAUTH_TOKEN sent as Claude Code 2.1.330 sends it, apiKeyHelper (cached, re-run on a 401, bounded
// when it hangs or fails), and initialize.account / system/init naming the source, never the secret.
import { type SDKMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { AGENTD, baseEnv, tappedSpawner, tempDir } from '../support/daemon.js';
import type { FrameTap } from '../support/frames.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { collect, collectSettled } from '../support/sdk-run.js';

const HELLO: Scenario = { rules: [{ reply: { content: [{ type: 'text', text: 'hello' }], usage: { input_tokens: 10, output_tokens: 2 } } }] };

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function run(env: Record<string, string>, prompt = 'hi', extra: Record<string, unknown> = {}) {
  const taps: FrameTap[] = [];
  const q = query({ prompt, options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env: baseEnv(env), spawnClaudeCodeProcess: tappedSpawner(taps), ...extra } });
  return { q, taps };
}

const lastResult = (msgs: SDKMessage[]) => msgs.filter((m) => m.type === 'result').at(-1) as Record<string, unknown> | undefined;

/** A helper script that prints key-<n> (n = how many times it ran), counting its runs in a file. */
function writeHelper(dir: string, body?: string): { path: string; runs: () => number } {
  const count = join(dir, 'runs');
  const path = join(dir, 'helper.sh');
  writeFileSync(path, body ?? `#!/bin/sh\necho run >> '${count}'\nn=$(wc -l < '${count}' | tr -d ' ')\necho "sk-helper-key-$n-0000000"\necho "helper diagnostics for sk-helper-key-$n-0000000" >&2\n`);
  chmodSync(path, 0o755);
  return { path, runs: () => readFileSync(count, 'utf8').split('\n').filter(Boolean).length };
}

function userSettings(env: Record<string, string>, settings: Record<string, unknown>): void {
  const dir = env['CLAUDE_CONFIG_DIR'] as string;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings));
}

describe('credentials through the official SDK', () => {
  it('sends CLAUDE_CODE_OAUTH_TOKEN as a bearer token with the oauth beta, and names the source', async () => {
    server = await startLoopbackServer(HELLO);
    const token = 'sk-ant-oat01-loopback-token-000000';
    const { q } = run({ CLAUDE_CODE_OAUTH_TOKEN: token, ANTHROPIC_BASE_URL: server.url });
    const account = await q.accountInfo();
    expect(account).toEqual({ tokenSource: 'CLAUDE_CODE_OAUTH_TOKEN', apiKeySource: 'none', apiProvider: 'firstParty' });
    const msgs = await collect(q);
    expect(lastResult(msgs)).toMatchObject({ subtype: 'success', result: 'hello' });
    const h = server.requests[0]?.headers ?? {};
    expect(h['authorization']).toBe(`Bearer ${token}`);
    expect(h['x-api-key']).toBeUndefined();
    expect(String(h['anthropic-beta']).split(',')).toContain('oauth-2025-04-20');
    // The token never reaches a frame.
    expect(JSON.stringify(msgs)).not.toContain(token);
  });

  it('runs apiKeyHelper, sends its key as Claude Code does, caches it, and re-runs it once on a 401', async () => {
    server = await startLoopbackServer({
      rules: [{ replies: [{ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }, { content: [{ type: 'text', text: 'first' }] }, { content: [{ type: 'text', text: 'second' }] }] }],
    });
    const env = baseEnv({ ANTHROPIC_BASE_URL: server.url });
    const helper = writeHelper(tempDir());
    userSettings(env, { apiKeyHelper: helper.path });
    const q = query({
      prompt: (async function* () {
        yield { type: 'user' as const, message: { role: 'user' as const, content: 'one' }, parent_tool_use_id: null, session_id: '' };
        await new Promise((r) => setTimeout(r, 200));
        yield { type: 'user' as const, message: { role: 'user' as const, content: 'two' }, parent_tool_use_id: null, session_id: '' };
      })(),
      options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env },
    });
    expect(await q.accountInfo()).toEqual({ tokenSource: 'none', apiKeySource: 'apiKeyHelper', apiProvider: 'firstParty' });
    const msgs: SDKMessage[] = [];
    for await (const m of q) {
      msgs.push(m);
      if (m.type === 'result' && msgs.filter((x) => x.type === 'result').length === 2) break;
    }
    const results = msgs.filter((m) => m.type === 'result').map((m) => ('result' in m ? m.result : m.subtype));
    expect(results).toEqual(['first', 'second']);
    const keys = server.requests.map((r) => [r.headers['x-api-key'], r.headers['authorization']]);
    expect(keys).toEqual([
      ['sk-helper-key-1-0000000', 'Bearer sk-helper-key-1-0000000'],
      ['sk-helper-key-2-0000000', 'Bearer sk-helper-key-2-0000000'],
      // The second turn reuses the cached key (TTL 5 minutes by default).
      ['sk-helper-key-2-0000000', 'Bearer sk-helper-key-2-0000000'],
    ]);
    expect(helper.runs()).toBe(2);
    const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init).toMatchObject({ apiKeySource: 'apiKeyHelper' });
    expect(JSON.stringify(msgs)).not.toContain('sk-helper-key');
  });

  it('re-runs apiKeyHelper once its TTL (CLAUDE_CODE_API_KEY_HELPER_TTL_MS) has passed', async () => {
    server = await startLoopbackServer(HELLO);
    const env = baseEnv({ ANTHROPIC_BASE_URL: server.url, CLAUDE_CODE_API_KEY_HELPER_TTL_MS: '0' });
    const helper = writeHelper(tempDir());
    userSettings(env, { apiKeyHelper: helper.path });
    const q = query({
      prompt: (async function* () {
        yield { type: 'user' as const, message: { role: 'user' as const, content: 'one' }, parent_tool_use_id: null, session_id: '' };
        await new Promise((r) => setTimeout(r, 200));
        yield { type: 'user' as const, message: { role: 'user' as const, content: 'two' }, parent_tool_use_id: null, session_id: '' };
      })(),
      options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env },
    });
    let n = 0;
    for await (const m of q) if (m.type === 'result' && ++n === 2) break;
    expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual(['sk-helper-key-1-0000000', 'sk-helper-key-2-0000000']);
  });

  it.each([
    ['hangs', '#!/bin/sh\nsleep 30\n', { AGENTD_API_KEY_HELPER_TIMEOUT_MS: '500' }, /apiKeyHelper \(.*settings\.json\) did not finish within 500 ms and was stopped/],
    ['prints nothing', '#!/bin/sh\nexit 0\n', {}, /apiKeyHelper \(.*\) exited 0 but printed no key on stdout/],
    ['exits non-zero', "#!/bin/sh\necho 'vault says: token sk-ant-api03-secret-in-stderr-0000 expired' >&2\nexit 3\n", { ANTHROPIC_FOUNDRY_API_KEY: 'sk-ant-api03-secret-in-stderr-0000' }, /apiKeyHelper \(.*\) failed \(exit code 3\); stderr \(redacted\): vault says: token \[REDACTED\] expired/],
  ])('a helper that %s ends the turn with a bounded, typed, explained authentication error', async (_name, script, extraEnv, message) => {
    server = await startLoopbackServer(HELLO);
    const env = baseEnv({ ANTHROPIC_BASE_URL: server.url, ...extraEnv });
    const dir = tempDir();
    writeFileSync(join(dir, 'h.sh'), script);
    chmodSync(join(dir, 'h.sh'), 0o755);
    userSettings(env, { apiKeyHelper: join(dir, 'h.sh') });
    const started = Date.now();
    const { messages: msgs, error } = await collectSettled(query({ prompt: 'hi', options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env } }));
    const result = lastResult(msgs);
    // A turn the model call could not even be sent for ends as an API error does (Claude Code's shape).
    expect(result).toMatchObject({ subtype: 'success', is_error: true, agentd_error: { category: 'authentication', retryable: false } });
    expect(String(result?.['result'])).toMatch(/^Failed to authenticate\. API Error: /);
    expect(String(result?.['result'])).toMatch(message);
    expect(error).toBe(`Claude Code returned an error result: ${String(result?.['result'])}`);
    expect(JSON.stringify(msgs)).not.toContain('secret-in-stderr');
    expect(server.requests).toHaveLength(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('does not run an apiKeyHelper from an untrusted project settings file', async () => {
    server = await startLoopbackServer(HELLO);
    const cwd = tempDir();
    const marker = join(cwd, 'ran');
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(join(cwd, '.claude', 'settings.json'), JSON.stringify({ apiKeyHelper: `touch '${marker}'; echo sk-project-key-000000` }));
    const { messages: msgs } = await collectSettled(query({ prompt: 'hi', options: { pathToClaudeCodeExecutable: AGENTD, cwd, env: baseEnv({ ANTHROPIC_BASE_URL: server.url }) } }));
    expect(lastResult(msgs)?.['result']).toBe('Not logged in · Please run /login');
    expect(() => readFileSync(marker)).toThrow();
    expect(server.requests).toHaveLength(0);
  });
});
