// The adapter's reading of a response stream that goes wrong: every case is a typed ModelApiError, and the
// events before it are still delivered.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicModelClient } from '../../../src/model/anthropic.js';
import { ModelApiError } from '../../../src/model/types.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function streamOf(body: string): Promise<{ types: string[]; error: unknown }> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_test' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const client = new AnthropicModelClient({ provider: { kind: 'firstParty', baseURL: `http://127.0.0.1:${port}`, auth: { kind: 'env', apiKey: 'sk-test', authToken: undefined } }, headers: {}, timeoutMs: 10_000 });
  const stream = await client.open({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal);
  const types: string[] = [];
  try {
    for await (const ev of stream.events) types.push(ev.type);
    return { types, error: undefined };
  } catch (e) {
    return { types, error: e };
  }
}

const START = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":0}}}\n\n';

describe('the Anthropic adapter reading a response stream', () => {
  it('an event that is not JSON: stream_interrupted, naming the event', async () => {
    const r = await streamOf(`${START}event: content_block_delta\ndata: {"type":"content_bl\n\n`);
    expect(r.types).toEqual(['message_start']);
    expect(r.error).toBeInstanceOf(ModelApiError);
    expect([(r.error as ModelApiError).kind, (r.error as ModelApiError).message]).toEqual([
      'stream_interrupted',
      'The model API sent an unreadable event (content_block_delta).',
    ]);
  });

  it('an error event mid-stream: its type decides the kind, its message is kept', async () => {
    const r = await streamOf(`${START}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`);
    expect(r.types).toEqual(['message_start']);
    expect([(r.error as ModelApiError).kind, (r.error as ModelApiError).message]).toEqual(['overloaded', 'Overloaded']);
  });

  it('pings and data that is not an event object are skipped', async () => {
    const r = await streamOf(`event: ping\ndata: {"type":"ping"}\n\n${START}data: [1,2]\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`);
    expect(r).toEqual({ types: ['message_start', 'message_stop'], error: undefined });
  });
});
