// OutputCollector: decoding across chunk boundaries, sanitizing, the JSON-escaped budget, head + tail with a
// marker naming the file with every byte. Reading from a command's output file: output-file.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputCollector, escapedSize, sanitizeOutput } from '../../../src/tools/shell/output.js';

function collector(budget = 2000): { c: OutputCollector } {
  return { c: new OutputCollector(budget) };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

describe('OutputCollector', () => {
  it('keeps small output whole', () => {
    const { c } = collector();
    c.push(Buffer.from('hello\n'));
    c.push(Buffer.from('world\n'));
    expect(c.finish()).toEqual({ text: 'hello\nworld\n', truncated: false, totalBytes: 12 });
  });

  it('decodes characters split across chunks', () => {
    const text = 'a€b😀c';
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { c } = collector();
      c.push(bytes.subarray(0, cut));
      c.push(bytes.subarray(cut));
      expect((c.finish()).text).toBe(text);
    }
  });

  it('removes escape sequences (even split across chunks) and control characters but \\n and \\t', () => {
    const { c } = collector();
    c.push(Buffer.from('\x1b[31mred\x1b[0m\tx\r\n\x07bell\x00\x1b['));
    c.push(Buffer.from('1mbold\x1b]0;title\x07end\x7f\n'));
    expect((c.finish()).text).toBe('red\tx\nbellboldend\n');
  });

  it('removes a hyperlink escape cut inside its ESC \\ terminator', () => {
    const { c } = collector();
    c.push(Buffer.from('see \x1b]8;;http://x\x1b'));
    c.push(Buffer.from('\\link\x1b]8;;\x1b\\ done'));
    expect((c.finish()).text).toBe('see link done');
  });

  it('turns invalid UTF-8 into U+FFFD', () => {
    const { c } = collector();
    c.push(Buffer.from([0x61, 0xff, 0xfe, 0x62, 0xe2, 0x82]));
    expect((c.finish()).text).toBe('a\uFFFD\uFFFDb\uFFFD');
  });

  it('cuts long output to head + marker + tail within the budget, naming the full output', () => {
    const { c } = collector(2000);
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`);
    for (const l of lines) c.push(Buffer.from(l));
    const out = c.finish('/tmp/full.log');
    const all = lines.join('');
    expect(out.truncated).toBe(true);
    expect(out.spillPath).toBe('/tmp/full.log');
    expect(out.totalBytes).toBe(Buffer.byteLength(all));
    expect(out.text.startsWith('line 0\nline 1\n')).toBe(true);
    expect(out.text.endsWith('line 1998\nline 1999\n')).toBe(true);
    expect(out.text).toMatch(/\n\n\.\.\. \[[\d,]+ bytes of output omitted, [\d,]+ bytes in all; the full output is in \/tmp\/full\.log\] \.\.\.\n\n/);
    expect(escapedSize(out.text)).toBeLessThanOrEqual(2000);
  });

  it('leaves the path out when nothing was cut', () => {
    const { c } = collector(2000);
    c.push(Buffer.from('short\n'));
    expect(c.finish('/tmp/full.log')).toEqual({ text: 'short\n', truncated: false, totalBytes: 6 });
  });

  it('counts skipped bytes (after a full head) as omitted, decoding only the newest', () => {
    const { c } = collector(2000);
    c.push(Buffer.from('h'.repeat(5000)));
    expect(c.headFull).toBe(true);
    c.skip(1_000_000);
    c.push(Buffer.from('t'.repeat(c.tailBytes)));
    const out = c.finish();
    expect(out.totalBytes).toBe(1_005_000 + c.tailBytes);
    expect(out.text).toBe(`${'h'.repeat(640)}\n\n... [${(out.totalBytes - 640 - 960).toLocaleString('en-US')} bytes of output omitted, ${out.totalBytes.toLocaleString('en-US')} bytes in all] ...\n\n${'t'.repeat(960)}`);
  });

  it('refuses to skip before the head is full (the head must be exact)', () => {
    const { c } = collector(2000);
    expect(() => c.skip(10)).toThrow('before the head is full');
  });

  it('never splits a surrogate pair at a cut', () => {
    for (let shift = 0; shift < 4; shift++) {
      const { c } = collector(1000);
      c.push(Buffer.from('x'.repeat(shift) + '😀'.repeat(2000)));
      const out = c.finish();
      expect(out.truncated).toBe(true);
      expect(LONE_SURROGATE.test(out.text)).toBe(false);
    }
  });

  it('ignores output after finish', () => {
    const { c } = collector();
    c.push(Buffer.from('a'));
    const first = c.finish();
    c.push(Buffer.from('b'));
    expect(c.finish()).toEqual(first);
  });
});

describe('budget properties', () => {
  it('escapedSize is the JSON-escaped UTF-8 size (U+2028/2029 counted as the transport escapes them)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (raw) => {
        const s = sanitizeOutput(raw);
        const seps = (s.match(/[\u2028\u2029]/g) ?? []).length;
        expect(escapedSize(s)).toBe(Buffer.byteLength(JSON.stringify(s)) - 2 + 3 * seps);
      }),
    );
  });

  it('binary garbage stays valid text within the budget', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 4000 }), { minLength: 1, maxLength: 8 }), (chunks) => {
        const { c } = collector(1500);
        for (const ch of chunks) c.push(Buffer.from(ch));
        const out = c.finish();
        expect(FORBIDDEN_CONTROL.test(out.text)).toBe(false);
        expect(LONE_SURROGATE.test(out.text)).toBe(false);
        expect(escapedSize(out.text)).toBeLessThanOrEqual(1500);
      }),
      { numRuns: 60 },
    );
  });
});
