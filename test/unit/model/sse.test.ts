import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from '../../../src/model/sse.js';

function parse(chunks: Array<string | Uint8Array>): SseEvent[] {
  const p = new SseParser();
  const out: SseEvent[] = [];
  const emit = (e: SseEvent): void => void out.push(e);
  for (const c of chunks) p.push(typeof c === 'string' ? Buffer.from(c) : c, emit);
  p.end(emit);
  return out;
}

describe('SseParser', () => {
  it('reads events, names, multi-line data, comments and CRLF line ends', () => {
    const text = ': keep-alive\r\nevent: ping\r\ndata: {}\r\n\r\nevent: message_start\ndata: {"a":1}\n\ndata: line one\ndata: line two\n\nevent: only-a-name\n\n';
    expect(parse([text])).toEqual([
      { event: 'ping', data: '{}' },
      { event: 'message_start', data: '{"a":1}' },
      { event: 'message', data: 'line one\nline two' },
      { event: 'only-a-name', data: '' },
    ]);
  });

  it('keeps a field without a colon, a value without the optional space, and ignores unknown fields', () => {
    expect(parse(['data\n\ndata:x\nid: 7\nretry: 10\n\n'])).toEqual([
      { event: 'message', data: '' },
      { event: 'message', data: 'x' },
    ]);
  });

  it('gives a last event whose data was not followed by a blank line, and drops an unfinished line', () => {
    expect(parse(['event: e\ndata: done\n'])).toEqual([{ event: 'e', data: 'done' }]);
    expect(parse(['data: complete\n\ndata: cut in the midd'])).toEqual([{ event: 'message', data: 'complete' }]);
  });

  it('gives the same events however the body is cut into chunks, a UTF-8 character split included', () => {
    const body = Buffer.from('event: content_block_delta\ndata: {"text":"héllo — 🎉"}\r\n\r\ndata: second\n\n');
    const whole = parse([body]);
    expect(whole).toEqual([
      { event: 'content_block_delta', data: '{"text":"héllo — 🎉"}' },
      { event: 'message', data: 'second' },
    ]);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 12 }), (cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), body.length];
        const chunks = at.slice(1).map((end, i) => body.subarray(at[i], end));
        expect(parse(chunks)).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});
