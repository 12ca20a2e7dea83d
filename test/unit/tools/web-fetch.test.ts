// WebFetch against a loopback HTTP server started here (no network).
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebFetchOutput as SdkWebFetchOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { HTML_CONVERT_MAX_CHARS, TRUNCATED_NOTE, htmlToMarkdown } from '../../../src/tools/builtin/html-markdown.js';
import { type WebFetchOutput, createWebFetchTool } from '../../../src/tools/builtin/web-fetch.js';
import { isNonPublicAddress } from '../../../src/tools/builtin/web-fetch-guard.js';
import type { SideModel } from '../../../src/tools/tool.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

const HTML = `<!doctype html><html><head><title>Test &amp; Page</title><style>body{color:red}</style>
<script>var secret = "do not show";</script></head>
<body><nav><a href="/home">Home</a></nav>
<h1>Hello&nbsp;world</h1>
<p>First   paragraph with <b>bold</b> and a <a href="https://example.org/x">link</a>.</p>
<!-- a comment -->
<ul><li>one</li><li>two &lt;3</li></ul>
<pre>  keep
    indentation</pre>
</body></html>`;

// turndown's markdown (src/tools/builtin/html-markdown.ts): head, scripts and styles dropped, the title first,
// &nbsp; kept as U+00A0.
const HTML_TEXT = `# Test & Page

[Home](/home)

# Hello\u00a0world

First paragraph with **bold** and a [link](https://example.org/x).

-   one
-   two <3

  keep
    indentation`;

let server: Server;
let base: string;
let other: string;
let seen: string[];
let onHang: (() => void) | undefined;

/** A "10 GB" body: chunks written as long as the client reads (the client must stop early). */
let hugeSent = 0;
function streamHuge(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(10 * 1024 ** 3) });
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const pump = (): void => {
    while (hugeSent < 10 * 1024 ** 3) {
      hugeSent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.on('close', () => undefined);
  pump();
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  seen.push(url);
  if (url === '/page') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HTML);
  else if (url === '/plain') res.writeHead(200, { 'content-type': 'text/plain' }).end('just text\n');
  else if (url === '/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}');
  else if (url === '/long') res.writeHead(200, { 'content-type': 'text/plain' }).end('0123456789'.repeat(5));
  else if (url === '/same') res.writeHead(302, { location: '/plain' }).end();
  else if (url === '/elsewhere') res.writeHead(301, { location: `${other}/plain` }).end();
  else if (url === '/missing') res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
  else if (url === '/binary') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0, 1, 2]));
  else if (url === '/hang') onHang?.(); // never answers
  else if (url === '/loop') res.writeHead(302, { location: '/loop' }).end();
  else if (url === '/huge') streamHuge(res);
  else res.writeHead(500).end();
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  // Same server, different host name: a cross-host redirect target.
  other = `http://localhost:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

let sb: Sandbox;
let ticks: number;
// The loopback server is a private address: allowed explicitly here (the guard has its own tests below).
const fetchTool = (o: Parameters<typeof createWebFetchTool>[0] = {}) => createWebFetchTool({ now: () => (ticks += 5), allowPrivateNetwork: true, ...o });
beforeEach(() => {
  sb = sandbox();
  seen = [];
  ticks = 0;
  onHang = undefined;
});
afterEach(() => sb.cleanup());

const NOTE = '[agentd has no secondary model, so your prompt was not applied: below is the page text itself. Extract what the prompt asks for from it.]';

describe('WebFetch', () => {
  it('returns an HTML page as readable text and says the prompt was not applied', async () => {
    const result = `${NOTE}\nPrompt: Summarise\n\n${HTML_TEXT}`;
    expect(await ok<WebFetchOutput>(fetchTool(), { url: `${base}/page`, prompt: 'Summarise' }, sb)).toEqual({
      data: { bytes: Buffer.byteLength(HTML), code: 200, codeText: 'OK', result, durationMs: 5, url: `${base}/page` },
      content: result,
    });
  });

  it('returns text and JSON as they are', async () => {
    const out = await ok<WebFetchOutput>(fetchTool(), { url: `${base}/json`, prompt: 'p' }, sb);
    expect(out.content).toBe(`${NOTE}\nPrompt: p\n\n{"a":1}`);
  });

  it('caps the text and lets the model read on with offset', async () => {
    const tool = fetchTool({ maxChars: 20 });
    const first = await ok<WebFetchOutput>(tool, { url: `${base}/long`, prompt: 'p' }, sb);
    expect(first.content).toBe(
      `${NOTE}\nPrompt: p\nPage text, characters 0–20 of 50:\n\n01234567890123456789\n\n[Truncated: 30 more characters. Call WebFetch again with offset: 20 to read on.]`,
    );
    const last = await ok<WebFetchOutput>(tool, { url: `${base}/long`, prompt: 'p', offset: 40 }, sb);
    expect(last.content).toBe(`${NOTE}\nPrompt: p\nPage text, characters 40–50 of 50:\n\n0123456789`);
  });

  it('stops reading the body at maxBytes', async () => {
    const out = await ok<WebFetchOutput>(fetchTool({ maxBytes: 10 }), { url: `${base}/long`, prompt: 'p' }, sb);
    expect({ bytes: out.data.bytes, content: out.content }).toEqual({
      bytes: 10,
      content: `${NOTE}\nPrompt: p\n(The response was cut at 10 bytes.)\n\n0123456789`,
    });
  });

  it('follows a same-host redirect', async () => {
    const out = await ok<WebFetchOutput>(fetchTool(), { url: `${base}/same`, prompt: 'p' }, sb);
    expect(out.content).toBe(`${NOTE}\nPrompt: p\nFinal URL (after redirects): ${base}/plain\n\njust text\n`);
    expect(seen).toEqual(['/same', '/plain']);
  });

  it('does not follow a redirect to another host: it tells the model to fetch it', async () => {
    const result = `REDIRECT DETECTED: The URL redirects to a different host.

