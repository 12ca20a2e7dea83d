// Inbound NDJSON framing (src/transport/line-reader.ts). The central property: however the same bytes are
// cut into chunks, the framer yields the same events, and those are the events of a straightforward
// reference model (split on LF, cap, strip one CR, skip blank and whitespace-only lines, check UTF-8).
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LineEvent, LineFramer, readLines } from '../../../src/transport/line-reader.js';

const LF = 0x0a;
const CR = 0x0d;

/** Reference model. The cap applies to the bytes before the LF (a CRLF line's CR counts). */
function modelEvents(bytes: Buffer, maxLineBytes: number): LineEvent[] {
  const out: LineEvent[] = [];
  let lineNumber = 0;
  let start = 0;
  const handle = (raw: Buffer, atEof: boolean): void => {
    lineNumber++;
    if (raw.length > maxLineBytes) {
      out.push({ kind: 'error', code: 'line_too_long', lineNumber, bytes: raw.length });
      return;
    }
    const line = raw.length > 0 && raw[raw.length - 1] === CR ? raw.subarray(0, raw.length - 1) : raw;
    if (line.every((b) => b === 0x20 || b === 0x09 || b === CR || b === 0x0b || b === 0x0c)) return;
    if (!isUtf8(line)) {
      out.push({ kind: 'error', code: 'invalid_utf8', lineNumber, bytes: line.length });
      return;
    }
    out.push({ kind: 'line', text: line.toString('utf8'), lineNumber, bytes: line.length, unterminated: atEof });
  };
  for (;;) {
    const idx = bytes.indexOf(LF, start);
    if (idx === -1) {
      if (start < bytes.length) handle(bytes.subarray(start), true);
      return out;
    }
    handle(bytes.subarray(start, idx), false);
    start = idx + 1;
  }
}

/** Feeds `chunks` to a fresh framer; also checks the memory bound after every push. */
function frame(chunks: Buffer[], maxLineBytes: number): { events: LineEvent[]; maxBuffered: number } {
  const framer = new LineFramer({ maxLineBytes });
  const events: LineEvent[] = [];
  let maxBuffered = 0;
  for (const c of chunks) {
    events.push(...framer.push(c));
    maxBuffered = Math.max(maxBuffered, framer.bufferedBytes);
  }
  events.push(...framer.end());
  return { events, maxBuffered };
}

function cutAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => (bytes.length ? c % (bytes.length + 1) : 0)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(prev, p));
    prev = p;
  }
  chunks.push(bytes.subarray(prev));
  return chunks;
}

const lineBody = fc.oneof(
  // Any text, multi-byte characters included (so chunk cuts fall inside characters).
  fc.string({ unit: 'binary', maxLength: 24 }).map((s) => Buffer.from(s.replaceAll('\n', ' '), 'utf8')),
  // Arbitrary bytes: mostly invalid UTF-8.
  fc.uint8Array({ minLength: 1, maxLength: 12 }).map((a) => Buffer.from(a.map((b) => (b === LF ? 0xff : b)))),
  // Lines near and over the cap.
  fc.integer({ min: 0, max: 80 }).map((n) => Buffer.alloc(n, 0x61)),
  fc.constant(Buffer.alloc(0)),
  fc.constant(Buffer.from([CR])),
  // Whitespace-only lines (skipped like blank ones).
  fc.array(fc.constantFrom(0x20, 0x09, CR, 0x0b, 0x0c), { minLength: 1, maxLength: 6 }).map((a) => Buffer.from(a)),
);
const terminator = fc.constantFrom('\n', '\r\n');

const streamArb = fc.record({
  lines: fc.array(fc.tuple(lineBody, terminator), { maxLength: 12 }),
  tail: fc.option(lineBody, { nil: undefined }),
  cap: fc.integer({ min: 1, max: 48 }),
  cuts: fc.array(fc.nat(), { maxLength: 16 }),
});

function assemble(s: { lines: Array<[Buffer, string]>; tail: Buffer | undefined }): Buffer {
  return Buffer.concat([...s.lines.flatMap(([b, t]) => [b, Buffer.from(t)]), s.tail ?? Buffer.alloc(0)]);
}

describe('LineFramer (property)', () => {
  it('any chunking of the same bytes yields the same events, those of the reference model', () => {
    fc.assert(
      fc.property(streamArb, (s) => {
        const bytes = assemble(s);
        const expected = modelEvents(bytes, s.cap);
        const whole = frame([bytes], s.cap);
        const chunked = frame(cutAt(bytes, s.cuts), s.cap);
        const byteByByte = frame([...bytes].map((b) => Buffer.from([b])), s.cap);
        expect(whole.events).toEqual(expected);
        expect(chunked.events).toEqual(expected);
        expect(byteByByte.events).toEqual(expected);
        expect(Math.max(whole.maxBuffered, chunked.maxBuffered, byteByByte.maxBuffered)).toBeLessThanOrEqual(s.cap);
      }),
      { numRuns: 500 },
    );
  });
});

