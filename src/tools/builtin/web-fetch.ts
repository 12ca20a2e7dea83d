// WebFetch: fetch a URL and return its text. Claude Code runs the `prompt` over the page with a small model;
// agentd has no secondary model, so it returns the (converted, capped) page text and says so, and the main model
// applies the prompt itself. Redirects to another host are not followed: the permission check approved this
// URL's host, so the model is told to fetch the new URL (a new call, a new check), as Claude Code does.
import { STATUS_CODES } from 'node:http';
import * as z from 'zod/mini';
import { netFetch } from '../../net/fetch.js';
import type { Tool, ToolCallContext, ToolOutcome } from '../tool.js';
import { htmlToText } from './html-text.js';

export const WEB_FETCH_MAX_BYTES = 10 * 1024 * 1024;
export const WEB_FETCH_MAX_CHARS = 100_000;
const MAX_REDIRECTS = 10;
const MAX_URL_LENGTH = 2000;

export const WebFetchInput = z.strictObject({
  url: z.string().check(z.describe('The URL to fetch content from (http or https)')),
  prompt: z.string().check(z.describe('What you want to learn from the page. agentd returns the page text itself; apply the prompt to it yourself.')),
  offset: z.optional(
    z.int().check(
      z.minimum(0),
      z.describe('Character position in the page text to start reading from. Use it to read on through a page too long for one call, with the value the previous result gave.'),
    ),
  ),
});
export type WebFetchInput = z.infer<typeof WebFetchInput>;

export interface WebFetchOutput {
  bytes: number;
  code: number;
  codeText: string;
  result: string;
  durationMs: number;
  url: string;
}

const DESCRIPTION = `Fetches a URL and returns its content as readable text (HTML is converted to text with light markdown).

- The URL must be a fully-formed http(s) URL.
- agentd has no secondary model: the prompt is NOT applied for you. You get the page text (up to ${WEB_FETCH_MAX_CHARS} characters per call; use offset to read on) and should extract what you need yourself.
- When a URL redirects to a different host, the result says so and gives the new URL: call WebFetch again with it.
- Read-only: it does not change anything.`;

