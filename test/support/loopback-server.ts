// A loopback HTTP server speaking the Anthropic Messages SSE protocol, driven by the same scenario engine as the
// in-process scripted model. The real @anthropic-ai/sdk path is tested against it; no test touches the network.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { bedrockChunk, bedrockException } from './aws-event-stream.js';
import type { AddressInfo } from 'node:net';
import { ScenarioEngine } from '../../src/model/scripted/engine.js';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { ModelRequest } from '../../src/model/types.js';

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: ModelRequest;
  /** How the exchange ended: completed, client_closed (the client hung up first), error, disconnected. */
  outcome?: 'completed' | 'client_closed' | 'error_response' | 'stream_error' | 'disconnected' | 'stalled';
}

export interface LoopbackServer {
  url: string;
  requests: RecordedRequest[];
  engine: ScenarioEngine;
  close(): Promise<void>;
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface LoopbackOptions {
  /** Serve HTTPS with this key and certificate (test/support/tls.ts makes a self-signed pair). */
  tls?: { key: string; cert: string; /** Require a client certificate signed by this CA (mutual TLS). */ clientCa?: string };
  /**
   * The response wire format: the Messages API's SSE (also what Vertex's streamRawPredict and Foundry answer), or
   * Bedrock's invoke-with-response-stream (AWS event-stream frames, errors typed by x-amzn-errortype).
   */
  wire?: 'anthropic' | 'bedrock';
  /**
   * Asked before the scenario: an HTTP error to answer this request with instead (a fault that depends on the
   * request itself, such as a prompt too long for the context window), or undefined to let the scenario answer.
   */
  refuse?: (req: { body: ModelRequest; bytes: number }) => { status: number; type: string; message: string; retryAfterSec?: number } | undefined;
  /** Awaited before the request (0-based `index`) is answered: a test holds a response until it is ready. */
  gate?: (req: { body: ModelRequest; index: number }) => Promise<void> | undefined;
}

/** Bedrock's exception name for an HTTP error status (what x-amzn-errortype carries). */
const BEDROCK_ERROR: Record<number, string> = { 400: 'ValidationException', 401: 'UnrecognizedClientException', 403: 'AccessDeniedException', 404: 'ResourceNotFoundException', 429: 'ThrottlingException', 500: 'InternalServerException', 503: 'ServiceUnavailableException' };

export async function startLoopbackServer(scenario: Scenario, vars: Record<string, string> = {}, opts: LoopbackOptions = {}): Promise<LoopbackServer> {
  const bedrock = opts.wire === 'bedrock';
  const engine = new ScenarioEngine(scenario, vars, { record: true });
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let n = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'HEAD' || req.method === 'GET') {
      res.writeHead(200).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const body = JSON.parse(raw.toString('utf8')) as ModelRequest;
    const rec: RecordedRequest = { path: req.url ?? '', headers: req.headers, body };
    requests.push(rec);
    let closed = false;
    res.on('close', () => {
      if (!res.writableFinished) {
        closed = true;
        rec.outcome ??= 'client_closed';
      }
    });
    const index = requests.length - 1;
    await opts.gate?.({ body, index });
    const refused = opts.refuse?.({ body, bytes: raw.length });
    const plan = refused ? ({ kind: 'error', delayMs: 0, ...refused } as const) : engine.plan(body);
    const requestId = `req_loopback_${++n}`;
    if (plan.kind === 'stall') {
      rec.outcome = 'stalled';
      return; // never answer; the client's watchdog must give up
    }
    if (plan.kind === 'error') {
      if (plan.delayMs) await sleep(plan.delayMs);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': requestId };
      if (plan.retryAfterSec !== undefined) headers['retry-after'] = String(plan.retryAfterSec);
      if (bedrock) headers['x-amzn-errortype'] = `${BEDROCK_ERROR[plan.status] ?? 'InternalServerException'}:http://internal.amazon.com/coral/com.amazon.bedrock/`;
      res.writeHead(plan.status, headers);
      res.end(JSON.stringify(bedrock ? { message: plan.message } : { type: 'error', error: { type: plan.type, message: plan.message }, request_id: requestId }));
      rec.outcome = 'error_response';
      return;
    }
    if (plan.firstTokenMs) await sleep(plan.firstTokenMs);
    if (closed) return;
    res.writeHead(200, bedrock ? { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': requestId } : { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': requestId });
    for (const { delayMs, event } of plan.events) {
      if (delayMs) await sleep(delayMs);
      if (closed) return;
      if (bedrock) res.write(bedrockChunk(event));
      else sse(res, event.type, event);
    }
    if (plan.end.kind === 'error') {
      if (bedrock) res.write(bedrockException(plan.end.type === 'overloaded_error' ? 'serviceUnavailableException' : 'throttlingException', plan.end.message));
      else sse(res, 'error', { type: 'error', error: { type: plan.end.type, message: plan.end.message } });
      rec.outcome = 'stream_error';
      res.end();
      return;
    }
    if (plan.end.kind === 'disconnect') {
      rec.outcome = 'disconnected';
      res.socket?.destroy();
      return;
    }
    rec.outcome = 'completed';
    res.end();
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }));
    });
  };
  const server: Server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert, ...(opts.tls.clientCa ? { ca: opts.tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}) }, listener) : createServer(listener);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    engine,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
