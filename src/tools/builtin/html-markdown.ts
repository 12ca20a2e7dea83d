// HTML → markdown for WebFetch with turndown, the converter Claude Code uses (on @mixmark-io/domino, an HTML5
// parser, under Node). The one home of `turndown`, required from node_modules by a worker thread started on the
// first HTML page: neither start-up nor the tools bundle pays for it (the native executable carries it bundled,
// scripts/build-native.mjs).
//
// Why a worker: the conversion is synchronous and a hostile page can make it slow (thousands of nested
// unclosed `<a>` send the HTML5 parser's adoption agency quadratic: 18 s for 1 MiB on the development machine)
// or overflow its recursion. In the worker it neither blocks the session nor outlives its time limit: after
// CONVERT_TIMEOUT_MS (or when the call is stopped) the worker is terminated and the next page starts another.
//
// Limits, as Claude Code's: at most the first HTML_CONVERT_MAX_CHARS characters of a page are converted, and a
// longer page's markdown ends with TRUNCATED_NOTE. A page that cannot be converted in time, or at all, is given
// as its HTML, said so first (Claude Code falls back to the raw HTML too). What a page would run or style never
// reaches the model.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type TurndownService from 'turndown';

/** Claude Code converts at most this much of a page (1 MiB of HTML text). */
export const HTML_CONVERT_MAX_CHARS = 1_048_576;
export const TRUNCATED_NOTE = '[Content truncated due to length...]';
export const CONVERT_TIMEOUT_MS = 10_000;

/** Elements whose content is code, styling, metadata or embedded objects, not text for a reader. turndown
 *  parses the page inside an element of the body, so head elements (the title too) land there. */
const DROPPED: TurndownService.TagName[] = ['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'canvas', 'svg', 'math', 'head', 'title', 'meta', 'link', 'base'];
/** ATX headings and fenced code: what a model reads most easily (turndown's defaults are setext and indented). */
const OPTIONS: TurndownService.Options = { headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' };

// The worker's code (CommonJS, evaluated): the page's <title> as plain text, then the body as markdown.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Turndown = require(workerData.path);
const s = new Turndown(workerData.options);
s.remove(workerData.dropped);
parentPort.on('message', ({ id, html }) => {
  try {
    const m = /<title[^<>]*>([\\s\\S]*?)<\\/title\\s*>/i.exec(html.slice(0, 65536));
    const title = m ? s.turndown('<p>' + m[1] + '</p>').replace(/\\s+/g, ' ').trim() : '';
    parentPort.postMessage({ id, ok: true, title, body: s.turndown(html) });
  } catch (e) {
    parentPort.postMessage({ id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
`;

type Reply = { id: number; ok: true; title: string; body: string } | { id: number; ok: false; error: string };

/** A converter thread and the conversions waiting on it. */
interface Converter {
  worker: Worker;
  waiting: Map<number, (r: Reply) => void>;
}

let current: Converter | undefined;
let nextId = 0;

function converter(): Converter {
  if (current) return current;
  const path = createRequire(import.meta.url).resolve('turndown');
  // stdout/stderr piped and dropped: by default a worker's console output goes to the process's stdout, which
  // carries protocol frames only; whatever turndown or its DOM might print must never reach it.
  const c: Converter = { worker: new Worker(WORKER_SOURCE, { eval: true, stdout: true, stderr: true, workerData: { path, options: OPTIONS, dropped: DROPPED } }), waiting: new Map() };
  c.worker.stdout.resume();
  c.worker.stderr.resume();
  // An idle converter never keeps agentd running; a busy one does (its caller awaits it).
  c.worker.unref();
  c.worker.on('message', (r: Reply) => c.waiting.get(r.id)?.(r));
  const fail = (error: string) => {
    if (current === c) current = undefined;
    for (const [id, done] of c.waiting) done({ id, ok: false, error });
  };
  c.worker.on('error', (e) => fail(e.message));
  c.worker.on('exit', () => fail('the converter stopped'));
  current = c;
  return c;
}

function convert(html: string, signal: AbortSignal | undefined, timeoutMs: number): Promise<Reply> {
  const c = converter();
  const id = ++nextId;
  return new Promise<Reply>((resolve) => {
    const stop = (error: string) => {
      // A conversion cannot be interrupted but by ending its thread (the others on it fail over to HTML).
      if (current === c) current = undefined;
      done({ id, ok: false, error });
      void c.worker.terminate();
    };
    const timer = setTimeout(() => stop(`it took longer than ${timeoutMs} ms`), timeoutMs);
    const onAbort = () => stop('stopped');
    const done = (r: Reply) => {
      if (!c.waiting.delete(id)) return;
      if (c.waiting.size === 0) c.worker.unref();
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    c.waiting.set(id, done);
    c.worker.ref();
    signal?.addEventListener('abort', onAbort, { once: true });
    c.worker.postMessage({ id, html });
  });
}

/** The markdown of an HTML page: `# title` first when it has one, then the body. */
export async function htmlToMarkdown(html: string, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<string> {
  const cut = html.length > HTML_CONVERT_MAX_CHARS;
  const part = cut ? html.slice(0, HTML_CONVERT_MAX_CHARS) : html;
  const tail = cut ? `\n\n${TRUNCATED_NOTE}` : '';
  opts.signal?.throwIfAborted();
  const r = await convert(part, opts.signal, opts.timeoutMs ?? CONVERT_TIMEOUT_MS);
  opts.signal?.throwIfAborted();
  if (!r.ok) return `[The page could not be converted to markdown (${r.error}); its HTML follows.]\n\n${part}${tail}`;
  // Whitespace between the dropped head elements leaves blank lines at the top.
  return `${r.title ? `# ${r.title}\n\n` : ''}${r.body.trimStart()}${tail}`;
}