describe('LineFramer', () => {
  const feed = (text: string | Buffer, cap = 1024): LineEvent[] => frame([Buffer.from(text)], cap).events;

  it('accepts CRLF and strips exactly one CR', () => {
    expect(feed('{"a":1}\r\n{"b":2}\r\r\n')).toEqual([
      { kind: 'line', text: '{"a":1}', lineNumber: 1, bytes: 7, unterminated: false },
      { kind: 'line', text: '{"b":2}\r', lineNumber: 2, bytes: 8, unterminated: false },
    ]);
  });

  it('skips blank lines but counts them', () => {
    expect(feed('\n\r\n\n{"a":1}\n\n')).toEqual([{ kind: 'line', text: '{"a":1}', lineNumber: 4, bytes: 7, unterminated: false }]);
  });

  it('skips whitespace-only lines (spaces, tabs, CRs), terminated or not, and counts them', () => {
    expect(feed('   \n\t\t\n \r\n \t \r \n{"a":1}\n\u000b\u000c\n \t')).toEqual([
      { kind: 'line', text: '{"a":1}', lineNumber: 5, bytes: 7, unterminated: false },
    ]);
  });

  it('reports invalid UTF-8 with its line number and serves the next line', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"a":"'),
      Buffer.from([0xc3]), // a lead byte without its continuation
      Buffer.from('"}\n'),
      Buffer.from([0xed, 0xa0, 0x80, 0x0a]), // an encoded UTF-16 surrogate (CESU-8), not UTF-8
      Buffer.from([0xc0, 0xaf, 0x0a]), // an overlong encoding of "/"
      Buffer.from('{"b":"é"}\n'),
    ]);
    expect(feed(bytes)).toEqual([
      { kind: 'error', code: 'invalid_utf8', lineNumber: 1, bytes: 9 },
      { kind: 'error', code: 'invalid_utf8', lineNumber: 2, bytes: 3 },
      { kind: 'error', code: 'invalid_utf8', lineNumber: 3, bytes: 2 },
      { kind: 'line', text: '{"b":"é"}', lineNumber: 4, bytes: 10, unterminated: false },
    ]);
  });

  it('reassembles a multi-byte character split across chunks', () => {
    const bytes = Buffer.from('{"t":"€😀"}\n');
    const events = frame([bytes.subarray(0, 8), bytes.subarray(8, 11), bytes.subarray(11)], 64).events;
    expect(events).toEqual([{ kind: 'line', text: '{"t":"€😀"}', lineNumber: 1, bytes: bytes.length - 1, unterminated: false }]);
  });

  it('serves a line of exactly the cap and rejects one byte more', () => {
    expect(feed('aaaa\naaaaa\nbb\n', 4)).toEqual([
      { kind: 'line', text: 'aaaa', lineNumber: 1, bytes: 4, unterminated: false },
      { kind: 'error', code: 'line_too_long', lineNumber: 2, bytes: 5 },
      { kind: 'line', text: 'bb', lineNumber: 3, bytes: 2, unterminated: false },
    ]);
  });

  it('flags an unterminated last line', () => {
    const framer = new LineFramer({ maxLineBytes: 64 });
    expect(framer.push(Buffer.from('{"a":1}\n{"b":'))).toEqual([
      { kind: 'line', text: '{"a":1}', lineNumber: 1, bytes: 7, unterminated: false },
    ]);
    expect(framer.push(Buffer.from('2}'))).toEqual([]);
    expect(framer.end()).toEqual([{ kind: 'line', text: '{"b":2}', lineNumber: 2, bytes: 7, unterminated: true }]);
    expect(framer.end()).toEqual([]);
  });

  it('reports an oversized unterminated last line as too long', () => {
    const framer = new LineFramer({ maxLineBytes: 4 });
    expect(framer.push(Buffer.from('ok\nabcdefgh'))).toEqual([{ kind: 'line', text: 'ok', lineNumber: 1, bytes: 2, unterminated: false }]);
    expect(framer.bufferedBytes).toBe(0);
    expect(framer.end()).toEqual([{ kind: 'error', code: 'line_too_long', lineNumber: 2, bytes: 8 }]);
  });

  it('streams a 100 MiB line in 64 KiB chunks with a 1 MiB cap: bounded memory, one report, next line served', () => {
    const cap = 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const chunks = (100 * 1024 * 1024) / chunk.length;
    const framer = new LineFramer({ maxLineBytes: cap });
    const events: LineEvent[] = [];
    let maxBuffered = 0;
    for (let i = 0; i < chunks; i++) {
      events.push(...framer.push(chunk));
      maxBuffered = Math.max(maxBuffered, framer.bufferedBytes);
    }
    expect(events).toEqual([]);
    events.push(...framer.push(Buffer.from('\n{"type":"keep_alive"}\n')));
    events.push(...framer.end());
    expect(maxBuffered).toBeLessThanOrEqual(cap);
    expect(framer.bufferedBytes).toBe(0);
    expect(events).toEqual([
      { kind: 'error', code: 'line_too_long', lineNumber: 1, bytes: 100 * 1024 * 1024 },
      { kind: 'line', text: '{"type":"keep_alive"}', lineNumber: 2, bytes: 21, unterminated: false },
    ]);
  });
});

describe('readLines', () => {
  it('frames a stream of Buffer and string chunks', async () => {
    const source = Readable.from([Buffer.from('{"a":'), '1}\r\n', Buffer.from([0xe2, 0x82]), Buffer.from([0xac, 0x0a]), '\n{"z":0}']);
    const events: LineEvent[] = [];
    for await (const ev of readLines(source, { maxLineBytes: 64 })) events.push(ev);
    expect(events).toEqual([
      { kind: 'line', text: '{"a":1}', lineNumber: 1, bytes: 7, unterminated: false },
      { kind: 'line', text: '€', lineNumber: 2, bytes: 3, unterminated: false },
      { kind: 'line', text: '{"z":0}', lineNumber: 4, bytes: 7, unterminated: true },
    ]);
  });

  it('yields nothing for an empty stream', async () => {
    const events: LineEvent[] = [];
    for await (const ev of readLines(Readable.from([]), { maxLineBytes: 64 })) events.push(ev);
    expect(events).toEqual([]);
  });
});
