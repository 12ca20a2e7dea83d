// MEASUREMENT (not part of npm test): how Claude Code 2.1.330 ends a turn the model API refused, driven through
// the TS SDK against the loopback model. Writes every case's whole frame list to CAPTURE_OUT (a directory;
// default a temp dir, printed), plus `-p --output-format json|text` stdout/stderr/exit code, and fixture.json
// (copied to test/fixtures/claude-code-api-errors.json, which test/e2e/sdk-result-shapes.test.ts compares with).
// Run: npx vitest run -c test/measure/vitest.measure.config.ts test/measure/api-error-results.measure.ts
// (ONLY=<case name prefix>[,…] for some cases; 529-default-retries and stream-json-exit only when named).
//
// What was measured (ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL = the loopback server, CLAUDE_CODE_MAX_RETRIES=2
// for the retried statuses):
// - Every API error ends the turn with a synthetic assistant message (`model: "<synthetic>"`, one text block,
//   `stop_reason: "stop_sequence"`, `stop_sequence: ""`, zero usage, `error`, `is_api_error_message: true`,
//   `api_error_status`/`api_error_type` — both absent when no HTTP answer came, `request_id`), then a result with
//   `subtype: "success"`, `is_error: true`, `result` = the same text, `stop_reason: "stop_sequence"`,
//   `num_turns: 1`, `api_error_status` (null without an HTTP answer), `api_error_type` when known, no `errors`.
//   `terminal_reason`: `api_error`; `prompt_too_long` for a prompt too long; `image_error` for a 413.
// - Texts (`error`): 400 `API Error: 400 <message>` (unknown); 401 on ANTHROPIC_API_KEY with "x-api-key" in the
//   message `Invalid API key · Fix external API key` (authentication_failed); 401 on ANTHROPIC_AUTH_TOKEN or
//   CLAUDE_CODE_OAUTH_TOKEN and 403 `Failed to authenticate. API Error: <status> <message>`
//   (authentication_failed); 404 `There's an issue with the selected model (<model>). It may not exist or you may
//   not have access to it.` (model_not_found; `-p` at the CLI adds ` Run --model to pick a different model.`);
//   413 `Request too large (max 32MB). Accumulated images and attachments in the conversation pushed the request
//   over the limit. Remove older images or compact the conversation.` (invalid_request); 429 `API Error: Request
//   rejected (429) · <message>` (rate_limit); 500 and 529 `API Error: <status> <message>. This is a server-side
//   issue, usually temporary — try again in a moment. If it persists, check your inference gateway (<host>).`
//   (server_error, also for 529: the api_retry frames say `overloaded`; with the default 10 retries the same
//   text, no "Repeated 529"); prompt too long on a one-exchange conversation `Prompt is too long · the request
//   is ~N tokens (limit M) but this conversation is only ~K tokens — …` (invalid_request); no credential at all
//   `Not logged in · Please run /login` (authentication_failed, no request sent); connection refused `API Error:
//   Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)` (server_error, and an extra
//   `api_error: "connection_failed"` field on both frames).
// - Claude Code retries a 401 (api_retry `authentication_failed`, up to the retry count) before ending the turn.
// - `-p --output-format text` prints the result text on stdout and exits 1; `json` prints the one result object
//   and exits 1. In stream-json mode the process exits 1 at stdin EOF when the last result had is_error (an API
//   error, an interrupt), 0 when it did not (an error turn followed by a good one); the TS SDK then throws
//   "Claude Code returned an error result: <result>".
// - Structured output (`outputFormat` / `--json-schema`): `result` is JSON.stringify(structured_output)
//   (`{"answer":42}`), `stop_reason: "tool_use"`, `num_turns: 2` for one request; `-p` text prints that JSON.
import { existsSync, mkdirSync, readFileSync, writeFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { it } from 'vitest';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { ROOT, tempDir } from '../support/daemon.js';
import type { Reply } from '../../src/model/scripted/scenario.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');
const OUT = process.env['CAPTURE_OUT'] ?? tempDir('cc-api-errors-');
mkdirSync(OUT, { recursive: true });

interface Case {
  name: string;
  reply: Reply;
  /** Extra environment (CLAUDE_CODE_MAX_RETRIES keeps the exhausted cases short). */
  env?: Record<string, string>;
  /** Leave out ANTHROPIC_API_KEY (no credential at all, or the one `env` gives). */
  noKey?: boolean;
  /** Point ANTHROPIC_BASE_URL at a closed port instead of the loopback server. */
  closedPort?: boolean;
  /** Also run `-p` with these output formats. */
  print?: Array<'json' | 'text'>;
}

