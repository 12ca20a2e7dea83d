// OutputCollector: decoding across chunk boundaries, sanitizing, the JSON-escaped budget, head + tail with a
// marker, and the spill file that keeps every raw byte.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputCollector, escapedSize, sanitizeOutput } from '../../../src/tools/shell/output.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-output-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function collector(budget = 2000, onText?: (t: string, b: number) => void): { c: OutputCollector; path: string } {
  const path = join(dir, `spill-${n++}.log`);
  return { c: new OutputCollector({ budget, spillPath: () => path, ...(onText ? { onText } : {}) }), path };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

describe('OutputCollector', () => {
  it('keeps small output whole, without a spill file', async () => {
    const { c } = collector();
    c.push(Buffer.from('hello\n'));
    c.push(Buffer.from('world\n'));
    expect(await c.finish()).toEqual({ text: 'hello\nworld\n', truncated: false, totalBytes: 12 });
  });

  it('decodes characters split across chunks', async () => {
    const text = 'a€b😀c';
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { c } = collector();
      c.push(bytes.subarray(0, cut));
      c.push(bytes.subarray(cut));
      expect((await c.finish()).text).toBe(text);
    }
  });

  it('removes escape sequences (even split across chunks) and control characters but \\n and \\t', async () => {
    const { c } = collector();
    c.push(Buffer.from('\x1b[31mred\x1b[0m\tx\r\n\x07bell\x00\x1b['));
    c.push(Buffer.from('1mbold\x1b]0;title\x07end\x7f\n'));
    expect((await c.finish()).text).toBe('red\tx\nbellboldend\n');
  });

  it('turns invalid UTF-8 into U+FFFD', async () => {
    const { c } = collector();
    c.push(Buffer.from([0x61, 0xff, 0xfe, 0x62, 0xe2, 0x82]));
    expect((await c.finish()).text).toBe('a\uFFFD\uFFFDb\uFFFD');
  });

  it('forwards sanitized live output with the raw byte count', async () => {
    const seen: Array<[string, number]> = [];
    const { c } = collector(2000, (t, b) => seen.push([t, b]));
    c.push(Buffer.from('one\x1b[1m\n'));
    c.push(Buffer.from('two\n'));
    await c.finish();
    expect(seen).toEqual([
      ['one\n', 8],
      ['two\n', 12],
    ]);
  });

  it('cuts long output to head + marker + tail within the budget and spills every byte', async () => {
    const { c, path } = collector(2000);
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`);
    for (const l of lines) c.push(Buffer.from(l));
    const out = await c.finish();
    const all = lines.join('');
    expect(out.truncated).toBe(true);
    expect(out.spillPath).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe(all);
    expect(out.totalBytes).toBe(Buffer.byteLength(all));
    expect(out.text.startsWith('line 0\nline 1\n')).toBe(true);
    expect(out.text.endsWith('line 1998\nline 1999\n')).toBe(true);
    expect(out.text).toMatch(/\.\.\. \[[\d,]+ bytes of output omitted, [\d,]+ bytes in all; the full output is in .*spill-\d+\.log\] \.\.\./);
    expect(escapedSize(out.text)).toBeLessThanOrEqual(2000);
  });

  it('never splits a surrogate pair at a cut', async () => {
    for (let shift = 0; shift < 4; shift++) {
      const { c } = collector(1000);
      c.push(Buffer.from('x'.repeat(shift) + '😀'.repeat(2000)));
      const out = await c.finish();
      expect(out.truncated).toBe(true);
      expect(LONE_SURROGATE.test(out.text)).toBe(false);
    }
  });

  it('holds back the raw bytes of invisible output and spills them once there are many', async () => {
    const { c, path } = collector(1000);
    for (let i = 0; i < 10; i++) c.push(Buffer.alloc(1000, 0));
    const out = await c.finish();
    expect({ text: out.text, truncated: out.truncated, spill: out.spillPath }).toEqual({ text: '', truncated: false, spill: path });
    expect(readFileSync(path).length).toBe(10_000);
  });

  it('asks the source to pause when the spill file is backed up, and says when to resume', async () => {
    const { c } = collector(1000);
    let paused = false;
    for (let i = 0; i < 50 && !paused; i++) paused = !c.push(Buffer.alloc(64 * 1024, 0x61));
    expect(paused).toBe(true);
    await new Promise<void>((resolve) => c.onDrain(resolve));
    await c.finish();
  });

  it('ignores output after finish', async () => {
    const { c } = collector();
    c.push(Buffer.from('a'));
    const first = await c.finish();
    c.push(Buffer.from('b'));
    expect(await c.finish()).toEqual(first);
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

  it('binary garbage stays valid text within the budget', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ minLength: 1, maxLength: 4000 }), { minLength: 1, maxLength: 8 }), async (chunks) => {
        const { c } = collector(1500);
        for (const ch of chunks) c.push(Buffer.from(ch));
        const out = await c.finish();
        expect(FORBIDDEN_CONTROL.test(out.text)).toBe(false);
        expect(LONE_SURROGATE.test(out.text)).toBe(false);
        expect(escapedSize(out.text)).toBeLessThanOrEqual(1500);
      }),
      { numRuns: 60 },
    );
  });
});
