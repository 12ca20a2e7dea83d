// Result shapes as Claude Code 2.1.330 sends them, through the official TS SDK against the loopback Messages server.
// A turn the model API refused: agentd's frames are compared whole with Claude Code's for the same refusal
// (test/fixtures/claude-code-api-errors.json, captured by test/measure/api-error-results.measure.ts). Ids, timings
// and the loopback port are normalised; the fields Claude Code sends that agentd does not, and agentd's additive
// ones, are listed below by name. Also `-p` output and exit codes, and the structured-output result text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { type SDKMessage, query } from '@anthropic-ai/claude-agent-sdk';
import type { Reply } from '../../src/model/scripted/scenario.js';
import { AGENTD, ROOT, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';

type Frame = Record<string, unknown>;
interface Captured {
  frames: Frame[];
  print: Partial<Record<'json' | 'text', { status: number; stdout: unknown }>>;
}
const CC = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/claude-code-api-errors.json'), 'utf8')) as Record<string, Captured>;

/** Claude Code fields agentd does not send (on any frame of the kind), by frame kind. */
const CC_ONLY: Record<string, readonly string[]> = {
  result: ['fast_mode_state', 'fast_mode_disabled_reason', 'subagent_stats', 'safety_stops', 'model_usage_since_last_result', 'api_error'],
  'result.usage': ['output_tokens_details', 'inference_geo', 'iterations', 'speed', 'fallback_credit'],
  assistant: ['api_error'],
  'assistant.message': ['container', 'context_management', 'diagnostics', 'stop_details'],
  'assistant.message.usage': ['output_tokens_details', 'inference_geo', 'iterations', 'speed', 'fallback_credit'],
};

function omit(o: Frame, keys: readonly string[] | undefined): Frame {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys?.includes(k)));
}