const retries = { CLAUDE_CODE_MAX_RETRIES: '2' };
const cases: Case[] = [
  { name: '400-invalid-request', reply: { error: { status: 400, type: 'invalid_request_error', message: 'messages.0.content: field required' } }, print: ['json', 'text'] },
  { name: '401-authentication', env: retries, reply: { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }, print: ['json', 'text'] },
  { name: '403-permission', reply: { error: { status: 403, type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' } } },
  { name: '404-not-found', reply: { error: { status: 404, type: 'not_found_error', message: 'model: claude-sonnet-4-5' } }, print: ['json'] },
  { name: '413-request-too-large', reply: { error: { status: 413, type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } } },
  { name: '429-rate-limit-exhausted', reply: { error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit', retryAfter: 0 } }, env: retries, print: ['json'] },
  { name: '500-server-exhausted', reply: { error: { status: 500, type: 'api_error', message: 'Internal server error', retryAfter: 0 } }, env: retries, print: ['json'] },
  { name: '529-overloaded-exhausted', reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfter: 0 } }, env: retries, print: ['json'] },
  { name: '400-prompt-too-long', reply: { error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 250123 tokens > 200000 maximum' } }, print: ['json'] },
  { name: '401-auth-token', reply: { error: { status: 401, type: 'authentication_error', message: 'Invalid bearer token' } }, noKey: true, env: { ...retries, ANTHROPIC_AUTH_TOKEN: 'tok-test' } },
  { name: '401-oauth-token', reply: { error: { status: 401, type: 'authentication_error', message: 'OAuth token has expired' } }, noKey: true, env: { ...retries, CLAUDE_CODE_OAUTH_TOKEN: 'oat-test' } },
  { name: 'connection-refused', reply: {}, closedPort: true, env: { CLAUDE_CODE_MAX_RETRIES: '1' }, print: ['json'] },
  // Claude Code's own retry count (10): slow (about three minutes of backoff), run it with ONLY=529-default.
  { name: '529-default-retries', reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } } },
  { name: 'no-credential', reply: { content: [{ type: 'text', text: 'should not be asked' }] }, noKey: true, print: ['json', 'text'] },
];

function envFor(c: Case, url: string, home: string): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ...(c.noKey ? {} : { ANTHROPIC_API_KEY: 'sk-test' }), ANTHROPIC_BASE_URL: url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', ...c.env,
  };
}

/** `claude <args>` with stdin closed (asynchronously: the loopback server answers from this process). */
function run(args: string[], cwd: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(CLAUDE, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGTERM'), 100_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const selected = (name: string): boolean => !process.env['ONLY'] || process.env['ONLY'].split(',').some((o) => name.startsWith(o));

for (const c of cases.filter((x) => selected(x.name) && (x.name !== '529-default-retries' || process.env['ONLY']))) {
  it(c.name, async () => {
    const cwd = realpathSync(tempDir('cc-err-'));
    const home = tempDir('cc-home-');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const server = await startLoopbackServer({ rules: [{ when: { system: 'Claude' }, reply: c.reply }], fallback: c.reply });
    const env = envFor(c, c.closedPort ? 'http://127.0.0.1:9' : server.url, home);
    const stderr: string[] = [];
    const msgs: SDKMessage[] = [];
    let thrown: string | undefined;
    try {
      const q = query({ prompt: 'hello', options: { pathToClaudeCodeExecutable: CLAUDE, cwd, env, model: 'claude-sonnet-4-5', stderr: (d) => stderr.push(d) } });
      for await (const m of q) msgs.push(m);
    } catch (e) {
      thrown = e instanceof Error ? e.message : String(e);
    }
    const print: Record<string, { status: number | null; stdout: string; stderr: string }> = {};
    for (const fmt of c.print ?? []) {
      print[fmt] = await run(['-p', 'hello', '--output-format', fmt, '--model', 'claude-sonnet-4-5'], cwd, env);
    }
    writeFileSync(join(OUT, `${c.name}.json`), JSON.stringify({ frames: msgs.filter((m) => m.type !== 'system' || m.subtype !== 'init'), thrown, print, requests: server.requests.length, stderr: stderr.join('').slice(-4000) }, null, 1));
    await server.close();
  }, 300_000);
}

it('structured-output', async () => {
  if (!selected('structured-output')) return;
  const cwd = realpathSync(tempDir('cc-so-'));
  const home = tempDir('cc-home-');
  mkdirSync(join(home, '.claude'), { recursive: true });
  const server = await startLoopbackServer({
    rules: [
      { when: { hasToolResults: false, hasTool: 'StructuredOutput' }, reply: { content: [{ type: 'text', text: 'Here is the answer.' }, { type: 'tool_use', id: 'toolu_so', name: 'StructuredOutput', input: { answer: 42 } }], stopReason: 'tool_use' } },
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'after the structured output' }] } },
    ],
    fallback: { content: [{ type: 'text', text: 'fallback' }] },
  });
  const env = envFor({ name: 'so', reply: {} }, server.url, home);
  const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false };
  const msgs: SDKMessage[] = [];
  const q = query({ prompt: 'what is the answer', options: { pathToClaudeCodeExecutable: CLAUDE, cwd, env, model: 'claude-sonnet-4-5', outputFormat: { type: 'json_schema', schema } } });
  for await (const m of q) msgs.push(m);
  const print: Record<string, { status: number | null; stdout: string; stderr: string }> = {};
  for (const fmt of ['json', 'text'] as const) {
    print[fmt] = await run(['-p', 'what is the answer', '--output-format', fmt, '--model', 'claude-sonnet-4-5', '--json-schema', JSON.stringify(schema)], cwd, env);
  }
  writeFileSync(join(OUT, 'structured-output.json'), JSON.stringify({ frames: msgs.filter((m) => m.type !== 'system' || m.subtype !== 'init'), print, requests: server.requests.map((r) => r.body.messages) }, null, 1));
  await server.close();
}, 300_000);

