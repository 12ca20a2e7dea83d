import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicModelClient } from '../../../src/model/anthropic.js';
import { jsonInChunks } from '../../../src/model/request-body.js';
import { Conversation } from '../../../src/session/history.js';
import { createReadTool } from '../../../src/tools/builtin/read.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { deepFreeze } from '../../../src/util/freeze.js';
import type { ApiMessage, ModelRequest } from '../../../src/model/types.js';
import { type LoopbackServer, startLoopbackServer } from '../../support/loopback-server.js';

describe('jsonInChunks', () => {
  it('is JSON.stringify, cut into chunks of bounded size, with the UTF-8 length of the whole', () => {
    const value = fc.dictionary(
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.oneof(fc.jsonValue(), fc.array(fc.oneof(fc.jsonValue(), fc.constant(undefined))), fc.constant(undefined)),
    );
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 200 }), (v, max) => {
        const { chunks, byteLength } = jsonInChunks(v, max);
        const whole = JSON.stringify(v);
        expect(chunks.join('')).toBe(whole);
        expect(byteLength).toBe(Buffer.byteLength(whole));
        expect(chunks.every((c) => c.length > 0)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every piece of a long conversation small: one per long message, short ones joined', () => {
    const messages: ApiMessage[] = Array.from({ length: 2000 }, (_, i) =>
      i % 2 === 0
        ? { role: 'user', content: `question ${i} — ünïcødé 🎉` }
        : { role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(i % 10 === 1 ? 3000 : 300) }] },
    );
    const { chunks } = jsonInChunks({ model: 'm', messages });
    const long = messages.filter((_, i) => i % 10 === 1).map((m) => JSON.stringify(m));
    expect(chunks.filter((c) => long.includes(c))).toHaveLength(long.length);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(17 * 1024);
    expect(JSON.parse(chunks.join(''))).toEqual({ model: 'm', messages });
  });
});

describe('the Anthropic adapter sends the chunked body', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer({ description: 'text', rules: [], fallback: { content: [{ type: 'text', text: 'ok' }] } });
  });
  afterAll(() => server.close());

  it('with its exact Content-Length, the SDK headers and the betas', async () => {
    const client = new AnthropicModelClient({ provider: { kind: 'firstParty', baseURL: server.url, auth: { kind: 'env', apiKey: 'sk-test', authToken: undefined } }, headers: { 'x-extra': '1' }, timeoutMs: 30_000 });
    const history: ApiMessage[] = Array.from({ length: 400 }, (_, i) =>
      i % 2 === 0 ? { role: 'user', content: `turn ${i}: ✓ ${'é'.repeat(200)}` } : { role: 'assistant', content: [{ type: 'text', text: `answer ${i} 🎉` }] },
    );
    const request: ModelRequest = { model: 'claude-test', max_tokens: 100, messages: [...history, { role: 'user', content: 'last' }], betas: ['b-one', 'b-two'] };
    const stream = await client.open(request, new AbortController().signal);
    const kinds: string[] = [];
    for await (const ev of stream.events) kinds.push(ev.type);
    expect(kinds[kinds.length - 1]).toBe('message_stop');
    const rec = server.requests[server.requests.length - 1];
    const { betas: _betas, ...body } = request;
    expect(rec?.body).toEqual({ ...body, stream: true });
    // Claude Code's path for the Anthropic API: the beta Messages endpoint.
    expect(rec?.path).toBe('/v1/messages?beta=true');
    expect(rec?.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(JSON.stringify({ ...body, stream: true }))),
      'anthropic-beta': 'b-one,b-two',
      'x-api-key': 'sk-test',
      'x-extra': '1',
    });
    expect([rec?.headers['transfer-encoding'], rec?.headers['authorization']]).toEqual([undefined, undefined]);
  });
});

describe('jsonInChunks of frozen values', () => {
  it('gives the same text for frozen values, again and again (their JSON is kept)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 20 }), (items) => {
        const frozen = deepFreeze({ messages: structuredClone(items), tools: deepFreeze(structuredClone(items)) });
        const whole = JSON.stringify(frozen);
        expect(jsonInChunks(frozen).chunks.join('')).toBe(whole);
        expect(jsonInChunks(frozen).chunks.join('')).toBe(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('the history and the tool definitions reach the serialiser frozen', () => {
    const c = new Conversation();
    c.appendUser('hi');
    c.appendAssistant([{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/x' } }]);
    c.appendUser([{ type: 'tool_result', tool_use_id: 't1', content: 'x' }]);
    const [first, second] = c.messages;
    expect([Object.isFrozen(first), Object.isFrozen(second), Object.isFrozen((second?.content as Array<{ input: object }>)[0]?.input)]).toEqual([true, true, true]);
    const defs = new ToolRegistry([createReadTool()]).definitions();
    expect([Object.isFrozen(defs), Object.isFrozen(defs[0]?.input_schema)]).toEqual([true, true]);
  });
});
