// Bedrock, Vertex and Foundry through the official TypeScript SDK (issue 14): agentd's model client goes through
// each provider's official SDK package to a loopback server speaking that provider's wire format, with the
// SKIP_AUTH variables (or fake static credentials) so no cloud auth is contacted. Model ids are mapped as Claude
// Code maps them; provider errors land in agentd's taxonomy, bounded and explained.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { collect, collectSettled } from '../support/sdk-run.js';

const HELLO: Scenario = { rules: [{ reply: { content: [{ type: 'text', text: 'hello from the provider' }], usage: { input_tokens: 12, output_tokens: 3 } } }] };

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function turn(env: Record<string, string>, model = 'claude-sonnet-4-5') {
  const q = query({ prompt: 'hi', options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env: baseEnv({ AGENTD_RETRY_BASE_DELAY_MS: '10', ...env }), model } });
  const account = await q.accountInfo();
  // A turn that ends with an error result makes the CLI exit 1 (as Claude Code does) and the SDK throw: kept.
  const { messages: msgs, error } = await collectSettled(q);
  return { account, msgs, error, result: msgs.filter((m) => m.type === 'result').at(-1) as Record<string, unknown> | undefined };
}

describe('cloud providers through the official SDK', () => {
  it('Bedrock: invoke-with-response-stream, AWS event-stream framing, inference-profile id for the region', async () => {
    server = await startLoopbackServer(HELLO, {}, { wire: 'bedrock' });
    const { account, result } = await turn({ CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1', AWS_REGION: 'eu-west-1', ANTHROPIC_BEDROCK_BASE_URL: server.url });
    expect(account).toEqual({ apiProvider: 'bedrock' });
    expect(result).toMatchObject({ subtype: 'success', result: 'hello from the provider', usage: { input_tokens: 12, output_tokens: 3 } });
    const req = server.requests[0];
    expect(req?.path).toBe('/model/eu.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream');
    // Bedrock takes the version and the betas in the body, the model in the path; no auth with SKIP_AUTH.
    expect(req?.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
    expect(req?.body).not.toHaveProperty('model');
    expect(req?.body).not.toHaveProperty('stream');
    expect(req?.headers['authorization']).toBeUndefined();
    expect(req?.headers['anthropic-version']).toBeUndefined();
  });

  it('Bedrock: signs with SigV4 from static AWS credentials (no network for credentials)', async () => {
    server = await startLoopbackServer(HELLO, {}, { wire: 'bedrock' });
    const { result } = await turn({ CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKIDLOOPBACKTEST0000', AWS_SECRET_ACCESS_KEY: 'loopback-secret-key-0000000000', ANTHROPIC_BEDROCK_BASE_URL: server.url }, 'claude-haiku-4-5');
    expect(result).toMatchObject({ subtype: 'success', result: 'hello from the provider' });
    const req = server.requests[0];
    expect(req?.path).toBe('/model/us.anthropic.claude-haiku-4-5-20251001-v1:0/invoke-with-response-stream');
    expect(String(req?.headers['authorization'])).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOOPBACKTEST0000\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/);
    expect(req?.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
  });

  it('Bedrock: a 403 AccessDeniedException is a typed permission error, not retried', async () => {
    server = await startLoopbackServer({ rules: [{ reply: { error: { status: 403, message: 'You don\'t have access to the model with the specified model ID.' } } }] }, {}, { wire: 'bedrock' });
    const { result } = await turn({ CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1', AWS_REGION: 'us-west-2', ANTHROPIC_BEDROCK_BASE_URL: server.url });
    expect(result).toMatchObject({ subtype: 'success', is_error: true, api_error_status: 403, agentd_error: { category: 'authentication', retryable: false, status: 403 } });
    expect(result?.['result']).toBe("Failed to authenticate. API Error: 403 You don't have access to the model with the specified model ID.");
    expect(server.requests).toHaveLength(1);
  });

  it('Bedrock: ThrottlingException (429) is retried as a rate limit, then reported, bounded', async () => {
    server = await startLoopbackServer({ rules: [{ reply: { error: { status: 429, message: 'Too many requests, please wait before trying again.' } } }] }, {}, { wire: 'bedrock' });
    const { msgs, result } = await turn({ CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1', AWS_REGION: 'us-west-2', ANTHROPIC_BEDROCK_BASE_URL: server.url, AGENTD_MAX_RETRIES: '2' });
    expect(server.requests).toHaveLength(3);
    expect(msgs.filter((m) => m.type === 'system' && m.subtype === 'api_retry')).toHaveLength(2);
    expect(result).toMatchObject({ is_error: true });
    expect(result).toMatchObject({ agentd_error: { category: 'rate_limit', retryable: true, status: 429 } });
    expect(result?.['result']).toBe('API Error: Request rejected (429) · Too many requests, please wait before trying again.');
  });

  it('Bedrock: an exception frame mid-stream is mapped (serviceUnavailableException → overloaded) and retried', async () => {
    server = await startLoopbackServer({ rules: [{ replies: [{ content: [{ type: 'text', text: 'partial' }, { type: 'text', text: 'rest' }], streamErrorAfterBlocks: 1 }, { content: [{ type: 'text', text: 'recovered' }] }] }] }, {}, { wire: 'bedrock' });
    const { msgs, result } = await turn({ CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1', AWS_REGION: 'us-west-2', ANTHROPIC_BEDROCK_BASE_URL: server.url });
    expect(result).toMatchObject({ subtype: 'success', result: 'recovered' });
    expect(msgs.find((m) => m.type === 'system' && m.subtype === 'api_retry')).toMatchObject({ error: 'overloaded' });
  });

  it('Vertex: streamRawPredict under the project and region, vertex model id, no Google auth with SKIP_AUTH', async () => {
    server = await startLoopbackServer(HELLO);
    const { account, result } = await turn({ CLAUDE_CODE_USE_VERTEX: '1', CLAUDE_CODE_SKIP_VERTEX_AUTH: '1', CLOUD_ML_REGION: 'us-east5', ANTHROPIC_VERTEX_PROJECT_ID: 'loopback-project', ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1` });
    expect(account).toEqual({ apiProvider: 'vertex' });
    expect(result).toMatchObject({ subtype: 'success', result: 'hello from the provider' });
    const req = server.requests[0];
    expect(req?.path).toBe('/v1/projects/loopback-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict');
    expect(req?.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
    expect(req?.body).not.toHaveProperty('model');
    expect(req?.headers['authorization']).toBeUndefined();
  });

  it('Vertex: a 429 RESOURCE_EXHAUSTED is a rate limit, retried and then reported', async () => {
    server = await startLoopbackServer({ rules: [{ reply: { error: { status: 429, type: 'rate_limit_error', message: 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model' } } }] });
    const { result } = await turn({ CLAUDE_CODE_USE_VERTEX: '1', CLAUDE_CODE_SKIP_VERTEX_AUTH: '1', CLOUD_ML_REGION: 'global', ANTHROPIC_VERTEX_PROJECT_ID: 'p', ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1`, AGENTD_MAX_RETRIES: '1' });
    expect(server.requests).toHaveLength(2);
    expect(result).toMatchObject({ is_error: true, agentd_error: { category: 'rate_limit', retryable: true, status: 429 } });
    expect(result?.['result']).toBe('API Error: Request rejected (429) · Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model');
  });

  it('Foundry: the Messages API under /anthropic with the api key, foundry model id', async () => {
    server = await startLoopbackServer(HELLO);
    const key = 'foundry-loopback-key-000000';
    const { account, result } = await turn({ CLAUDE_CODE_USE_FOUNDRY: '1', ANTHROPIC_FOUNDRY_API_KEY: key, ANTHROPIC_FOUNDRY_BASE_URL: `${server.url}/anthropic` }, 'claude-opus-4-1-20250805');
    expect(account).toEqual({ apiProvider: 'foundry' });
    expect(result).toMatchObject({ subtype: 'success', result: 'hello from the provider' });
    const req = server.requests[0];
    // Claude Code's path on Foundry too: the beta Messages endpoint (measured, test/measure/request-defaults.measure.ts).
    expect(req?.path).toBe('/anthropic/v1/messages?beta=true');
    expect(req?.body).toMatchObject({ model: 'claude-opus-4-1', stream: true });
    expect(req?.headers['x-api-key']).toBe(key);
  });

  it('Foundry: a 401 is a typed authentication error, not retried; SKIP_AUTH sends no key', async () => {
    server = await startLoopbackServer({ rules: [{ reply: { error: { status: 401, type: 'authentication_error', message: 'Access denied due to invalid subscription key.' } } }] });
    const { result } = await turn({ CLAUDE_CODE_USE_FOUNDRY: '1', CLAUDE_CODE_SKIP_FOUNDRY_AUTH: '1', ANTHROPIC_FOUNDRY_BASE_URL: `${server.url}/anthropic` });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers['x-api-key']).toBeUndefined();
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
    expect(result).toMatchObject({ is_error: true, agentd_error: { category: 'authentication', retryable: false, status: 401 } });
    expect(result?.['result']).toBe('Failed to authenticate. API Error: 401 Access denied due to invalid subscription key.');
  });

  it('Foundry without a key or SKIP_AUTH fails at start-up with the reason (Entra ID is not supported)', async () => {
    const q = query({ prompt: 'hi', options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env: baseEnv({ CLAUDE_CODE_USE_FOUNDRY: '1', ANTHROPIC_FOUNDRY_RESOURCE: 'my-resource' }) } });
    await expect(collect(q)).rejects.toThrow(/ANTHROPIC_FOUNDRY_API_KEY only \(Microsoft Entra ID is not supported\)/);
  });
});