// The exit code after stdin closes in stream-json mode, when the last result was an API error, and when an error
// turn is followed by a good one (the SDK turns a non-zero exit after an error result into "Claude Code returned
// an error result: <result>").
it('stream-json exit code', async () => {
  if (!selected('stream-json-exit')) return;
  const server = await startLoopbackServer({
    rules: [
      { when: { lastUserText: 'zzgood' }, reply: { content: [{ type: 'text', text: 'fine' }] } },
      { when: { lastUserText: 'zzfail' }, reply: { error: { status: 400, type: 'invalid_request_error', message: 'bad request' } } },
      { when: { lastUserText: 'zzslow' }, reply: { content: [{ type: 'text', text: 'slow answer' }], delays: { firstTokenMs: 5000 } } },
    ],
    fallback: { content: [{ type: 'text', text: 'fallback' }] },
  });
  const out: Record<string, unknown> = {};
  // zzslow: interrupted (control_request interrupt 1.5 s in).
  for (const prompts of [['zzfail'], ['zzfail', 'zzgood'], ['zzgood', 'zzfail'], ['zzgood'], ['zzslow']].filter((p) => !process.env['EXIT_ONLY'] || p.join(',') === process.env['EXIT_ONLY'])) {
    const home = tempDir('cc-home-');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const env = envFor({ name: 'x', reply: {} }, server.url, home);
    const child = spawn(CLAUDE, ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--model', 'claude-sonnet-4-5'], { cwd: realpathSync(tempDir('cc-exit-')), env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    const results = (): number => stdout.split('\n').filter((l) => l.startsWith('{"') && (JSON.parse(l) as { type: string }).type === 'result').length;
    for (const [i, p] of prompts.entries()) {
      child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: p }, parent_tool_use_id: null, session_id: '' })}\n`);
      if (p === 'zzslow') {
        await new Promise((r) => setTimeout(r, 1500));
        child.stdin.write(`${JSON.stringify({ type: 'control_request', request_id: 'int_1', request: { subtype: 'interrupt' } })}\n`);
      }
      for (let waited = 0; results() < i + 1 && waited < 20_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    }
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    clearTimeout(timer);
    if (results() < prompts.length) out[`${prompts.join(',')}:stdout`] = stdout.split('\n').map((l) => l.slice(0, 300));
    const resultLines = stdout.split('\n').filter((l) => l.includes('"type":"result"'));
    out[prompts.join(',')] = { code, results: resultLines.map((l) => { const r = JSON.parse(l) as { subtype: string; is_error: boolean; result?: string; errors?: string[] }; return [r.subtype, r.is_error, r.result ?? r.errors]; }) };
  }
  writeFileSync(join(OUT, 'stream-json-exit.json'), JSON.stringify(out, null, 1));
  await server.close();
}, 300_000);

// The fixture the e2e test compares agentd's frames with (test/e2e/sdk-api-errors.test.ts): every case's frames
// after system/init, and what `-p` printed (the JSON result parsed, the text as is) with its exit code.
it('fixture', () => {
  const fixture: Record<string, unknown> = {};
  for (const name of [...cases.map((c) => c.name).filter((n) => n !== '529-default-retries'), 'structured-output']) {
    const file = join(OUT, `${name}.json`);
    if (!existsSync(file)) continue;
    const d = JSON.parse(readFileSync(file, 'utf8')) as { frames: unknown[]; print?: Record<string, { status: number | null; stdout: string }> };
    const print: Record<string, unknown> = {};
    for (const [fmt, r] of Object.entries(d.print ?? {})) print[fmt] = { status: r.status, stdout: fmt === 'json' ? (JSON.parse(r.stdout) as unknown) : r.stdout };
    fixture[name] = { frames: d.frames, print };
  }
  writeFileSync(join(OUT, 'fixture.json'), `${JSON.stringify(fixture, null, 1)}\n`);
  process.stderr.write(`captures in ${OUT}; copy fixture.json to test/fixtures/claude-code-api-errors.json\n`);
});
