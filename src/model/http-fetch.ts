// A fetch for @anthropic-ai/sdk built on node:http/https with keep-alive agents. Node's global fetch (undici)
// costs ~20 MiB of resident memory (its HTTP parser is WebAssembly) and ~1 ms per request here; node:http uses
// the built-in parser. The SDK still builds the requests, authenticates and maps errors.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { NetConfig } from '../net/config.js';
import { createNetFetch, needsDispatcher } from '../net/fetch.js';
import type { JsonChunks } from './request-body.js';

type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const nodeBodies = new WeakMap<Response, Readable>();
interface ChunkedBody {
  body: JsonChunks;
  signal: AbortSignal;
}
const chunkedBodies = new WeakMap<object, ChunkedBody>();

/**
 * A request body given as chunks (model/request-body.ts), with the signal that aborts the request. To the SDK
 * it is an ordinary ReadableStream, passed to fetch untouched; this fetch recognises it and writes the chunks
 * with their precomputed Content-Length. Any other reader gets the same bytes by reading the stream.
 *
 * The signal travels here rather than through the SDK's `signal` option on purpose: given a signal, the SDK
 * keeps a listener on it, plus the request's AbortController, in a FinalizationRegistry until it sees the
 * response body finished or collected; agentd reads the body itself (nodeBodyOf), so every request's
 * controller, signal and listeners stayed alive until a full GC (~7 KiB a turn, BENCHMARKS.md).
 */
export function chunkedRequestBody(body: JsonChunks, signal: AbortSignal): ReadableStream<Uint8Array> {
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = body.chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(Buffer.from(chunk));
    },
  });
  chunkedBodies.set(stream, { body, signal });
  return stream;
}

/**
 * The node stream behind a Response made here. Reading it directly skips the web-stream adapter (a measurable
 * share of streaming time); the Response's own body stays unread and is only bridged if someone pulls it.
 */
export function nodeBodyOf(r: Response): Readable | undefined {
  return nodeBodies.get(r);
}

/** A web stream that starts reading the node stream only when pulled (so it never competes with a direct reader). */
function lazyWebBody(res: Readable): ReadableStream<Uint8Array> {
  let bridged: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      bridged ??= (Readable.toWeb(res) as ReadableStream<Uint8Array>).getReader();
      const { value, done } = await bridged.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      res.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}

function plainHeaders(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) h.forEach((v, k) => (out[k] = v));
  else if (Array.isArray(h)) {
    for (const [k, v] of h) if (k !== undefined) out[k.toLowerCase()] = String(v);
  }
  else for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
}

/**
 * Through a proxy (or with a client certificate) requests go through undici's dispatcher (net/undici.ts, CONNECT
 * tunnelling, NO_PROXY), with the chunked body joined; otherwise through node:http, the fast path.
 */
export function createHttpFetch(net?: NetConfig): FetchLike {
  if (net && net.proxy) return proxiedFetch(net);
  const tls = net?.clientTls ? { cert: net.clientTls.cert, key: net.clientTls.key, ...(net.clientTls.passphrase !== undefined ? { passphrase: net.clientTls.passphrase } : {}) } : {};
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true, ...tls }) };
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const https = url.protocol === 'https:';
      const headers = plainHeaders(init?.headers);
      // Responses are streamed and parsed as they arrive: ask for them uncompressed.
      headers['accept-encoding'] = 'identity';
      const body = init?.body;
      const chunked = typeof body === 'object' && body !== null ? chunkedBodies.get(body) : undefined;
      if (body !== undefined && body !== null && typeof body !== 'string' && !chunked) {
        reject(new TypeError('agentd http fetch: only string and chunked (request-body.ts) request bodies are supported'));
        return;
      }
      if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));
      if (chunked) headers['content-length'] = String(chunked.body.byteLength);
      // The SDK's own signal (its timeout) and, for a chunked body, the caller's.
      const signal = chunked?.signal ?? init?.signal ?? undefined;
      const sdkSignal = chunked ? init?.signal : undefined;
      const req = (https ? httpsRequest : httpRequest)(
        url,
        { method: init?.method ?? 'GET', headers, agent: https ? agents.https : agents.http, ...(signal ? { signal } : {}) },
        (res) => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) for (const x of v) h.append(k, x);
            else if (v !== undefined) h.set(k, v);
          }
          const status = res.statusCode ?? 0;
          const noBody = status === 204 || status === 304 || init?.method === 'HEAD';
          if (noBody) res.resume();
          // A successful streaming response is read straight from the node stream (nodeBodyOf); only other answers
          // (errors the SDK reads as text/JSON) get a web body. Building a web stream per request costs ~0.1 ms.
          const direct = !noBody && status >= 200 && status < 300 && (res.headers['content-type'] ?? '').startsWith('text/event-stream');
          const response = new Response(noBody || direct ? null : lazyWebBody(res), { status, statusText: res.statusMessage ?? '', headers: h });
          if (direct) nodeBodies.set(response, res);
          resolve(response);
        },
      );
      req.on('error', reject);
      if (sdkSignal) {
        // Short-lived (one per request): a listener on it cannot pile up.
        const onSdkAbort = (): void => void req.destroy(sdkSignal.reason instanceof Error ? sdkSignal.reason : new Error('aborted'));
        if (sdkSignal.aborted) onSdkAbort();
        else sdkSignal.addEventListener('abort', onSdkAbort, { once: true });
        req.once('close', () => sdkSignal.removeEventListener('abort', onSdkAbort));
      }
      // Small request bodies and the first SSE bytes must not wait for Nagle.
      req.setNoDelay(true);
      if (chunked) {
        for (const chunk of chunked.body.chunks) req.write(chunk);
        req.end();
        // The SDK keeps the body stream referenced until the response ends: let the strings die young.
        chunked.body.chunks.length = 0;
      } else req.end(typeof body === 'string' ? body : undefined);
    });
}

function proxiedFetch(net: NetConfig): FetchLike {
  const inner = createNetFetch(net);
  if (!needsDispatcher(net)) return inner;
  return (input, init) => {
    const body = init?.body;
    const chunked = typeof body === 'object' && body !== null ? chunkedBodies.get(body) : undefined;
    if (!chunked) return inner(input, { ...init, headers: { ...plainHeaders(init?.headers), 'accept-encoding': 'identity' } });
    const text = chunked.body.chunks.join('');
    chunked.body.chunks.length = 0;
    const signal = init?.signal ? AbortSignal.any([init.signal, chunked.signal]) : chunked.signal;
    return inner(input, { ...init, body: text, signal, headers: { ...plainHeaders(init?.headers), 'accept-encoding': 'identity' } });
  };
}
