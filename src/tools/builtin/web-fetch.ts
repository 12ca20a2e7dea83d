// WebFetch: fetch a URL, convert the page to text (HTML as light markdown), and answer the `prompt` over it
// with the small, fast model (ToolEnvironment.sideModel), as Claude Code does. Without a side model (a bare
// embedding) it returns the page text and says the prompt was not applied. Redirects to another host are not
// followed: the permission check approved this URL's host, so the model is told to fetch the new URL (a new
// call, a new check), as Claude Code does. Private, loopback and link-local addresses are refused unless
// AGENTD_WEBFETCH_ALLOW_PRIVATE=1 (or the tool option) allows them (web-fetch-guard.ts).
import { STATUS_CODES } from 'node:http';
import * as z from 'zod/mini';
import { netFetch, networkConfig } from '../../net/fetch.js';
import { proxyFor } from '../../net/config.js';
import { isIP } from 'node:net';
import type { SideModel, Tool, ToolCallContext, ToolOutcome } from '../tool.js';
import { htmlToMarkdown } from './html-markdown.js';
import { checkPublicHost } from './web-fetch-guard.js';

/** Whether a fetch of `u` goes through the configured proxy (not in NO_PROXY). */
function viaProxy(u: URL): boolean {
  const proxy = networkConfig().proxy;
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return proxy !== undefined && proxyFor(proxy, u.protocol, u.hostname, port) !== undefined;
}

export const WEB_FETCH_MAX_BYTES = 10 * 1024 * 1024;
export const WEB_FETCH_MAX_CHARS = 100_000;
const MAX_REDIRECTS = 10;
const MAX_URL_LENGTH = 2000;

export const WebFetchInput = z.lazy(() => z.strictObject({
  url: z.string().check(z.describe('The URL to fetch content from (http or https)')),
  prompt: z.string().check(z.describe('The prompt to run on the fetched content')),
  offset: z.optional(
    z.int().check(
      z.minimum(0),
      z.describe('Character position in the page text to start reading from. Use it to read on through a page too long for one call, with the value the previous result gave.'),
    ),
  ),
}));
export type WebFetchInput = z.infer<typeof WebFetchInput>;

export interface WebFetchOutput {
  bytes: number;
  code: number;
  codeText: string;
  result: string;
  durationMs: number;
  url: string;
}

const DESCRIPTION = `Fetches a URL, converts its content to readable text (HTML as markdown), and answers the prompt about it with a small, fast model.

- The URL must be a fully-formed http(s) URL. Private, loopback and link-local addresses are not fetched.
- The prompt should say what you want to learn from the page. The page is read up to ${WEB_FETCH_MAX_CHARS} characters per call; use offset to read on.
- When a URL redirects to a different host, the result says so and gives the new URL: call WebFetch again with it.
- Read-only: it does not change anything.`;

export interface WebFetchToolOptions {
  /** The fetch implementation (tests may wrap it). */
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
  maxBytes?: number;
  maxChars?: number;
  /** Fetch private, loopback and link-local addresses too (default: AGENTD_WEBFETCH_ALLOW_PRIVATE=1 in the environment). */
  allowPrivateNetwork?: boolean;
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

async function pageText(body: Buffer, contentType: string, signal: AbortSignal): Promise<string> {
  const ct = contentType.toLowerCase();
  const raw = decode(body, ct);
  const looksHtml = ct.includes('html') || (ct === '' && /^\s*(<!doctype html|<html)/i.test(raw.slice(0, 512)));
  if (looksHtml) return htmlToMarkdown(raw, { signal });
  if (ct === '' ? body.subarray(0, 8192).includes(0) : !isTextual(ct)) {
    throw new Error(`The content type is ${contentType || 'unknown (binary)'}; WebFetch returns text only.`);
  }
  return raw;
}

async function fetchFollowing(
  doFetch: typeof fetch,
  start: URL,
  signal: AbortSignal,
  guard: (url: URL) => Promise<void>,
): Promise<{ res: Response; url: URL } | { redirect: URL; res: Response }> {
  let url = start;
  for (let hops = 0; ; hops++) {
    await guard(url);
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

/** What Claude Code asks its small model about the page (the same constraints on quoting). */
function answerPrompt(side: SideModel, content: string, prompt: string, signal: AbortSignal): Promise<string> {
  return side.ask({
    system: 'You answer a question about a web page, using only the page content you are given.',
    prompt: `Web page content:
---
${content}
---

${prompt}

Provide a concise response based only on the content above. In your response:
 - Enforce a strict 125-character maximum for quotes from any source document. Open Source Software is ok as long as we respect the license.
 - Use quotation marks for exact language from articles; any language outside of the quotation should never be word-for-word the same.
 - You are not a lawyer and never comment on the legality of your own prompts and responses.
 - Never produce or reproduce exact song lyrics.`,
    maxTokens: 4096,
    signal,
  });
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
        const allowPrivate = opts.allowPrivateNetwork ?? ctx.env.childEnv['AGENTD_WEBFETCH_ALLOW_PRIVATE'] === '1';
        // Through a proxy the name is resolved by the proxy, the network's own policy point: only a literal
        // address is checked here. Direct fetches check what the name resolves to.
        const guard = (u: URL): Promise<void> => (allowPrivate ? Promise.resolve() : viaProxy(u) && isIP(u.hostname.replace(/^\[|\]$/g, '')) === 0 ? Promise.resolve() : checkPublicHost(u.hostname));
        got = await fetchFollowing(doFetch, start, signal, guard);
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
      const page = await pageText(body.body, res.headers.get('content-type') ?? '', signal).catch((e: unknown) => {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        if (timeout.aborted) throw new Error(`Timed out after ${timeoutMs} ms converting ${input.url}.`);
        throw e;
      });
      const from = Math.min(input.offset ?? 0, page.length);
      const to = Math.min(page.length, from + maxChars);
      const side = ctx.env.sideModel;
      if (side) {
        const answer = await answerPrompt(side, page.slice(from, to), input.prompt, signal).catch((e: unknown) => {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          throw new Error(`Fetched ${input.url}, but the model that answers the prompt failed: ${e instanceof Error ? e.message : String(e)}`);
        });
        const notes = [
          ...(got.url.href !== start.href ? [`Final URL (after redirects): ${got.url.href}`] : []),
          ...(code >= 400 ? [`The server answered HTTP ${code} ${codeText}.`] : []),
          ...(to < page.length ? [`(Answered from characters ${from}–${to} of ${page.length}; call WebFetch again with offset: ${to} for the rest.)`] : []),
          ...(body.cut ? [`(The response was cut at ${maxBytes} bytes.)`] : []),
        ];
        const result = notes.length ? `${answer}\n\n${notes.join('\n')}` : answer;
        return { data: { ...base, result, durationMs: now() - started }, content: result, ...(code >= 400 ? { isError: true } : {}) };
      }
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