export interface WebFetchToolOptions {
  /** The fetch implementation (tests may wrap it). */
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
  maxBytes?: number;
  maxChars?: number;
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Same place, give or take a www. prefix and an http → https upgrade. */
function sameSite(a: URL, b: URL): boolean {
  const host = (u: URL): string => u.hostname.replace(/^www\./, '');
  const protoOk = a.protocol === b.protocol || (a.protocol === 'http:' && b.protocol === 'https:');
  const portOk = a.port === b.port || (a.protocol !== b.protocol && a.port === '' && b.port === '');
  return protoOk && portOk && host(a) === host(b);
}

async function readCapped(res: Response, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; cut: boolean }> {
  if (!res.body) return { body: Buffer.alloc(0), cut: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      signal.throwIfAborted();
      const chunk: { done: boolean; value?: unknown } = await reader.read();
      const { done, value } = chunk;
      if (done) return { body: Buffer.concat(chunks), cut: false };
      if (!(value instanceof Uint8Array)) throw new TypeError('a response body chunk is not bytes');
      const room = maxBytes - total;
      chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
      total += Math.min(value.byteLength, room);
      if (total >= maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { body: Buffer.concat(chunks), cut: true };
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function isTextual(ct: string): boolean {
  return /^text\/|json|xml|javascript|ecmascript|yaml|toml|csv|markdown|x-sh/.test(ct);
}

function pageText(body: Buffer, contentType: string): string {
  const ct = contentType.toLowerCase();
  const raw = decode(body, ct);
  const looksHtml = ct.includes('html') || (ct === '' && /^\s*(<!doctype html|<html)/i.test(raw.slice(0, 512)));
  if (looksHtml) {
    const { title, text } = htmlToText(raw);
    return title ? `# ${title}\n\n${text}` : text;
  }
  if (ct === '' ? body.subarray(0, 8192).includes(0) : !isTextual(ct)) {
    throw new Error(`The content type is ${contentType || 'unknown (binary)'}; WebFetch returns text only.`);
  }
  return raw;
}

async function fetchFollowing(
  doFetch: typeof fetch,
  start: URL,
  signal: AbortSignal,
): Promise<{ res: Response; url: URL } | { redirect: URL; res: Response }> {
  let url = start;
  for (let hops = 0; ; hops++) {
    const res = await doFetch(url, {
      redirect: 'manual',
      signal,
      headers: { accept: 'text/html, text/markdown, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5', 'user-agent': 'agentd-webfetch/1' },
    });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || location === null) return { res, url };
    await res.body?.cancel().catch(() => undefined);
    const next = new URL(location, url);
    if (!sameSite(start, next)) return { redirect: next, res };
    if (hops >= MAX_REDIRECTS) throw new Error(`Too many redirects (more than ${MAX_REDIRECTS}) starting at ${start.href}.`);
    url = next;
  }
}

export function createWebFetchTool(opts: WebFetchToolOptions = {}): Tool<WebFetchInput, WebFetchOutput> {
  const doFetch = opts.fetch ?? netFetch;
  const now = opts.now ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const maxBytes = opts.maxBytes ?? WEB_FETCH_MAX_BYTES;
  const maxChars = opts.maxChars ?? WEB_FETCH_MAX_CHARS;
  return {
    name: 'WebFetch',
    description: DESCRIPTION,
    inputSchema: WebFetchInput,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    permissionSubject: (input) => ({ kind: 'fetch', url: input.url }),
    validateInput(input) {
      if (input.url.length > MAX_URL_LENGTH) return { ok: false, message: `The URL is too long (${input.url.length} characters; at most ${MAX_URL_LENGTH}).` };
      const u = parseUrl(input.url);
      if (!u) return { ok: false, message: `Invalid URL: "${input.url}". Give a fully-formed http(s) URL.` };
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, message: `Unsupported URL scheme "${u.protocol}": WebFetch fetches http and https URLs only.` };
      if (u.username || u.password) return { ok: false, message: 'URLs with a user name or password are not fetched.' };
      return { ok: true };
    },
    async call(input, ctx: ToolCallContext): Promise<ToolOutcome<WebFetchOutput>> {
      const started = now();
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([ctx.signal, timeout]);
      const start = new URL(input.url);
      let got;
      let body: { body: Buffer; cut: boolean };
      try {
        got = await fetchFollowing(doFetch, start, signal);
        body = 'redirect' in got ? { body: Buffer.alloc(0), cut: false } : await readCapped(got.res, maxBytes, signal);
      } catch (e) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        if (timeout.aborted) throw new Error(`Timed out after ${timeoutMs} ms fetching ${input.url}.`);
        const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
        throw new Error(`Failed to fetch ${input.url}: ${e instanceof Error ? e.message : String(e)}${cause}`);
      }
      const { res } = got;
      const code = res.status;
      const codeText = res.statusText || STATUS_CODES[code] || '';
      const base = { bytes: body.body.length, code, codeText, url: input.url };
      if ('redirect' in got) {
        const result = `REDIRECT DETECTED: The URL redirects to a different host.

Original URL: ${input.url}
Redirect URL: ${got.redirect.href}
Status: ${code} ${codeText}

The redirect was not followed: fetching a different host needs its own call. To get the content, call WebFetch again with:
- url: "${got.redirect.href}"
- prompt: "${input.prompt}"`;
        return { data: { ...base, result, durationMs: now() - started }, content: result };
      }
      const page = pageText(body.body, res.headers.get('content-type') ?? '');
      const from = Math.min(input.offset ?? 0, page.length);
      const to = Math.min(page.length, from + maxChars);
      const header = [
        '[agentd has no secondary model, so your prompt was not applied: below is the page text itself. Extract what the prompt asks for from it.]',
        `Prompt: ${input.prompt}`,
        ...(got.url.href !== start.href ? [`Final URL (after redirects): ${got.url.href}`] : []),
        ...(code >= 400 ? [`The server answered HTTP ${code} ${codeText}.`] : []),
        ...(from > 0 || to < page.length ? [`Page text, characters ${from}–${to} of ${page.length}:`] : []),
        ...(body.cut ? [`(The response was cut at ${maxBytes} bytes.)`] : []),
      ].join('\n');
      const more = to < page.length ? `\n\n[Truncated: ${page.length - to} more characters. Call WebFetch again with offset: ${to} to read on.]` : '';
      const result = `${header}\n\n${page.slice(from, to)}${more}`;
      return { data: { ...base, result, durationMs: now() - started }, content: result, ...(code >= 400 ? { isError: true } : {}) };
    },
  };
}
