// The byte cap for remote (Streamable HTTP and SSE) servers, as stdio servers have theirs (stdio-transport.ts):
// the MCP SDK reads a JSON answer whole (`response.json()`) and buffers an SSE event until its blank line, so a
// server answering 100 MB would hold 100 MB (and more, decoded) in the daemon. The fetch handed to the
// transport counts the bytes of each message as they stream in: a JSON body as a whole, an event stream per
// event (the count restarts at each blank line, so a long-lived stream is not capped as a whole). Over the cap
// the body errors with McpMessageTooLargeError, the upstream is cancelled, and the transport's reader fails.
export class McpMessageTooLargeError extends Error {
  constructor(
    readonly server: string,
    readonly limit: number,
  ) {
    super(`MCP server "${server}" sent a message over the ${limit}-byte limit`);
    this.name = 'McpMessageTooLargeError';
  }
}

const LF = 0x0a;
const CR = 0x0d;

/** Where the last event boundary (a blank line: `\n\n` or `\n\r\n`) in `chunk` ends; -1 when there is none. */
function lastBoundaryEnd(chunk: Uint8Array, prevEndedInNewline: boolean): number {
  for (let i = chunk.length - 1; i >= 0; i--) {
    if (chunk[i] !== LF) continue;
    // This LF ends a blank line when the line before it ended just before it (LF, or LF CR).
    if (i >= 1 && chunk[i - 1] === LF) return i + 1;
    if (i >= 2 && chunk[i - 1] === CR && chunk[i - 2] === LF) return i + 1;
    if (i === 0 && prevEndedInNewline) return 1;
    if (i === 1 && chunk[0] === CR && prevEndedInNewline) return 2;
  }
  return -1;
}

function endsInNewline(chunk: Uint8Array): boolean {
  const n = chunk.length;
  return n > 0 && (chunk[n - 1] === LF || (n > 1 && chunk[n - 1] === CR && chunk[n - 2] === LF));
}

/** A body that errors once one message (the whole body, or one event of an event stream) passes `limit` bytes. */
export function boundedBody(body: ReadableStream<Uint8Array>, o: { limit: number; server: string; eventStream: boolean }): ReadableStream<Uint8Array> {
  let size = 0;
  let prevNewline = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (o.eventStream) {
          const end = lastBoundaryEnd(chunk, prevNewline);
          size = end >= 0 ? chunk.length - end : size + chunk.length;
          prevNewline = endsInNewline(chunk);
        } else {
          size += chunk.length;
        }
        if (size > o.limit) {
          controller.error(new McpMessageTooLargeError(o.server, o.limit));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/** `fetch` whose response bodies are bounded per message (see boundedBody). */
export function boundedFetch(inner: typeof fetch, o: { limit: number; server: string }): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.body || NULL_BODY.has(res.status)) return res;
    const eventStream = (res.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
    const body = boundedBody(res.body, { ...o, eventStream });
    const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    // The SSE transport's EventSource resolves against the final URL after a redirect.
    Object.defineProperty(out, 'url', { value: res.url });
    Object.defineProperty(out, 'redirected', { value: res.redirected });
    return out;
  };
}