Original URL: ${base}/elsewhere
Redirect URL: ${other}/plain
Status: 301 Moved Permanently

The redirect was not followed: fetching a different host needs its own call. To get the content, call WebFetch again with:
- url: "${other}/plain"
- prompt: "p"`;
    expect(await ok<WebFetchOutput>(fetchTool(), { url: `${base}/elsewhere`, prompt: 'p' }, sb)).toEqual({
      data: { bytes: 0, code: 301, codeText: 'Moved Permanently', result, durationMs: 5, url: `${base}/elsewhere` },
      content: result,
    });
    expect(seen).toEqual(['/elsewhere']);
  });

  it('reports HTTP errors as error results with the body', async () => {
    const out = await ok<WebFetchOutput>(fetchTool(), { url: `${base}/missing`, prompt: 'p' }, sb);
    expect({ isError: out.isError, code: out.data.code, content: out.content }).toEqual({
      isError: true,
      code: 404,
      content: `${NOTE}\nPrompt: p\nThe server answered HTTP 404 Not Found.\n\nno such page`,
    });
  });

  it('refuses binary content', async () => {
    expect(await run(fetchTool(), { url: `${base}/binary`, prompt: 'p' }, sb)).toEqual({
      kind: 'error',
      message: 'The content type is application/octet-stream; WebFetch returns text only.',
    });
  });

  it('validates the URL', async () => {
    expect(await run(fetchTool(), { url: 'not a url', prompt: 'p' }, sb)).toEqual({
      kind: 'rejected',
      message: 'Invalid URL: "not a url". Give a fully-formed http(s) URL.',
    });
    expect(await run(fetchTool(), { url: 'file:///etc/passwd', prompt: 'p' }, sb)).toEqual({
      kind: 'rejected',
      message: 'Unsupported URL scheme "file:": WebFetch fetches http and https URLs only.',
    });
    expect(await run(fetchTool(), { url: `http://u:pw@127.0.0.1/`, prompt: 'p' }, sb)).toEqual({
      kind: 'rejected',
      message: 'URLs with a user name or password are not fetched.',
    });
  });

  it('stops promptly when the call is aborted', async () => {
    const ac = new AbortController();
    onHang = () => ac.abort(new Error('interrupted'));
    expect(await run(fetchTool(), { url: `${base}/hang`, prompt: 'p' }, sb, { signal: ac.signal })).toEqual({ kind: 'error', message: 'interrupted' });
  });

  it('gives up after its time limit', async () => {
    expect(await run(fetchTool({ timeoutMs: 50 }), { url: `${base}/hang`, prompt: 'p' }, sb)).toEqual({
      kind: 'error',
      message: `Timed out after 50 ms fetching ${base}/hang.`,
    });
  });

  it('reports a connection failure clearly', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise((r) => probe.close(r));
    const url = `http://127.0.0.1:${port}/`;
    const r = await run(fetchTool(), { url, prompt: 'p' }, sb);
    expect(r).toEqual({ kind: 'error', message: `Failed to fetch ${url}: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}` });
  });

  it('declares a safe read-only tool with a fetch subject', () => {
    const tool = fetchTool();
    const input = { url: 'https://a.example/', prompt: 'p' };
    expect({ safe: tool.isConcurrencySafe(input), readOnly: tool.isReadOnly(input), subject: tool.permissionSubject?.(input, sb.shared) }).toEqual({
      safe: true,
      readOnly: true,
      subject: { kind: 'fetch', url: 'https://a.example/' },
    });
    expectTypeOf<WebFetchOutput>().toExtend<SdkWebFetchOutput>();
  });
});