/** A frame with ids, times and the loopback port replaced, and (for Claude Code's) the fields agentd does not send. */
function normal(f: Frame, from: 'cc' | 'agentd'): Frame {
  const strip = (o: Frame, kind: string): Frame => (from === 'cc' ? omit(o, CC_ONLY[kind]) : o);
  const out = strip({ ...f }, String(f['type']));
  for (const k of ['uuid', 'session_id', 'timestamp', 'request_id']) if (k in out) out[k] = `<${k}>`;
  for (const k of ['duration_ms', 'duration_api_ms', 'retry_delay_ms']) if (k in out) out[k] = 0;
  if (f['type'] === 'result') {
    out['usage'] = strip(out['usage'] as Frame, 'result.usage');
    if (typeof out['result'] === 'string') out['result'] = out['result'].replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
  }
  if (f['type'] === 'assistant') {
    const m = strip({ ...(out['message'] as Frame) }, 'assistant.message');
    m['id'] = '<id>';
    m['usage'] = strip(m['usage'] as Frame, 'assistant.message.usage');
    m['content'] = (m['content'] as Frame[]).map((b) => (typeof b['text'] === 'string' ? { ...b, text: b['text'].replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>') } : b));
    out['message'] = m;
  }
  return out;
}

/** Claude Code's result as agentd sends it: its fields plus agentd's additive ones. */
function withAgentdFields(ccResult: Frame, agentdError: Frame): Frame {
  return { ...ccResult, agentd_error: agentdError, user_message_uuids: ['<uuid>'] };
}

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(reply: Reply | undefined, opts: { env?: Record<string, string>; baseUrl?: string } = {}) {
  server = await startLoopbackServer({ rules: [], fallback: reply ?? { content: [{ type: 'text', text: 'not asked' }] } });
  const env = baseEnv({
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: opts.baseUrl ?? server.url,
    // Claude Code was measured with CLAUDE_CODE_MAX_RETRIES=2 (agentd's retry count is its own variable).
    AGENTD_MAX_RETRIES: '2',
    AGENTD_RETRY_BASE_DELAY_MS: '5',
    ...opts.env,
  });
  const cwd = tempDir('agentd-apierr-');
  const frames: SDKMessage[] = [];
  let thrown: string | undefined;
  try {
    for await (const m of query({ prompt: 'hello', options: { pathToClaudeCodeExecutable: AGENTD, cwd, env, model: 'claude-sonnet-4-5' } })) frames.push(m);
  } catch (e) {
    thrown = e instanceof Error ? e.message : String(e);
  }
  const after = frames.filter((f) => !(f.type === 'system' && f.subtype === 'init')) as unknown as Frame[];
  return { frames: after, thrown, env, cwd };
}

/** agentd's frames for `name`'s refusal equal Claude Code's, whole (normalised). */
async function expectLikeClaudeCode(name: string, reply: Reply | undefined, agentdError: Frame, opts: { env?: Record<string, string>; baseUrl?: string } = {}) {
  const cc = CC[name];
  if (!cc) throw new Error(`no capture named ${name} in test/fixtures/claude-code-api-errors.json`);
  const ours = await run(reply, opts);
  const expected = cc.frames.map((f) => (f['type'] === 'result' ? withAgentdFields(normal(f, 'cc'), agentdError) : normal(f, 'cc')));
  const got = ours.frames.map((f) => {
    const n = normal(f, 'agentd');
    return f['type'] === 'result' ? { ...n, user_message_uuids: (n['user_message_uuids'] as unknown[]).map(() => '<uuid>') } : n;
  });
  expect(got).toEqual(expected);
  // The SDK's own error for an error result carries the result's text, as it does for Claude Code.
  const ccResult = cc.frames.find((f) => f['type'] === 'result') as Frame;
  expect(ours.thrown?.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')).toBe(`Claude Code returned an error result: ${String(ccResult['result']).replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')}`);
  return ours;
}

describe('API error results have Claude Code 2.1.330 shapes (whole frames)', () => {
  it('400 invalid request', async () => {
    await expectLikeClaudeCode('400-invalid-request', { error: { status: 400, type: 'invalid_request_error', message: 'messages.0.content: field required' } }, { category: 'invalid_request', retryable: false, status: 400 });
  });

  it('401 with ANTHROPIC_API_KEY: "Invalid API key · Fix external API key"', async () => {
    // Claude Code retries a 401 (two api_retry frames in its capture); agentd does not retry a refused key.
    const cc = CC['401-authentication'];
    if (!cc) throw new Error('capture missing');
    const ours = await run({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const expected = cc.frames.filter((f) => f['subtype'] !== 'api_retry').map((f) => (f['type'] === 'result' ? withAgentdFields(normal(f, 'cc'), { category: 'authentication', retryable: false, status: 401 }) : normal(f, 'cc')));
    const got = ours.frames.map((f) => (f['type'] === 'result' ? { ...normal(f, 'agentd'), user_message_uuids: ['<uuid>'] } : normal(f, 'agentd')));
    expect(got).toEqual(expected);
  });

  it('401 with ANTHROPIC_AUTH_TOKEN: "Failed to authenticate. API Error: 401 …"', async () => {
    const cc = CC['401-auth-token'];
    if (!cc) throw new Error('capture missing');
    const ours = await run({ error: { status: 401, type: 'authentication_error', message: 'Invalid bearer token' } }, { env: { ANTHROPIC_API_KEY: '', ANTHROPIC_AUTH_TOKEN: 'tok-test' } });
    const expected = cc.frames.filter((f) => f['subtype'] !== 'api_retry').map((f) => (f['type'] === 'result' ? withAgentdFields(normal(f, 'cc'), { category: 'authentication', retryable: false, status: 401 }) : normal(f, 'cc')));
    const got = ours.frames.map((f) => (f['type'] === 'result' ? { ...normal(f, 'agentd'), user_message_uuids: ['<uuid>'] } : normal(f, 'agentd')));
    expect(got).toEqual(expected);
  });

  it('403 permission', async () => {
    await expectLikeClaudeCode('403-permission', { error: { status: 403, type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' } }, { category: 'authentication', retryable: false, status: 403 });
  });

  it('404 model not found', async () => {
    await expectLikeClaudeCode('404-not-found', { error: { status: 404, type: 'not_found_error', message: 'model: claude-sonnet-4-5' } }, { category: 'invalid_request', retryable: false, status: 404 });
  });

  it('413 request too large', async () => {
    await expectLikeClaudeCode('413-request-too-large', { error: { status: 413, type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } }, { category: 'context_overflow', retryable: false, status: 413 });
  });

  it('429 after the retries', async () => {
    await expectLikeClaudeCode('429-rate-limit-exhausted', { error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }, { category: 'rate_limit', retryable: true, status: 429 });
  });

  it('500 after the retries (the gateway named)', async () => {
    await expectLikeClaudeCode('500-server-exhausted', { error: { status: 500, type: 'api_error', message: 'Internal server error' } }, { category: 'server_error', retryable: true, status: 500 });
  });

  it('529 after the retries', async () => {
    await expectLikeClaudeCode('529-overloaded-exhausted', { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, { category: 'overloaded', retryable: true, status: 529 });
  });

  it('prompt too long in a one-exchange conversation: the same frames and words, no compaction tried (nothing to compact)', async () => {
    // Claude Code sees a one-exchange conversation cannot be compacted and says so with the API's token counts
    // and its own count of the conversation (~2585 tokens: its reminders and context count as conversation;
    // agentd counts the prompt alone). Everything else is Claude Code's.
    const cc = CC['400-prompt-too-long'];
    if (!cc) throw new Error('capture missing');
    const ours = await run({ error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 250123 tokens > 200000 maximum' } });
    const text =
      'Prompt is too long · the request is ~250123 tokens (limit 200000) but this conversation is only ~2 tokens — the rest is system prompt, tool definitions, and attachment content. A single-exchange conversation cannot be compacted; reduce attached files/tools or start with less context.';
    const withText = (f: Frame): Frame =>
      f['type'] === 'result' ? { ...f, result: text } : f['type'] === 'assistant' ? { ...f, message: { ...(f['message'] as Frame), content: [{ type: 'text', text }] } } : f;
    const expected = cc.frames.map((f) => withText(f['type'] === 'result' ? withAgentdFields(normal(f, 'cc'), { category: 'context_overflow', retryable: false, status: 400 }) : normal(f, 'cc')));
    expect(ours.frames.map((f) => (f['type'] === 'result' ? { ...normal(f, 'agentd'), user_message_uuids: ['<uuid>'] } : normal(f, 'agentd')))).toEqual(expected);
    expect(server?.requests).toHaveLength(1);
  });

  it('connection refused: the same frames; agentd names the address it could not reach', async () => {
    const cc = CC['connection-refused'];
    if (!cc) throw new Error('capture missing');
    const ours = await run(undefined, { baseUrl: 'http://127.0.0.1:9', env: { AGENTD_MAX_RETRIES: '1' } });
    const text = 'API Error: Connection error (http://127.0.0.1:9): ECONNREFUSED 127.0.0.1:9';
    const withText = (f: Frame): Frame =>
      f['type'] === 'result' ? { ...f, result: text } : f['type'] === 'assistant' ? { ...f, message: { ...(f['message'] as Frame), content: [{ type: 'text', text }] } } : f;
    const expected = cc.frames.map((f) => withText(f['type'] === 'result' ? withAgentdFields(normal(f, 'cc'), { category: 'connection', retryable: true, status: null }) : normal(f, 'cc')));
    const got = ours.frames.map((f) => withText(f['type'] === 'result' ? { ...normal(f, 'agentd'), user_message_uuids: ['<uuid>'] } : normal(f, 'agentd')));
    expect(got).toEqual(expected);
    expect(ours.frames.find((f) => f['type'] === 'result')?.['result']).toBe(text);
  });

  it('no credential: "Not logged in · Please run /login", no request sent', async () => {
    await expectLikeClaudeCode('no-credential', undefined, { category: 'authentication', retryable: false, status: null }, { env: { ANTHROPIC_API_KEY: '' } });
    expect(server?.requests).toEqual([]);
  });
});

describe('-p with an API error prints what Claude Code prints, exit code 1', () => {
  async function print(format: 'json' | 'text', reply: Reply | undefined, env: Record<string, string> = {}) {
    server = await startLoopbackServer({ rules: [], fallback: reply ?? { content: [{ type: 'text', text: 'not asked' }] } });
    const r = await execa(AGENTD, ['-p', 'hello', '--output-format', format, '--model', 'claude-sonnet-4-5'], {
      cwd: tempDir('agentd-apierr-p-'),
      env: baseEnv({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, ...env }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    return { status: r.exitCode, stdout: r.stdout };
  }

  it('text: the result text on stdout', async () => {
    const cc = CC['400-invalid-request']?.print.text;
    expect(await print('text', { error: { status: 400, type: 'invalid_request_error', message: 'messages.0.content: field required' } })).toEqual({ status: cc?.status, stdout: String(cc?.stdout).trimEnd() });
    const login = CC['no-credential']?.print.text;
    expect(await print('text', undefined, { ANTHROPIC_API_KEY: '' })).toEqual({ status: login?.status, stdout: String(login?.stdout).trimEnd() });
  });

  it('json: one result line, the error text in `result`; a 404 names --model, as Claude Code does at the CLI', async () => {
    const cc = CC['404-not-found']?.print.json;
    const ours = await print('json', { error: { status: 404, type: 'not_found_error', message: 'model: claude-sonnet-4-5' } });
    const got = normal(JSON.parse(ours.stdout) as Frame, 'agentd');
    expect({ status: ours.status, stdout: { ...got, user_message_uuids: ['<uuid>'] } }).toEqual({
      status: cc?.status,
      stdout: withAgentdFields(normal(cc?.stdout as Frame, 'cc'), { category: 'invalid_request', retryable: false, status: 404 }),
    });
  });
});

describe('structured output (outputFormat / --json-schema): the answer is also the result text', () => {
  it('`result` is the structured answer as JSON text (Claude Code 2.1.330), beside structured_output', async () => {
    server = await startLoopbackServer({
      rules: [
        { when: { hasToolResults: false, hasTool: 'StructuredOutput' }, reply: { content: [{ type: 'text', text: 'Here is the answer.' }, { type: 'tool_use', id: 'toolu_so', name: 'StructuredOutput', input: { answer: 42 } }], stopReason: 'tool_use' } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'after the structured output' }] } },
      ],
    });
    const env = baseEnv({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url });
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false };
    const frames: Frame[] = [];
    for await (const m of query({ prompt: 'what is the answer', options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir('agentd-so-'), env, model: 'claude-sonnet-4-5', outputFormat: { type: 'json_schema', schema } } })) frames.push(m);
    // What hosts read of this result; num_turns (Claude Code counts the StructuredOutput call's round as a second
    // turn without a request) and usage differ and are not compared.
    const read = (f: Frame | undefined): Frame => ({ subtype: f?.['subtype'], is_error: f?.['is_error'], result: f?.['result'], structured_output: f?.['structured_output'], stop_reason: f?.['stop_reason'], terminal_reason: f?.['terminal_reason'] });
    const cc = CC['structured-output'];
    expect(read(frames.find((f) => f['type'] === 'result'))).toEqual(read(cc?.frames.find((f) => f['type'] === 'result')));
    expect(read(frames.find((f) => f['type'] === 'result'))).toEqual({ subtype: 'success', is_error: false, result: '{"answer":42}', structured_output: { answer: 42 }, stop_reason: 'tool_use', terminal_reason: 'completed' });
    // `-p --output-format text` prints that text, as Claude Code does.
    const p = await execa(AGENTD, ['-p', 'what is the answer', '--output-format', 'text', '--model', 'claude-sonnet-4-5', '--json-schema', JSON.stringify(schema)], { cwd: tempDir('agentd-so-p-'), env, extendEnv: false, reject: false, stdin: 'ignore' });
    expect({ status: p.exitCode, stdout: p.stdout }).toEqual({ status: cc?.print.text?.status, stdout: String(cc?.print.text?.stdout).trimEnd() });
  });
});