describe('WebFetch bad input and limits', () => {
  it('a 10 GB body: reading stops at the byte cap and the connection is dropped', async () => {
    hugeSent = 0;
    const out = await ok<WebFetchOutput>(fetchTool({ maxBytes: 1024 * 1024, maxChars: 10 }), { url: `${base}/huge`, prompt: 'p' }, sb);
    expect({ bytes: out.data.bytes, cut: String(out.content).includes('(The response was cut at 1048576 bytes.)') }).toEqual({ bytes: 1024 * 1024, cut: true });
    // The server could only push what the socket buffers held beyond the cap, not the whole body.
    expect(hugeSent).toBeLessThan(64 * 1024 * 1024);
  });

  it('a redirect loop is bounded and typed', async () => {
    expect(await run(fetchTool(), { url: `${base}/loop`, prompt: 'p' }, sb)).toEqual({
      kind: 'error',
      message: `Failed to fetch ${base}/loop: Too many redirects (more than 10) starting at ${base}/loop.`,
    });
    expect(seen.length).toBe(11);
  });
});

describe('WebFetch and private addresses', () => {
  it('refuses loopback, private and link-local addresses unless allowed', async () => {
    const tool = createWebFetchTool();
    expect(await run(tool, { url: `${base}/plain`, prompt: 'p' }, sb)).toEqual({
      kind: 'error',
      message: `Failed to fetch ${base}/plain: 127.0.0.1 is a private, loopback or link-local address; WebFetch fetches public addresses only (AGENTD_WEBFETCH_ALLOW_PRIVATE=1 allows them).`,
    });
    expect(await run(tool, { url: `${other}/plain`, prompt: 'p' }, sb)).toMatchObject({ kind: 'error', message: expect.stringMatching(/^Failed to fetch http:\/\/localhost:\d+\/plain: localhost resolves to (127\.0\.0\.1|::1), a private/) });
    expect(seen).toEqual([]);
    for (const ip of ['10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0', '100.64.0.1']) expect([ip, isNonPublicAddress(ip)]).toEqual([ip, true]);
    for (const ip of ['1.1.1.1', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8']) expect([ip, isNonPublicAddress(ip)]).toEqual([ip, false]);
  });

  it('AGENTD_WEBFETCH_ALLOW_PRIVATE=1 in the environment allows them', async () => {
    const env = sandbox({ PATH: process.env['PATH'], AGENTD_WEBFETCH_ALLOW_PRIVATE: '1' });
    try {
      const out = await ok<WebFetchOutput>(createWebFetchTool(), { url: `${base}/plain`, prompt: 'p' }, env);
      expect(out.content).toBe(`${NOTE}\nPrompt: p\n\njust text\n`);
    } finally {
      env.cleanup();
    }
  });
});

describe('WebFetch with the small, fast model', () => {
  it('answers the prompt over the converted page, with the model Claude Code asks', async () => {
    const asked: Array<{ system: string; prompt: string; maxTokens: number }> = [];
    const side: SideModel = {
      model: 'claude-haiku-4-5',
      complete: async () => [],
      ask: async ({ system, prompt, maxTokens }) => {
        asked.push({ system, prompt, maxTokens });
        return 'The page greets the world.';
      },
    };
    const sbSide = { ...sb, ctx: (extra?: Parameters<Sandbox['ctx']>[0]) => ({ ...sb.ctx(extra), env: { ...sb.env, sideModel: side } }) };
    const out = await ok<WebFetchOutput>(fetchTool(), { url: `${base}/page`, prompt: 'What does it say?' }, sbSide);
    expect(out).toEqual({
      data: { bytes: Buffer.byteLength(HTML), code: 200, codeText: 'OK', result: 'The page greets the world.', durationMs: 5, url: `${base}/page` },
      content: 'The page greets the world.',
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.prompt.startsWith(`Web page content:\n---\n${HTML_TEXT}\n---\n\nWhat does it say?\n\nProvide a concise response based only on the content above.`)).toBe(true);
  });

  it('a failing side model is a typed tool error', async () => {
    const side: SideModel = { model: 'm', complete: async () => [], ask: async () => Promise.reject(new Error('overloaded')) };
    const sbSide = { ...sb, ctx: (extra?: Parameters<Sandbox['ctx']>[0]) => ({ ...sb.ctx(extra), env: { ...sb.env, sideModel: side } }) };
    expect(await run(fetchTool(), { url: `${base}/plain`, prompt: 'p' }, sbSide)).toEqual({
      kind: 'error',
      message: `Fetched ${base}/plain, but the model that answers the prompt failed: overloaded`,
    });
  });
});

describe('htmlToMarkdown', () => {
  it('converts with turndown: fenced code, escaped markdown, entities, an unclosed script dropped', async () => {
    expect(await htmlToMarkdown('<pre><code class="language-js">let a = 1;\n</code></pre><p>x_y *z* &#233;&#x263A;&unknown;</p>')).toBe('```js\nlet a = 1;\n```\n\nx\\_y \\*z\\* é☺&unknown;');
    expect(await htmlToMarkdown('<p>a</p><script>never closed')).toBe('a');
  });

  it('converts at most 1 MiB of a page and says so', async () => {
    const page = '<p>word</p>'.repeat(Math.ceil((HTML_CONVERT_MAX_CHARS + 11) / 11));
    const md = await htmlToMarkdown(page);
    // 95,325 whole paragraphs fit in 1 MiB; the 95,326th is cut after its "<".
    expect(md).toBe(`${Array.from({ length: 95_325 }, () => 'word').join('\n\n')}\n\n<\n\n${TRUNCATED_NOTE}`);
  });

  it('gives a page that takes too long as its HTML, without blocking the session, and converts the next one', async () => {
    // 30,000 nested divs take turndown 19-30 s on Node 20, 22 and 24 (measured): far past the 300 ms limit on any
    // machine. (20,000 unclosed links took only 300-560 ms: on Node 22 they once finished inside the limit.)
    const hostile = `<p>ok</p>${'<div>'.repeat(30_000)}`;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const md = await htmlToMarkdown(hostile, { timeoutMs: 300 });
    clearInterval(timer);
    expect(md).toBe(`[The page could not be converted to markdown (it took longer than 300 ms); its HTML follows.]\n\n${hostile}`);
    expect(ticks).toBeGreaterThan(5);
    expect(await htmlToMarkdown('<h2>next</h2>')).toBe('## next');
  });

  it('stops with the call', async () => {
    const ac = new AbortController();
    const pending = htmlToMarkdown(`<p>ok</p>${'<div>'.repeat(30_000)}`, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('interrupted')), 50);
    await expect(pending).rejects.toThrow('interrupted');
    expect(await htmlToMarkdown('<p>again</p>')).toBe('again');
  });
});
